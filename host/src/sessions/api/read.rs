//! Reading a session: the list, the session, its event log and stream, its
//! result, rows and receipts.

use super::{own, parse_seq, wait_until_done};
use crate::auth::Caller;
use crate::http::{ApiError, Page, Query};
use crate::sessions::events::{self, Event};
use crate::sessions::{Kind, Session};
use crate::state::AppState;
use crate::wire::KeyScope;
use crate::wire::{self, Usd};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures::Stream;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

/// The sessions of the caller's account and mode, newest first.
#[utoipa::path(get, path = "/sessions", operation_id = "listSessions", tag = "sessions",
    description = "Scope: sessions:read.",
    params(wire::PageParams),
    responses((status = 200, description = "A page of sessions", body = wire::SessionList)))]
pub(super) async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::SessionList>, ApiError> {
    let page = Page::from_query(&q)?;
    let sessions = super::list_of(&state, &caller, &page, Kind::Session).await?;
    let public_url = state.config.public_url();
    Ok(Json(wire::SessionList::cut(
        page.limit,
        sessions.iter().map(|s| s.to_wire(&public_url)).collect(),
    )))
}

/// One session.
#[utoipa::path(get, path = "/sessions/{id}", operation_id = "getSession", tag = "sessions",
    description = "Scope: sessions:read.",
    params(wire::SessionId),
    responses((status = 200, description = "The session", body = wire::Session)))]
pub(super) async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::Session>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    Ok(Json(
        own(&state, &caller, &id)?.to_wire(&state.config.public_url()),
    ))
}

/// A page of the session's event log.
#[utoipa::path(get, path = "/sessions/{id}/events", operation_id = "listSessionEvents", tag = "sessions",
    description = "Scope: sessions:read.",
    params(wire::SessionId, wire::EventsParams),
    responses((status = 200, description = "A page of events", body = wire::SessionEventList)))]
pub(super) async fn events_page(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<wire::EventsParams>,
) -> Result<Json<wire::SessionEventList>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    own(&state, &caller, &id)?;
    event_page(&state, id, &q).await.map(Json)
}

/// A page of a run's event log (a session's or an extraction's), after
/// the seq `after`.
pub(crate) async fn event_page(
    state: &AppState,
    id: String,
    q: &wire::EventsParams,
) -> Result<wire::SessionEventList, ApiError> {
    let after = match &q.after {
        None => 0,
        Some(s) => parse_seq(s).ok_or_else(|| {
            ApiError::invalid("after", "after must be an event seq (an integer from 0)")
        })?,
    };
    let page = Page::from_query(&wire::PageParams {
        limit: q.limit.clone(),
        starting_after: None,
    })?;
    let limit = page.limit;
    let mut list = state
        .store
        .read_async(move |tx| events::after(tx, &id, after, limit + 1))
        .await?;
    let has_more = list.len() > limit;
    list.truncate(limit);
    let next = list.last().map(|e| e.seq).unwrap_or(after);
    Ok(wire::SessionEventList {
        object: "list",
        data: list,
        has_more,
        next_after: next,
    })
}

/// The run's events as server-sent events, from after `after`, ending
/// after the terminal event of the session's current turn.
pub(crate) fn sse(
    state: AppState,
    session_id: String,
    after: u64,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    follow(state, session_id, after, false)
}

/// The run's events from its first, ending after the first turn's terminal
/// event: the stream a create answered with.
pub(crate) fn sse_first_turn(
    state: AppState,
    session_id: String,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    follow(state, session_id, 0, true)
}

fn follow(
    state: AppState,
    session_id: String,
    after: u64,
    first_turn: bool,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let follow = Follow {
        bus: state.bus.subscribe(),
        state,
        id: session_id,
        after,
        buffered: VecDeque::new(),
        done: false,
        first_turn,
    };
    let stream = futures::stream::unfold(follow, |mut follow| async move {
        let event = follow.next().await?;
        Some((Ok(event), follow))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

/// A reader following one run's event log: what it has read up to, the
/// entries read but not yet sent, and the bus that wakes it on commits.
struct Follow {
    state: AppState,
    id: String,
    /// The seq of the last entry sent.
    after: u64,
    bus: tokio::sync::watch::Receiver<u64>,
    buffered: VecDeque<Event>,
    /// The terminal entry of the current turn was sent.
    done: bool,
    /// End at the first terminal entry, whatever turns came after it.
    first_turn: bool,
}

impl Follow {
    /// The next entry as a server-sent event; `None` once the turn has
    /// ended and everything was sent.
    async fn next(&mut self) -> Option<SseEvent> {
        if self.done {
            return None;
        }
        loop {
            if let Some(e) = self.buffered.pop_front() {
                self.after = e.seq;
                self.done = e.is_terminal() && (self.first_turn || self.ended_by(e.seq));
                return Some(
                    SseEvent::default()
                        .id(e.seq.to_string())
                        .event(e.phase.clone())
                        .data(serde_json::to_string(&e).unwrap_or_default()),
                );
            }
            self.bus.borrow_and_update();
            let (id, after) = (self.id.clone(), self.after);
            let fresh = self
                .state
                .store
                .read(|tx| events::after(tx, &id, after, 100))
                .unwrap_or_default();
            if !fresh.is_empty() {
                self.buffered = fresh.into();
                continue;
            }
            if self.ended_by(self.after) || self.bus.changed().await.is_err() {
                return None;
            }
        }
    }

    /// Has the session (gone, or) stopped running with nothing logged
    /// after `seq`?
    fn ended_by(&self, seq: u64) -> bool {
        let s = self
            .state
            .store
            .read(|tx| crate::sessions::get(tx, &self.id))
            .ok()
            .flatten();
        s.is_none_or(|s| !s.is_running() && s.last_seq <= seq)
    }
}

/// The run's events as server-sent events.
#[utoipa::path(get, path = "/sessions/{id}/stream", operation_id = "streamSession", tag = "sessions",
    description = "Scope: sessions:read. `id:` is the event's seq, `event:` its phase, `data:` the entry (a SessionEvent). The stream ends after the terminal event of the current turn.",
    params(wire::SessionId, wire::StreamHeaders),
    responses((status = 200, description = "The event stream", content_type = "text/event-stream", body = wire::SseEvent)))]
pub(super) async fn stream(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    own(&state, &caller, &id)?;
    let after = match headers.get("last-event-id").and_then(|v| v.to_str().ok()) {
        None => 0,
        Some(v) => parse_seq(v.trim()).ok_or_else(|| {
            ApiError::invalid("Last-Event-ID", "Last-Event-ID must be an event seq")
        })?,
    };
    Ok(sse(state, id, after).into_response())
}

/// Long-poll for the result.
#[utoipa::path(get, path = "/sessions/{id}/result", operation_id = "getSessionResult", tag = "sessions",
    description = "Scope: sessions:read. Once the run has ended: 200 with the result. Still running after `wait` seconds: 202 with the session.",
    params(wire::SessionId, wire::ResultParams),
    responses(
        (status = 200, description = "The result; with format=ndjson one row per line, then the summary line", content(
            (wire::SessionResult = "application/json"),
            (String = "application/x-ndjson"),
        )),
        (status = 202, description = "Still running: the session", body = wire::Session),
    ))]
pub(super) async fn result(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<wire::ResultParams>,
) -> Result<Response, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    own(&state, &caller, &id)?;
    let public_url = state.config.public_url();
    long_poll(
        &state,
        &id,
        &q,
        |s| s.to_wire(&public_url),
        |s, read| wire::SessionResult {
            object: "result",
            session_id: s.id.clone(),
            status: s.status.as_str(),
            stop: s.stop,
            qualified: s.qualified,
            records: s.records,
            spend_usd: Usd(s.settled),
            receipts: read.receipts,
            rows: read.rows,
            unchecked: read.unchecked,
            sources: read.pages,
            completeness: s.completeness.clone(),
        },
    )
    .await
}

/// What a run read, for its result.
pub(crate) struct ReadOut {
    /// Checked rows, then the unchecked ones.
    pub rows: Vec<wire::Row>,
    pub unchecked: Vec<wire::Row>,
    pub receipts: Vec<String>,
    /// Every page the run wanted, with its outcome.
    pub pages: Vec<wire::PageSeen>,
}

/// The long-poll of a run's result (a session's or an extraction's): waits
/// up to `wait` seconds for the run to end; still running, 202 with the run
/// as `running` shows it; ended, 200 with `result` of its rows (checked,
/// then unchecked), receipt ids and pages, as JSON or as ndjson.
pub(crate) async fn long_poll<Running: serde::Serialize, Ended: serde::Serialize>(
    state: &AppState,
    id: &str,
    q: &wire::ResultParams,
    running: impl FnOnce(&Session) -> Running,
    result: impl FnOnce(&Session, ReadOut) -> Ended,
) -> Result<Response, ApiError> {
    let (wait, as_ndjson) = q.parse()?;
    let s = wait_until_done(state, id, wait).await?;
    if s.is_running() {
        return Ok((StatusCode::ACCEPTED, Json(running(&s))).into_response());
    }
    let (rows, unchecked) = split_rows(all_rows(state, id)?);
    let read = ReadOut {
        rows,
        unchecked,
        receipts: receipt_ids(state, id)?,
        pages: pages_seen(state, id)?,
    };
    let result = result(&s, read);
    if as_ndjson {
        return ndjson(&result);
    }
    Ok(Json(result).into_response())
}

/// The session's rows, in the order they were first seen.
#[utoipa::path(get, path = "/sessions/{id}/rows", operation_id = "listSessionRows", tag = "sessions",
    description = "Scope: sessions:read. Row ids are `row_<n>`.",
    params(wire::SessionId, wire::PageParams),
    responses((status = 200, description = "A page of rows", body = wire::RowList)))]
pub(super) async fn rows(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::RowList>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    own(&state, &caller, &id)?;
    let page = Page::from_query(&q)?;
    let after = match &page.starting_after {
        None => 0,
        Some(r) => {
            let n = r
                .strip_prefix("row_")
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| {
                    ApiError::invalid("starting_after", "starting_after must be a row id")
                })?;
            n
        }
    };
    let limit = page.limit + 1;
    let rows = state
        .store
        .read(|tx| crate::sessions::rows(tx, &id, after, limit))?;
    Ok(Json(wire::RowList::cut(page.limit, rows)))
}

/// The session's signed receipts.
#[utoipa::path(get, path = "/sessions/{id}/receipts", operation_id = "listSessionReceipts", tag = "sessions",
    description = "Scope: sessions:read. Verify one with the key of GET /signing-keys whose id is signature.key_id.",
    params(wire::SessionId, wire::PageParams),
    responses((status = 200, description = "A page of receipts", body = wire::ReceiptList)))]
pub(super) async fn receipts(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::ReceiptList>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    own(&state, &caller, &id)?;
    let page = Page::from_query(&q)?;
    let ids = receipt_ids(&state, &id)?;
    let list = state.store.read(|tx| crate::receipts::get_many(tx, &ids))?;
    let list = page.slice(list, |r| r["id"].as_str().unwrap_or_default())?;
    Ok(Json(wire::ReceiptList::cut(page.limit, list)))
}

fn all_rows(state: &AppState, id: &str) -> Result<Vec<crate::wire::Row>, ApiError> {
    Ok(state
        .store
        .read(|tx| crate::sessions::rows(tx, id, 0, usize::MAX))?)
}

/// A run's result rows: the checked ones, then the unchecked.
fn split_rows(rows: Vec<crate::wire::Row>) -> (Vec<crate::wire::Row>, Vec<crate::wire::Row>) {
    rows.into_iter().partition(|r| r.unchecked.is_none())
}

/// The ndjson form of a result: each row on a line, then the summary
/// (the result without its rows).
fn ndjson(result: &impl serde::Serialize) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let mut summary = serde_json::to_value(result).map_err(|e| ApiError::Internal(e.into()))?;
    let mut out = String::new();
    for part in ["rows", "unchecked"] {
        if let Some(serde_json::Value::Array(rows)) =
            summary.as_object_mut().and_then(|m| m.remove(part))
        {
            for r in rows {
                out.push_str(&r.to_string());
                out.push('\n');
            }
        }
    }
    out.push_str(&summary.to_string());
    out.push('\n');
    Ok((
        [(axum::http::header::CONTENT_TYPE, "application/x-ndjson")],
        out,
    )
        .into_response())
}

/// The pages a run wanted, from its page events (each names its outcome).
fn pages_seen(state: &AppState, id: &str) -> Result<Vec<wire::PageSeen>, ApiError> {
    const PAGE_PHASES: [&str; 5] = [
        "source",
        "page",
        "skipped",
        "fetch_failed",
        "extract_failed",
    ];
    let events = state
        .store
        .read(|tx| crate::sessions::events::after(tx, id, 0, usize::MAX))?;
    let mut turn = 1;
    let mut pages = Vec::new();
    for e in events {
        if e.phase == "started" {
            turn = e.data["turn"].as_u64().map_or(turn, |t| t as u32);
        }
        let (Some(url), Some(outcome)) = (e.data["url"].as_str(), e.data["outcome"].as_str())
        else {
            continue;
        };
        if !PAGE_PHASES.contains(&e.phase.as_str()) {
            continue;
        }
        pages.push(wire::PageSeen {
            url: url.to_string(),
            outcome: outcome.to_string(),
            turn,
            records: e.data["records"].as_u64().unwrap_or(0),
            receipt_id: e.data["receipt_id"].as_str().map(str::to_string),
            reason: e.data["reason"].as_str().map(str::to_string),
        });
    }
    Ok(pages)
}

fn receipt_ids(state: &AppState, id: &str) -> Result<Vec<String>, ApiError> {
    let ids = state
        .store
        .read(|tx| crate::sessions::receipt_ids(tx, id))?;
    Ok(ids)
}
