//! Who is calling: the bearer key, its account and mode, its scopes, and
//! its rate limit. Every authenticated handler takes a `Caller`.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::accounts::{Account, Mode};
use crate::http::ApiError;
use crate::keys::{self, Key};
use crate::state::AppState;
use crate::wire::KeyScope;

pub mod cache;
pub use cache::KeyCache;

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Caller {
    pub key: Key,
    pub account: Account,
}

impl Caller {
    pub fn mode(&self) -> Mode {
        self.key.mode
    }

    /// `account:mode`, the scope of every object and balance this caller sees.
    pub fn scope_key(&self) -> String {
        crate::key!(self.account.id, self.key.mode)
    }

    /// 403 missing_scope unless the key has `scope`.
    pub fn require(&self, scope: KeyScope) -> Result<(), ApiError> {
        if self.key.has_scope(scope) {
            Ok(())
        } else {
            Err(ApiError::MissingScope {
                required_scope: scope.as_str(),
            })
        }
    }
}

/// The credentials of an `Authorization: Bearer <key>` value. The scheme's
/// name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are
/// `Bearer`.
fn bearer_secret(header: &str) -> Option<&str> {
    let (scheme, rest) = header.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("Bearer")
        .then(|| rest.trim())
        .filter(|s| !s.is_empty())
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Caller, ApiError> {
        let header = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        let secret = header.and_then(bearer_secret).ok_or(ApiError::InvalidKey)?;
        keys::mode_of(secret).ok_or(ApiError::InvalidKey)?;
        let (key, account) = state.key_cache.lookup(&state.store, secret)?;
        if let Some(revoked_at) = &key.revoked_at {
            return Err(ApiError::KeyRevoked {
                revoked_at: revoked_at.clone(),
            });
        }
        let account = account.ok_or(ApiError::InvalidKey)?;
        state.rate_limiter.check(&key.id)?;
        Ok(Caller {
            key: Key::clone(&key),
            account: Account::clone(&account),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::Mode;
    use crate::store::Store;
    use std::sync::Arc;

    fn account_with_key(store: &Store) -> (Key, String) {
        store
            .write(|tx| -> anyhow::Result<(Key, String)> {
                let account = Account::new("cache");
                crate::accounts::put(tx, &account)?;
                keys::create(tx, &account.id, Mode::Test, "k", None, None)
            })
            .unwrap()
    }

    #[test]
    fn the_bearer_scheme_is_read_in_any_case() {
        assert_eq!(bearer_secret("Bearer fn_test_x"), Some("fn_test_x"));
        assert_eq!(bearer_secret("bearer fn_test_x"), Some("fn_test_x"));
        assert_eq!(bearer_secret("BEARER  fn_test_x "), Some("fn_test_x"));
        assert_eq!(bearer_secret("Basic fn_test_x"), None);
        assert_eq!(bearer_secret("Bearerfn_test_x"), None);
        assert_eq!(bearer_secret("Bearer "), None);
        assert_eq!(bearer_secret("fn_test_x"), None);
    }

    #[test]
    fn cached_until_a_key_or_an_account_changes() {
        let store = Store::in_memory().unwrap();
        let cache = KeyCache::default();
        let (key, secret) = account_with_key(&store);
        let (first, _) = cache.lookup(&store, &secret).unwrap();
        let (again, _) = cache.lookup(&store, &secret).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "the second lookup reads the cache"
        );

        // Revoked through the group commit: refused on the very next lookup.
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let id = key.id.clone();
        rt.block_on(store.write_async(move |tx| -> anyhow::Result<()> {
            let mut k = keys::get(tx, &id)?.unwrap();
            k.revoked_at = Some(crate::time::now());
            keys::put(tx, &k)
        }))
        .unwrap();
        let (revoked, _) = cache.lookup(&store, &secret).unwrap();
        assert!(revoked.revoked_at.is_some());

        // An account change on the calling thread (as `fnhost admin` does).
        let (key2, secret2) = account_with_key(&store);
        let (_, account) = cache.lookup(&store, &secret2).unwrap();
        let mut account = Account::clone(&account.unwrap());
        account.monthly_cap = Some(crate::money::Micros::from_usd(3));
        store
            .write(|tx| crate::accounts::put(tx, &account))
            .unwrap();
        let (_, seen) = cache.lookup(&store, &secret2).unwrap();
        assert_eq!(
            seen.unwrap().monthly_cap,
            Some(crate::money::Micros::from_usd(3))
        );

        // Other writes leave the cache alone.
        let (before, _) = cache.lookup(&store, &secret2).unwrap();
        store
            .write(|tx| {
                crate::ledger::top_up(tx, &key2.account, Mode::Test, crate::money::Micros(1), "t")
                    .map_err(|e| anyhow::anyhow!("{e}"))
            })
            .unwrap();
        let (after, _) = cache.lookup(&store, &secret2).unwrap();
        assert!(Arc::ptr_eq(&before, &after));
        assert!(cache
            .lookup(&store, "fn_test_00000000000000000000000000000000")
            .is_err());
    }
}
