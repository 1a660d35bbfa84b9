//! API keys: creation (shown once), lookup by hash, scopes, rename, revoke.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::accounts::Mode;
use crate::money::Micros;
use crate::store::{self, Tx, KEY_HASHES};
use crate::wire::KeyScope;

/// `keys`, read and written through this module only.
const KEYS: store::Table<Key> = store::KEYS.holding();

/// A stored key. The key text itself is never stored, only its hash.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Key {
    pub id: String,
    pub account: String,
    pub mode: Mode,
    pub name: String,
    /// The first characters of the key, to recognise it in a list.
    pub prefix: String,
    pub scopes: Vec<String>,
    /// The most one session may reserve (max_spend_usd) with this key.
    pub session_cap: Option<Micros>,
    pub created_at: String,
    pub revoked_at: Option<String>,
}

impl Key {
    pub fn has_scope(&self, scope: KeyScope) -> bool {
        self.scopes.iter().any(|s| s == scope.as_str())
    }

    /// The key as the API shows it.
    pub fn to_wire(&self) -> crate::wire::Key {
        crate::wire::Key {
            id: self.id.clone(),
            object: "key",
            name: self.name.clone(),
            prefix: self.prefix.clone(),
            livemode: self.mode.livemode(),
            scopes: self.scopes.clone(),
            session_cap_usd: self.session_cap.map(crate::wire::Usd),
            created_at: self.created_at.clone(),
            revoked_at: self.revoked_at.clone(),
        }
    }
}

/// The stored form of a key's text.
pub fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Does this text have the shape of a key? (`fn_live_` or `fn_test_` and
/// 32 base-62 characters.)
pub fn mode_of(secret: &str) -> Option<Mode> {
    let (mode, rest) = if let Some(rest) = secret.strip_prefix("fn_live_") {
        (Mode::Live, rest)
    } else if let Some(rest) = secret.strip_prefix("fn_test_") {
        (Mode::Test, rest)
    } else {
        return None;
    };
    (rest.len() == 32 && rest.chars().all(|c| c.is_ascii_alphanumeric())).then_some(mode)
}

/// Create a key; returns the record and the key text, which is shown once.
pub fn create(
    tx: &Tx,
    account: &str,
    mode: Mode,
    name: &str,
    scopes: Option<Vec<String>>,
    session_cap: Option<Micros>,
) -> anyhow::Result<(Key, String)> {
    // 32 base-62 characters: about 190 random bits.
    let secret = format!("fn_{}_{}", mode.as_str(), crate::ids::random_text(32));
    let every = || {
        KeyScope::ALL
            .iter()
            .map(|s| s.as_str().to_string())
            .collect()
    };
    let scopes = scopes.unwrap_or_else(every);
    if let Some(bad) = scopes.iter().find(|s| KeyScope::parse(s).is_none()) {
        anyhow::bail!("unknown scope {bad:?}");
    }
    let key = Key {
        id: crate::ids::new_id("key"),
        account: account.to_string(),
        mode,
        name: name.to_string(),
        prefix: secret[..12].to_string(),
        scopes,
        session_cap,
        created_at: crate::time::now(),
        revoked_at: None,
    };
    store::put_json(tx, KEYS, &key.id, &key)?;
    tx.put_str(KEY_HASHES, hash(&secret).as_str(), key.id.as_str())?;
    Ok((key, secret))
}

/// The key whose text hashes to `hash`.
pub fn by_hash(tx: &Tx, hash: &str) -> anyhow::Result<Option<Key>> {
    let Some(id) = tx.get_str(KEY_HASHES, hash)? else {
        return Ok(None);
    };
    tx.get_json(KEYS, &id)
}

pub fn get(tx: &Tx, id: &str) -> anyhow::Result<Option<Key>> {
    tx.get_json(KEYS, id)
}

pub fn put(tx: &Tx, key: &Key) -> anyhow::Result<()> {
    store::put_json(tx, KEYS, &key.id, key)
}

/// Every key of an account in one mode, oldest first.
pub fn of_account(tx: &Tx, account: &str, mode: Mode) -> anyhow::Result<Vec<Key>> {
    let all: Vec<(String, Key)> = tx.scan_json(KEYS, "", None, usize::MAX, false)?;
    let mut keys: Vec<Key> = all
        .into_iter()
        .map(|(_, k)| k)
        .filter(|k| k.account == account && k.mode == mode)
        .collect();
    keys.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    Ok(keys)
}
