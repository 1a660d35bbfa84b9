//! Redaction (preview switch `redaction`): `DELETE /sessions/{id}` and
//! `DELETE /extractions/{id}` erase a finished run's customer data and keep
//! what its money needs.
//!
//! Erased: the query and parsed intent, the entity, guidance, metadata and
//! webhook URL, every row, every event's payload (the entries keep their
//! seq, phase and time), pending turn proposals, and the stored first
//! answers of Idempotency-Keys that named it (replays show the redacted
//! object). Pages are never stored, only their hashes.
//!
//! Kept: the ledger's entries, the amounts on the object (reserved,
//! settled, released, spend), its counts, status and times, and every
//! receipt whole (id, URL, content hash, cost, claim, signature): a
//! receipt's signature covers all of it, so the audit still balances and
//! every receipt still verifies.

use serde_json::Value;

use super::{events, Session};
use crate::store::{self, Scope, Tx, EVENTS, ROWS};
use crate::wire::KeyScope;

/// Erase a finished run's customer data in the caller's transaction.
pub fn redact(tx: &Tx, s: &mut Session) -> anyhow::Result<()> {
    anyhow::ensure!(!s.is_running(), "a running run is not redacted");
    s.query = String::new();
    s.parsed = Value::Null;
    s.entity = None;
    s.guidance = None;
    s.metadata = None;
    s.webhook_url = None;
    s.redacted = true;
    s.updated_at = crate::time::now();
    let prefix = crate::prefix!(s.id);
    let rows: Vec<(String, crate::wire::Row)> =
        tx.scan_json(ROWS, &prefix, None, usize::MAX, false)?;
    for (key, _) in rows {
        tx.remove(ROWS, &key)?;
    }
    let logged: Vec<(String, events::Event)> =
        tx.scan_json(EVENTS, &prefix, None, usize::MAX, false)?;
    for (key, mut event) in logged {
        event.data = Value::Object(Default::default());
        store::put_json(tx, EVENTS, &key, &event)?;
    }
    super::proposals::remove_of(tx, &s.id)?;
    super::put(tx, s)
}

/// The DELETE of a run of `kind`: 409 `session_busy` while it runs, the
/// redacted object afterwards (again on a second DELETE).
pub async fn delete(
    state: &crate::state::AppState,
    caller: &crate::auth::Caller,
    id: &str,
    kind: super::Kind,
) -> Result<Session, crate::http::ApiError> {
    use crate::http::ApiError;
    caller.require(KeyScope::SessionsWrite)?;
    let (id, scope, public_url) = (
        id.to_string(),
        caller.scope_key(),
        state.config.public_url(),
    );
    let (account, mode) = (caller.account.id.clone(), caller.mode());
    let s = state
        .store
        .write_async_in(
            Scope::account(&caller.account.id),
            move |tx| -> Result<Session, ApiError> {
                // Another account's run, or a run of another kind, is not there.
                let mut s = super::get(tx, &id)?
                    .filter(|s| s.kind == kind && s.account == account && s.mode == mode)
                    .ok_or(ApiError::NotFound)?;
                if s.is_running() {
                    return Err(ApiError::SessionBusy {
                        status: s.status_str().into(),
                    });
                }
                redact(tx, &mut s)?;
                let shown = match s.kind {
                    super::Kind::Session => serde_json::to_value(s.to_wire(&public_url)),
                    super::Kind::Extraction => {
                        serde_json::to_value(s.to_extraction_wire(&public_url))
                    }
                }
                .map_err(|e| ApiError::Internal(e.into()))?;
                crate::idempotency::scrub(tx, &scope, &s.id, &shown)?;
                Ok(s)
            },
        )
        .await?;
    state.bus.publish();
    Ok(s)
}
