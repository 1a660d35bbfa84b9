//! The session routes. Scopes: sessions:write to estimate, create, add a
//! turn or stop; sessions:read for everything else.
//!
//! One file per concern: `create` (estimate, create, `open_session`),
//! `read` (list, read, events, stream, result, rows, receipts), `turns`
//! (follow-up turns, refresh), `stop` (stop, redaction); shared helpers here.

mod create;
mod read;
mod stop;
mod turns;

pub(crate) use read::{event_page, long_poll, sse, sse_first_turn};

use super::{Kind, Session};
use crate::auth::Caller;
use crate::http::ApiError;
use crate::state::AppState;
use crate::wire::KeyScope;
use std::time::Duration;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// How long a turn proposal stays valid.
pub const PROPOSAL_TTL_MIN: i64 = 15;

/// The session routes; `redaction` opens `DELETE /sessions/{id}` and
/// `refresh` opens `POST /sessions/{id}/refresh` (the preview switches of
/// those names); closed, they answer 501.
pub fn routes(redaction: bool, refresh: bool) -> OpenApiRouter<AppState> {
    let router = OpenApiRouter::new()
        .routes(routes!(create::estimate))
        .routes(routes!(create::create, read::list))
        .routes(routes!(read::read));
    let router = if redaction {
        router.routes(routes!(stop::redact))
    } else {
        let surface =
            crate::planned::partial("/sessions/{id}", "DELETE").expect("redaction is planned");
        router.route(
            "/sessions/{id}",
            crate::planned::method_handler("DELETE", surface),
        )
    };
    let router = router
        .routes(routes!(read::events_page))
        .routes(routes!(read::stream))
        .routes(routes!(read::result))
        .routes(routes!(read::rows))
        .routes(routes!(read::receipts))
        .routes(routes!(turns::turn))
        .routes(routes!(stop::stop));
    if refresh {
        router.routes(routes!(turns::refresh))
    } else {
        router
    }
}

/// A session of the caller's account and mode, or 404.
fn own(state: &AppState, caller: &Caller, id: &str) -> Result<Session, ApiError> {
    owned(state, caller, id, Kind::Session)
}

/// A run of `kind` of the caller's account and mode, or 404.
pub(crate) fn owned(
    state: &AppState,
    caller: &Caller,
    id: &str,
    kind: Kind,
) -> Result<Session, ApiError> {
    let s = state
        .store
        .read(|tx| super::get(tx, id))?
        .ok_or(ApiError::NotFound)?;
    if s.kind != kind || s.account != caller.account.id || s.mode != caller.mode() {
        return Err(ApiError::NotFound);
    }
    Ok(s)
}

/// A page of the caller's runs of `kind`, newest first, with one more than
/// the page holds (which only says whether more follow); `starting_after`
/// must name a run of that kind of the caller's.
pub(crate) async fn list_of(
    state: &AppState,
    caller: &Caller,
    page: &crate::http::Page,
    kind: Kind,
) -> Result<Vec<Session>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    let after = match &page.starting_after {
        Some(id) => Some(owned(state, caller, id, kind).map_err(|_| {
            let what = match kind {
                Kind::Session => "a session",
                Kind::Extraction => "an extraction",
            };
            ApiError::invalid(
                "starting_after",
                format!("starting_after must be {what} id of this account"),
            )
        })?),
        None => None,
    };
    let (acct, mode, limit) = (caller.account.id.clone(), caller.mode(), page.limit + 1);
    Ok(state
        .store
        .read_async(move |tx| super::list(tx, kind, &acct, mode, after.as_ref(), limit))
        .await?)
}

/// An event seq as clients send it back: a non-negative 64-bit signed
/// integer, as the OpenAPI document states it.
pub(crate) fn parse_seq(text: &str) -> Option<u64> {
    text.parse::<i64>().ok().and_then(|n| u64::try_from(n).ok())
}

/// Wait until the session is no longer running, at most `wait`.
pub(crate) async fn wait_until_done(
    state: &AppState,
    id: &str,
    wait: Duration,
) -> Result<Session, ApiError> {
    let mut bus = state.bus.subscribe();
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        bus.borrow_and_update();
        let s = state
            .store
            .read(|tx| super::get(tx, id))?
            .ok_or(ApiError::NotFound)?;
        if !s.is_running() {
            return Ok(s);
        }
        if tokio::time::timeout_at(deadline, bus.changed())
            .await
            .is_err()
        {
            return Ok(s);
        }
    }
}
