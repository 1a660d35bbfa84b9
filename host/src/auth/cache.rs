//! The key cache: what a request's key and account are, without a
//! database read when nothing changed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use crate::accounts::Account;
use crate::http::ApiError;
use crate::keys::{self, Key};
use crate::store::Store;

/// Keys and their accounts by the SHA-256 of the key text, so that a
/// request does not read them from the database. An entry is good only for
/// the store's `keys_generation` it was read under: any committed write to a
/// key or an account (revoke, rename, caps, threshold) moves the generation
/// before its caller is answered, so the very next request reads the
/// database again and sees the change. Key texts are never kept, only
/// their hashes; unknown keys are not cached.
pub struct KeyCache {
    shards: Vec<Mutex<HashMap<[u8; 32], Cached>>>,
}

struct Cached {
    generation: u64,
    key: Arc<Key>,
    account: Option<Arc<Account>>,
}

/// Entries per shard before the shard is emptied.
const SHARD_CAPACITY: usize = 4096;
const SHARDS: usize = 16;

impl Default for KeyCache {
    fn default() -> KeyCache {
        KeyCache {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }
}

impl KeyCache {
    /// The key whose text is `secret` and its account (if it still exists),
    /// or 401 invalid_key.
    pub fn lookup(
        &self,
        store: &Store,
        secret: &str,
    ) -> Result<(Arc<Key>, Option<Arc<Account>>), ApiError> {
        let digest: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
        let shard = &self.shards[digest[0] as usize % SHARDS];
        // Read before the database: an entry filled from a read that began
        // before a change is then tagged with the generation before it.
        let generation = store.keys_generation();
        if let Some(c) = shard.lock().expect("key cache lock").get(&digest) {
            if c.generation == generation {
                return Ok((c.key.clone(), c.account.clone()));
            }
        }
        let hash = hex::encode(digest);
        let (key, account) = store
            .read(|tx| -> anyhow::Result<Option<(Key, Option<Account>)>> {
                let Some(key) = keys::by_hash(tx, &hash)? else {
                    return Ok(None);
                };
                let account = crate::accounts::get(tx, &key.account)?;
                Ok(Some((key, account)))
            })?
            .ok_or(ApiError::InvalidKey)?;
        let (key, account) = (Arc::new(key), account.map(Arc::new));
        let mut entries = shard.lock().expect("key cache lock");
        if entries.len() >= SHARD_CAPACITY {
            entries.clear();
        }
        entries.insert(
            digest,
            Cached {
                generation,
                key: key.clone(),
                account: account.clone(),
            },
        );
        Ok((key, account))
    }
}
