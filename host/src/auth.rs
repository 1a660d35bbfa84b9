//! Who is calling: the bearer key, its account and mode, its scopes, and
//! its rate limit. Every authenticated handler takes a `Caller`.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::accounts::{Account, Mode};
use crate::http::ApiError;
use crate::keys::{self, Key};
use crate::state::AppState;
use crate::store::{Tables, ACCOUNTS};

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
        format!("{}:{}", self.account.id, self.key.mode.as_str())
    }

    /// 403 missing_scope unless the key has `scope`.
    pub fn require(&self, scope: &'static str) -> Result<(), ApiError> {
        if self.key.has_scope(scope) {
            Ok(())
        } else {
            Err(ApiError::MissingScope {
                required_scope: scope,
            })
        }
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Caller, ApiError> {
        let header = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        let secret = header
            .and_then(|h| h.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or(ApiError::InvalidKey)?;
        keys::mode_of(secret).ok_or(ApiError::InvalidKey)?;
        let hash = keys::hash(secret);
        let (key, account) = state
            .store
            .read(|tx| -> anyhow::Result<Option<(Key, Option<Account>)>> {
                let Some(key) = keys::by_hash(tx, &hash)? else {
                    return Ok(None);
                };
                let account = tx.get_json(ACCOUNTS, &key.account)?;
                Ok(Some((key, account)))
            })?
            .ok_or(ApiError::InvalidKey)?;
        if let Some(revoked_at) = &key.revoked_at {
            return Err(ApiError::KeyRevoked {
                revoked_at: revoked_at.clone(),
            });
        }
        let account = account.ok_or(ApiError::InvalidKey)?;
        state.rate_limiter.check(&key.id)?;
        Ok(Caller { key, account })
    }
}
