//! Ending a session early (stop) and erasing a finished one (redaction).

use super::{own, wait_until_done};
use crate::auth::Caller;
use crate::http::ApiError;
use crate::sessions::Kind;
use crate::state::AppState;
use crate::wire;
use crate::wire::KeyScope;
use axum::extract::{Path, State};
use axum::Json;
use std::time::Duration;

/// Erases a finished session's customer data (preview: redaction).
#[utoipa::path(delete, path = "/sessions/{id}", operation_id = "redactSession", tag = "sessions",
    description = "Scope: sessions:write. Preview (switch `redaction`). Erases the query, parsed intent, guidance, metadata, webhook URL, rows and event payloads of a finished session; keeps its money, counts and receipts whole (they still verify). A running session is 409 session_busy.",
    params(wire::SessionId),
    responses((status = 200, description = "The session, redacted", body = wire::Session)))]
pub(super) async fn redact(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::Session>, ApiError> {
    let s = crate::sessions::redaction::delete(&state, &caller, &id, Kind::Session).await?;
    Ok(Json(s.to_wire(&state.config.public_url())))
}

/// Stops a running session.
#[utoipa::path(post, path = "/sessions/{id}/stop", operation_id = "stopSession", tag = "sessions",
    description = "Scope: sessions:write. Its signed receipts settle, the rest of the reservation is released.",
    params(wire::SessionId),
    responses((status = 200, description = "The session, stopped", body = wire::Session)))]
pub(super) async fn stop(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::Session>, ApiError> {
    caller.require(KeyScope::SessionsWrite)?;
    let s = own(&state, &caller, &id)?;
    if !s.is_running() {
        return Err(ApiError::SessionTerminal {
            status: s.status.as_str().into(),
        });
    }
    if !state.runs.stop(&id) {
        if state.store.is_shared() {
            // The run may be on another node: its watchdog passes the stop on.
            let sid = id.clone();
            state
                .store
                .write_async_in(
                    crate::store::Scope::account(&caller.account.id),
                    move |tx| -> anyhow::Result<()> {
                        // Only for the run in flight now: one that has ended
                        // takes no stop, and its next turn none of its.
                        if crate::sessions::runner(tx, &sid)?.is_some() {
                            tx.put_str(crate::store::STOP_REQUESTS, &sid, "")?;
                        }
                        Ok(())
                    },
                )
                .await?;
        } else {
            // The run is between its commit and its end; it is ending anyway.
            tracing::debug!(session = %id, "stop for a run that is already ending");
        }
    }
    let s = wait_until_done(&state, &id, Duration::from_secs(30)).await?;
    // And until its task has let go of its run slot, so a session created
    // after this answer finds the place free.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while state.runs.is_live(&id) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    Ok(Json(s.to_wire(&state.config.public_url())))
}
