//! The session routes. Scopes: sessions:write to estimate, create, add a
//! turn or stop; sessions:read for everything else.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use futures::Stream;
use serde::Deserialize;
use serde_json::{json, Value};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::events::{self, Event};
use super::{run, Kind, Session, Status};
use crate::accounts::Mode;
use crate::auth::Caller;
use crate::http::middleware::RequestId;
use crate::http::pagination::PageQuery;
use crate::http::{ApiError, Body, Page, Query};
use crate::idempotency;
use crate::ledger::{self, LedgerError};
use crate::money::Micros;
use crate::openapi::schemas;
use crate::state::AppState;
use crate::store::{self, Tables, PROPOSALS, RECEIPTS, ROWS, SESSION_RECEIPTS};

/// Guidance is data; this much of it at most (SPEC §8).
pub const MAX_GUIDANCE_CHARS: usize = 2000;
/// The longest query accepted.
pub const MAX_QUERY_CHARS: usize = 2000;
/// The longest a result may be waited for (SPEC §8).
pub const MAX_WAIT_S: u64 = 600;
/// How long a turn proposal stays valid.
pub const PROPOSAL_TTL_MIN: i64 = 15;

/// The session routes; `redaction` opens `DELETE /sessions/{id}` and
/// `refresh` opens `POST /sessions/{id}/refresh` (the preview switches of
/// those names); closed, they answer 501.
pub fn routes(redaction: bool, refresh: bool) -> OpenApiRouter<AppState> {
    let router = OpenApiRouter::new()
        .routes(routes!(estimate))
        .routes(routes!(create, list))
        .routes(routes!(read));
    let router = if redaction {
        router.routes(routes!(redact))
    } else {
        let surface =
            crate::planned::partial("/sessions/{id}", "DELETE").expect("redaction is planned");
        router.route(
            "/sessions/{id}",
            crate::planned::method_handler("DELETE", surface),
        )
    };
    let router = router
        .routes(routes!(events_page))
        .routes(routes!(stream))
        .routes(routes!(result))
        .routes(routes!(rows))
        .routes(routes!(receipts))
        .routes(routes!(turn))
        .routes(routes!(stop));
    if refresh {
        router.routes(routes!(self::refresh))
    } else {
        router
    }
}

/// The planner's reading of a query, with the host's judgement added: test
/// sentinels, and a search provider that can supply missing sources.
async fn plan(
    state: &AppState,
    mode: Mode,
    query: &str,
) -> Result<Option<crate::plugins::Estimate>, ApiError> {
    let mut estimate = match state.plugins.estimate(query).await {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!(error = %e, "the planner failed");
            return Ok(None);
        }
    };
    match super::testmode::sentinel(mode, query) {
        Some(super::testmode::Sentinel::Decline) => {
            estimate.would_run = false;
            estimate.reason = "a test sentinel (FN_TEST_DECLINE) declines this query".into();
        }
        Some(_) => {
            // The other sentinels decide the run, not the parse.
            estimate.would_run = true;
            estimate.missing.clear();
        }
        None => {
            let only_source_missing =
                estimate.missing.iter().all(|m| m == "source") && !estimate.missing.is_empty();
            if !estimate.would_run
                && only_source_missing
                && state.config.search_provider_url.is_some()
                && mode == Mode::Live
            {
                estimate.would_run = true;
                estimate.missing.clear();
                estimate.reason =
                    "no source named; the configured search provider will look for them".into();
            }
        }
    }
    Ok(Some(estimate))
}

/// Products a listing page is expected to show, for estimates.
const EXPECTED_ROWS_PER_LISTING: u64 = 24;

/// Pages a turn expects to read and what that costs. A run reads a catalog
/// through its listings: per source, its entry page and first listing, then
/// one listing page per `EXPECTED_ROWS_PER_LISTING` rows asked for (three
/// listing pages when no count is asked), each row billed once.
fn price(state: &AppState, parsed: &Value, would_run: bool, cap: Micros) -> (u32, Micros) {
    if !would_run {
        return (0, Micros::ZERO);
    }
    let sources = parsed["sources"]
        .as_array()
        .map(|a| a.len())
        .unwrap_or(1)
        .max(1) as u64;
    let (listings, rows) = match parsed["constraints"]["count"].as_u64() {
        Some(n) => (n.div_ceil(EXPECTED_ROWS_PER_LISTING).max(1), n),
        None => (3 * sources, 3 * sources * EXPECTED_ROWS_PER_LISTING),
    };
    let pages = (2 * sources + listings).min(u64::from(state.config.fetch.max_pages_per_turn));
    let cost =
        state.config.per_fetch().0 * pages as i64 + state.config.per_record().0 * rows as i64;
    (pages as u32, Micros(cost).min(cap))
}

/// Free, always callable: what the planner makes of a query, and whether
/// spending on it could honestly deliver.
#[utoipa::path(post, path = "/sessions/estimate", operation_id = "estimateSession", tag = "sessions",
    description = "Scope: sessions:write. $0. The same parse as session creation.",
    request_body(content = schemas::EstimateRequest,
        example = json!({ "query": "tents under $200 from outdoor-gear.example" })),
    responses((status = 200, description = "The estimate", body = schemas::Estimate)))]
async fn estimate(
    State(state): State<AppState>,
    caller: Caller,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    caller.require("sessions:write")?;
    let query = body.required_str("query")?;
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(ApiError::invalid(
            "query",
            format!("query must be at most {MAX_QUERY_CHARS} characters"),
        ));
    }
    let e = plan(&state, caller.mode(), &query)
        .await?
        .ok_or(ApiError::EngineUnavailable)?;
    let (passes, cost) = price(
        &state,
        &e.parsed,
        e.would_run,
        state.config.default_max_spend(),
    );
    Ok(Json(json!({
        "object": "estimate",
        "livemode": caller.mode().livemode(),
        "would_run": e.would_run,
        "parsed": e.parsed,
        "missing": e.missing,
        "reason": e.reason,
        "estimated_usd": cost.to_json(),
        "passes": passes,
    })))
}

/// Check the caps and reserve; refusals carry their context.
pub(crate) fn check_caps(
    tx: &redb::WriteTransaction,
    caller: &Caller,
    amount: Micros,
) -> Result<(), ApiError> {
    if let Some(cap) = caller.key.session_cap {
        if amount > cap {
            return Err(ApiError::SessionCapExceeded {
                cap,
                requested: amount,
            });
        }
    }
    if let Some(cap) = caller.account.monthly_cap {
        let spent = ledger::spent_this_month(tx, &caller.account.id, caller.mode())?;
        let open = ledger::balance(tx, &caller.account.id, caller.mode())?.open_reserves;
        if spent + open + amount > cap {
            return Err(ApiError::MonthlyCapExceeded { cap, spent });
        }
    }
    Ok(())
}

pub(crate) fn reserve(
    tx: &redb::WriteTransaction,
    state: &AppState,
    caller: &Caller,
    amount: Micros,
    purpose: &str,
) -> Result<ledger::Reservation, ApiError> {
    let before = ledger::balance(tx, &caller.account.id, caller.mode())?;
    let r = ledger::reserve(tx, &caller.account.id, caller.mode(), amount, purpose).map_err(
        |e| match e {
            LedgerError::Insufficient(b) => ApiError::InsufficientCredit {
                balance: b.balance,
                open_reserves: b.open_reserves,
                top_up_url: format!("{}/dashboard", state.config.public_url()),
            },
            other => ApiError::internal(anyhow::anyhow!("{other}")),
        },
    )?;
    let after = ledger::balance(tx, &caller.account.id, caller.mode())?;
    crate::webhooks::balance_changed(tx, &caller.account.id, caller.mode(), &before, &after)?;
    Ok(r)
}

/// Starts a session: reserves max_spend_usd and runs the query.
#[utoipa::path(post, path = "/sessions", operation_id = "createSession", tag = "sessions",
    description = "Scope: sessions:write. A query the service declines still gets 201; the run then ends abstained at $0 with the reservation released in full. With `Accept: text/event-stream` the 201 body is the run's event stream.",
    params(schemas::IdempotencyHeader),
    request_body(content = schemas::SessionCreate,
        example = json!({ "query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 0.5 })),
    responses(
        (status = 201, description = "A running session holding its reservation", content(
            (schemas::Session = "application/json"),
            (schemas::SseEvent = "text/event-stream"),
        )),
    ))]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Extension(RequestId(request_id)): Extension<RequestId>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let idem = match idempotency::begin(
        &state,
        &caller,
        "sessions:write",
        &headers,
        &request_id,
        "POST /v1/sessions",
        &body,
    )
    .await
    {
        Ok(idem) => idem,
        Err(answer) => return answer,
    };
    let wants_stream = headers
        .get("accept")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"));
    let result = create_session(&state, &caller, &body, idem.as_ref()).await;
    match result {
        Ok(session) if wants_stream => {
            let _ = idempotency::respond(
                &state,
                idem,
                Ok((
                    StatusCode::CREATED,
                    session.to_json(&state.config.public_url()),
                )),
            )
            .await;
            (StatusCode::CREATED, sse(state, session.id, 0)).into_response()
        }
        Ok(session) => {
            idempotency::respond(
                &state,
                idem,
                Ok((
                    StatusCode::CREATED,
                    session.to_json(&state.config.public_url()),
                )),
            )
            .await
        }
        Err(e) => idempotency::respond(&state, idem, Err(e)).await,
    }
}

async fn create_session(
    state: &AppState,
    caller: &Caller,
    body: &Body,
    idem: Option<&idempotency::Idem>,
) -> Result<Session, ApiError> {
    let query = body.required_str("query")?;
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(ApiError::invalid(
            "query",
            format!("query must be at most {MAX_QUERY_CHARS} characters"),
        ));
    }
    body.only(&[
        "query",
        "max_spend_usd",
        "guidance",
        "webhook_url",
        "metadata",
    ])?;
    let max_spend = body
        .optional_usd("max_spend_usd")?
        .unwrap_or_else(|| state.config.default_max_spend());
    let guidance = body.optional_str("guidance", MAX_GUIDANCE_CHARS)?;
    let metadata = body.optional_metadata("metadata")?;
    let webhook_url = body.optional_str("webhook_url", 2048)?;
    if let Some(w) = &webhook_url {
        crate::webhooks::check_target(state, w)
            .await
            .map_err(|e| ApiError::invalid("webhook_url", e.to_string()))?;
    }
    let spec = NewSession {
        id: crate::ids::new_id("ses"),
        query,
        max_spend,
        guidance,
        metadata,
        webhook_url,
    };
    open_session(state, caller, spec, idem).await
}

/// What a new session is asked for (its body, parsed and checked).
pub(crate) struct NewSession {
    pub id: String,
    pub query: String,
    pub max_spend: Micros,
    pub guidance: Option<String>,
    pub metadata: Option<serde_json::Map<String, Value>>,
    pub webhook_url: Option<String>,
}

/// Plans, reserves, stores and starts a session: the caps, the
/// reservation, the session, its first events and the idempotent answer
/// commit together, then the run is spawned (or the session ends at once
/// when the planner declines it).
pub(crate) async fn open_session(
    state: &AppState,
    caller: &Caller,
    spec: NewSession,
    idem: Option<&idempotency::Idem>,
) -> Result<Session, ApiError> {
    let NewSession {
        id,
        query,
        max_spend,
        guidance,
        metadata,
        webhook_url,
    } = spec;
    let slot = state.run_slots.acquire(caller.scope_key())?;
    let estimate = plan(state, caller.mode(), &query).await?;
    let now = crate::time::now();
    let mut session = Session {
        id,
        kind: Kind::Session,
        url: None,
        entity: None,
        receipt_id: None,
        claim: None,
        redacted: false,
        refresh_of: None,
        served_from: None,
        diff: None,
        diff_base: None,
        account: caller.account.id.clone(),
        mode: caller.mode(),
        key_id: caller.key.id.clone(),
        status: Status::Running,
        stop: None,
        error: None,
        reason: None,
        turn: 1,
        query: query.clone(),
        guidance,
        metadata,
        webhook_url,
        parsed: estimate
            .as_ref()
            .map(|e| e.parsed.clone())
            .unwrap_or(Value::Null),
        max_spend,
        reservation: String::new(),
        turn_receipts: Vec::new(),
        settled: Micros::ZERO,
        released: Micros::ZERO,
        records: 0,
        qualified: 0,
        unchecked: 0,
        sources: 0,
        receipts_signed: 0,
        row_count: 0,
        last_seq: 0,
        created_at: now.clone(),
        updated_at: now,
        ended_at: None,
    };
    let public_url = state.config.public_url();
    let caller = caller.clone();
    let st = state.clone();
    let idem = idem.cloned();
    let planned = estimate.clone();
    // Claimed before the commit: from then on the session is never running
    // without a claim the watchdog can see.
    let claim = state.runs.claim(&session.id);
    // The reservation, the session, its first events and the idempotent
    // response commit together.
    let session = state
        .store
        .write_async(move |tx| -> Result<Session, ApiError> {
            check_caps(tx, &caller, max_spend)?;
            let r = reserve(tx, &st, &caller, max_spend, &session.id)?;
            session.reservation = r.id;
            events::append(tx, &mut session, "started", json!({ "turn": 1, "query": query, "reserved_usd": max_spend.to_json() }))?;
            if let Some(e) = &planned {
                events::append(tx, &mut session, "parsed", json!({ "would_run": e.would_run, "parsed": e.parsed, "missing": e.missing, "reason": e.reason }))?;
            }
            super::put(tx, &session)?;
            if let Some(idem) = &idem {
                idem.complete_in(tx, StatusCode::CREATED, &session.to_json(&public_url))?;
            }
            Ok(session)
        })
        .await?;
    state.bus.publish();
    let session = match estimate {
        Some(e) if e.would_run => {
            run::spawn(
                state.clone(),
                session.clone(),
                std::sync::Arc::new(slot),
                claim,
            );
            session
        }
        Some(e) => {
            // Declined by the parse: abstain at once, release in full, fetch nothing.
            run::finish(
                state,
                &session.id,
                run::Outcome::Abstained {
                    reason: e.reason.clone(),
                },
            )
            .await?;
            drop(slot);
            session
        }
        None => {
            run::finish(
                state,
                &session.id,
                run::Outcome::Error {
                    code: "parse_failed",
                    message: "the planner could not read the query".into(),
                },
            )
            .await?;
            drop(slot);
            session
        }
    };
    Ok(session)
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

/// The sessions of the caller's account and mode, newest first.
#[utoipa::path(get, path = "/sessions", operation_id = "listSessions", tag = "sessions",
    description = "Scope: sessions:read.",
    params(schemas::PageParams),
    responses((status = 200, description = "A page of sessions", body = schemas::SessionList)))]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    caller.require("sessions:read")?;
    let page = Page::from_query(&q)?;
    let after = match &page.starting_after {
        Some(id) => Some(own(&state, &caller, id).map_err(|_| {
            ApiError::invalid(
                "starting_after",
                "starting_after must be a session id of this account",
            )
        })?),
        None => None,
    };
    let (acct, mode, limit) = (caller.account.id.clone(), caller.mode(), page.limit + 1);
    let sessions = state
        .store
        .read_async(move |tx| super::list(tx, Kind::Session, &acct, mode, after.as_ref(), limit))
        .await?;
    let public_url = state.config.public_url();
    Ok(Json(page.answer(
        sessions.iter().map(|s| s.to_json(&public_url)).collect(),
    )))
}

/// One session.
#[utoipa::path(get, path = "/sessions/{id}", operation_id = "getSession", tag = "sessions",
    description = "Scope: sessions:read.",
    params(schemas::SessionId),
    responses((status = 200, description = "The session", body = schemas::Session)))]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    caller.require("sessions:read")?;
    Ok(Json(
        own(&state, &caller, &id)?.to_json(&state.config.public_url()),
    ))
}

#[derive(Deserialize)]
struct EventsQuery {
    after: Option<String>,
    limit: Option<String>,
}

/// A page of the session's event log.
#[utoipa::path(get, path = "/sessions/{id}/events", operation_id = "listSessionEvents", tag = "sessions",
    description = "Scope: sessions:read.",
    params(schemas::SessionId, schemas::EventsParams),
    responses((status = 200, description = "A page of events", body = schemas::SessionEventList)))]
async fn events_page(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<EventsQuery>,
) -> Result<Json<Value>, ApiError> {
    caller.require("sessions:read")?;
    own(&state, &caller, &id)?;
    let after = match &q.after {
        None => 0,
        Some(s) => parse_seq(s).ok_or_else(|| {
            ApiError::invalid("after", "after must be an event seq (an integer from 0)")
        })?,
    };
    let page = Page::from_query(&PageQuery {
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
    Ok(Json(
        json!({ "object": "list", "data": list, "has_more": has_more, "next_after": next }),
    ))
}

/// An event seq as clients send it back: a non-negative 64-bit signed
/// integer, as the OpenAPI document states it.
pub(crate) fn parse_seq(text: &str) -> Option<u64> {
    text.parse::<i64>().ok().and_then(|n| u64::try_from(n).ok())
}

/// The run's events as server-sent events, from after `after`, ending
/// after the terminal event of the session's current turn.
pub(crate) fn sse(
    state: AppState,
    session_id: String,
    after: u64,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let bus = state.bus.subscribe();
    let stream = futures::stream::unfold(
        (state, session_id, after, bus, Vec::<Event>::new(), false),
        |(state, id, mut after, mut bus, mut buffered, done)| async move {
            if done {
                return None;
            }
            loop {
                if let Some(e) = (!buffered.is_empty()).then(|| buffered.remove(0)) {
                    after = e.seq;
                    let end = e.is_terminal() && {
                        let s = state.store.read(|tx| super::get(tx, &id)).ok().flatten();
                        s.is_none_or(|s| !s.is_running() && s.last_seq <= e.seq)
                    };
                    let out = SseEvent::default()
                        .id(e.seq.to_string())
                        .event(e.phase.clone())
                        .data(serde_json::to_string(&e).unwrap_or_default());
                    return Some((Ok(out), (state, id, after, bus, buffered, end)));
                }
                bus.borrow_and_update();
                let (sid, a) = (id.clone(), after);
                let fresh = state
                    .store
                    .read(|tx| events::after(tx, &sid, a, 100))
                    .unwrap_or_default();
                if !fresh.is_empty() {
                    buffered = fresh;
                    continue;
                }
                let s = state.store.read(|tx| super::get(tx, &id)).ok().flatten();
                if s.as_ref()
                    .is_none_or(|s| !s.is_running() && s.last_seq <= after)
                {
                    return None;
                }
                if bus.changed().await.is_err() {
                    return None;
                }
            }
        },
    );
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

/// The run's events as server-sent events.
#[utoipa::path(get, path = "/sessions/{id}/stream", operation_id = "streamSession", tag = "sessions",
    description = "Scope: sessions:read. `id:` is the event's seq, `event:` its phase, `data:` the entry (a SessionEvent). The stream ends after the terminal event of the current turn.",
    params(schemas::SessionId, schemas::StreamHeaders),
    responses((status = 200, description = "The event stream", content_type = "text/event-stream", body = schemas::SseEvent)))]
async fn stream(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    caller.require("sessions:read")?;
    own(&state, &caller, &id)?;
    let after = match headers.get("last-event-id").and_then(|v| v.to_str().ok()) {
        None => 0,
        Some(v) => parse_seq(v.trim()).ok_or_else(|| {
            ApiError::invalid("Last-Event-ID", "Last-Event-ID must be an event seq")
        })?,
    };
    Ok(sse(state, id, after).into_response())
}

#[derive(Deserialize)]
struct ResultQuery {
    wait: Option<String>,
    format: Option<String>,
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

pub(crate) fn all_rows(state: &AppState, id: &str) -> Result<Vec<Value>, ApiError> {
    let rows: Vec<(String, Value)> = state
        .store
        .read(|tx| tx.scan_json(ROWS, &format!("{id}:"), None, usize::MAX, false))?;
    Ok(rows.into_iter().map(|(k, v)| with_row_id(&k, v)).collect())
}

fn with_row_id(key: &str, mut row: Value) -> Value {
    let n = key
        .rsplit(':')
        .next()
        .unwrap_or("0")
        .trim_start_matches('0');
    row["id"] = json!(format!("row_{}", if n.is_empty() { "0" } else { n }));
    row
}

pub(crate) fn receipt_ids(state: &AppState, id: &str) -> Result<Vec<String>, ApiError> {
    let ids = state.store.read(|tx| -> anyhow::Result<Vec<String>> {
        let t = tx.open_table(SESSION_RECEIPTS)?;
        let prefix = format!("{id}:");
        let end = format!("{prefix}\u{10FFFF}");
        let mut out = Vec::new();
        for row in t.range(prefix.as_str()..end.as_str())? {
            out.push(row?.1.value().to_string());
        }
        Ok(out)
    })?;
    Ok(ids)
}

/// Long-poll for the result.
#[utoipa::path(get, path = "/sessions/{id}/result", operation_id = "getSessionResult", tag = "sessions",
    description = "Scope: sessions:read. Once the run has ended: 200 with the result. Still running after `wait` seconds: 202 with the session.",
    params(schemas::SessionId, schemas::ResultParams),
    responses(
        (status = 200, description = "The result; with format=ndjson one row per line, then the summary line", content(
            (schemas::SessionResult = "application/json"),
            (String = "application/x-ndjson"),
        )),
        (status = 202, description = "Still running: the session", body = schemas::Session),
    ))]
async fn result(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<ResultQuery>,
) -> Result<Response, ApiError> {
    caller.require("sessions:read")?;
    own(&state, &caller, &id)?;
    let wait = match &q.wait {
        None => 0,
        Some(w) => match w.parse::<u64>() {
            Ok(n) if n <= MAX_WAIT_S => n,
            _ => {
                return Err(ApiError::invalid(
                    "wait",
                    format!("wait must be an integer from 0 to {MAX_WAIT_S} (seconds)"),
                ))
            }
        },
    };
    let ndjson = match q.format.as_deref() {
        None | Some("json") => false,
        Some("ndjson") => true,
        Some(_) => return Err(ApiError::invalid("format", "format must be json or ndjson")),
    };
    let s = wait_until_done(&state, &id, Duration::from_secs(wait)).await?;
    if s.is_running() {
        return Ok((
            StatusCode::ACCEPTED,
            Json(s.to_json(&state.config.public_url())),
        )
            .into_response());
    }
    let rows = all_rows(&state, &id)?;
    let (unchecked, checked): (Vec<Value>, Vec<Value>) =
        rows.into_iter().partition(|r| r.get("unchecked").is_some());
    let receipts = receipt_ids(&state, &id)?;
    let summary = json!({
        "object": "result",
        "session_id": s.id,
        "status": s.status.as_str(),
        "stop": s.stop,
        "qualified": s.qualified,
        "records": s.records,
        "spend_usd": s.settled.to_json(),
        "receipts": receipts,
    });
    if ndjson {
        let mut out = String::new();
        for r in checked.iter().chain(unchecked.iter()) {
            out.push_str(&r.to_string());
            out.push('\n');
        }
        out.push_str(&summary.to_string());
        out.push('\n');
        return Ok((
            [(axum::http::header::CONTENT_TYPE, "application/x-ndjson")],
            out,
        )
            .into_response());
    }
    let mut body = summary;
    body["rows"] = json!(checked);
    body["unchecked"] = json!(unchecked);
    Ok(Json(body).into_response())
}

/// The session's rows, in the order they were first seen.
#[utoipa::path(get, path = "/sessions/{id}/rows", operation_id = "listSessionRows", tag = "sessions",
    description = "Scope: sessions:read. Row ids are `row_<n>`.",
    params(schemas::SessionId, schemas::PageParams),
    responses((status = 200, description = "A page of rows", body = schemas::RowList)))]
async fn rows(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    caller.require("sessions:read")?;
    own(&state, &caller, &id)?;
    let page = Page::from_query(&q)?;
    let after = match &page.starting_after {
        None => None,
        Some(r) => {
            let n = r
                .strip_prefix("row_")
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| {
                    ApiError::invalid("starting_after", "starting_after must be a row id")
                })?;
            Some(format!("{id}:{}", store::pad(n)))
        }
    };
    let limit = page.limit + 1;
    let rows: Vec<(String, Value)> = state
        .store
        .read(|tx| tx.scan_json(ROWS, &format!("{id}:"), after.as_deref(), limit, false))?;
    Ok(Json(page.answer(
        rows.into_iter().map(|(k, v)| with_row_id(&k, v)).collect(),
    )))
}

/// The session's signed receipts.
#[utoipa::path(get, path = "/sessions/{id}/receipts", operation_id = "listSessionReceipts", tag = "sessions",
    description = "Scope: sessions:read. Verify one with the key of GET /signing-keys whose id is signature.key_id.",
    params(schemas::SessionId, schemas::PageParams),
    responses((status = 200, description = "A page of receipts", body = schemas::ReceiptList)))]
async fn receipts(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    caller.require("sessions:read")?;
    own(&state, &caller, &id)?;
    let page = Page::from_query(&q)?;
    let ids = receipt_ids(&state, &id)?;
    let list = state.store.read(|tx| -> anyhow::Result<Vec<Value>> {
        let mut out = Vec::new();
        for rid in &ids {
            if let Some(r) = tx.get_json::<Value>(RECEIPTS, rid)? {
                out.push(r);
            }
        }
        Ok(out)
    })?;
    Ok(Json(page.slice(list)?))
}

/// A priced follow-up turn, waiting for confirmation.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Proposal {
    id: String,
    session: String,
    turn: u32,
    query: String,
    parsed: Value,
    estimated: Micros,
    passes: u32,
    expires_at: String,
    used: bool,
    /// A refresh: the same query and intent read again, diffed against the
    /// turn before (confirmed only through the refresh route).
    #[serde(default)]
    refresh: bool,
}

impl Proposal {
    fn to_json(&self) -> Value {
        json!({ "id": self.id, "estimated_usd": self.estimated.to_json(), "passes": self.passes, "expires_at": self.expires_at })
    }
}

/// A follow-up turn keeps the earlier turn's sources and entity unless it names its own.
fn merge_turn(previous: &Value, next: &Value) -> Value {
    let mut merged = next.clone();
    if merged["sources"].as_array().is_none_or(|a| a.is_empty()) {
        merged["sources"] = previous["sources"].clone();
    }
    if merged["entity"].as_str().is_none_or(|e| e == "product") && previous["entity"].is_string() {
        merged["entity"] = previous["entity"].clone();
    }
    merged
}

/// A follow-up turn, priced first.
#[utoipa::path(post, path = "/sessions/{id}/turns", operation_id = "createTurn", tag = "sessions",
    description = "Scope: sessions:write. Without `proposal`: 409 proposal_required with the priced proposal. With the proposal id (same query, within 15 minutes): 201, the session running its next turn with a new reservation.",
    params(schemas::SessionId, schemas::IdempotencyHeader),
    request_body = schemas::TurnCreate,
    responses((status = 201, description = "The session, running the new turn", body = schemas::Session)))]
async fn turn(
    State(state): State<AppState>,
    caller: Caller,
    Extension(RequestId(request_id)): Extension<RequestId>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> Response {
    let idem = match idempotency::begin(
        &state,
        &caller,
        "sessions:write",
        &headers,
        &request_id,
        &format!("POST /v1/sessions/{id}/turns"),
        &body,
    )
    .await
    {
        Ok(idem) => idem,
        Err(answer) => return answer,
    };
    let result = add_turn(&state, &caller, &id, &body, idem.as_ref(), false).await;
    idempotency::respond(
        &state,
        idem,
        result.map(|s| (StatusCode::CREATED, s.to_json(&state.config.public_url()))),
    )
    .await
}

async fn add_turn(
    state: &AppState,
    caller: &Caller,
    id: &str,
    body: &Body,
    idem: Option<&idempotency::Idem>,
    refresh: bool,
) -> Result<Session, ApiError> {
    let session = own(state, caller, id)?;
    let query = if refresh {
        body.only(&["proposal", "max_spend_usd"])?;
        session.query.clone()
    } else {
        let query = body.required_str("query")?;
        body.only(&["query", "proposal", "max_spend_usd"])?;
        query
    };
    let proposal_id = body.optional_str("proposal", 64)?;
    if session.redacted {
        return Err(ApiError::SessionTerminal {
            status: "redacted".into(),
        });
    }
    if session.is_running() {
        return Err(ApiError::SessionBusy {
            status: session.status.as_str().into(),
        });
    }
    if !session.status.accepts_turns() || session.turn >= state.config.fetch.max_turns {
        return Err(ApiError::SessionTerminal {
            status: session.status.as_str().into(),
        });
    }
    let max_spend = body
        .optional_usd("max_spend_usd")?
        .unwrap_or(session.max_spend);
    let Some(proposal_id) = proposal_id else {
        // Price the turn first; the customer confirms by sending the id back.
        let e = plan(state, caller.mode(), &query)
            .await?
            .ok_or(ApiError::EngineUnavailable)?;
        let parsed = if refresh {
            session.parsed.clone()
        } else {
            merge_turn(&session.parsed, &e.parsed)
        };
        let would_run = e.would_run || parsed["sources"].as_array().is_some_and(|a| !a.is_empty());
        let (passes, estimated) = price(state, &parsed, would_run, max_spend);
        let proposal = Proposal {
            id: crate::ids::new_id("prop"),
            session: session.id.clone(),
            turn: session.turn + 1,
            query,
            parsed,
            estimated,
            passes,
            expires_at: crate::time::format(
                chrono::Utc::now() + chrono::Duration::minutes(PROPOSAL_TTL_MIN),
            ),
            used: false,
            refresh,
        };
        let p = proposal.clone();
        let sid = session.id.clone();
        state
            .store
            .write_async(move |tx| -> anyhow::Result<()> {
                store::put_json(tx, PROPOSALS, &p.id, &p)?;
                let mut s =
                    super::get(tx, &sid)?.ok_or_else(|| anyhow::anyhow!("session vanished"))?;
                events::append(
                    tx,
                    &mut s,
                    "proposal",
                    json!({ "turn": p.turn, "proposal": p.to_json() }),
                )?;
                super::put(tx, &s)?;
                crate::webhooks::emit(
                    tx,
                    &s.account,
                    s.mode,
                    "session.proposal",
                    json!({ "session_id": s.id, "turn": p.turn, "proposal": p.to_json() }),
                    s.webhook_url.as_deref(),
                )
            })
            .await?;
        state.bus.publish();
        state.webhooks.kick();
        return Err(ApiError::ProposalRequired {
            proposal: proposal.to_json(),
        });
    };
    let slot = state.run_slots.acquire(caller.scope_key())?;
    let public_url = state.config.public_url();
    let caller = caller.clone();
    let st = state.clone();
    let sid = session.id.clone();
    let idem = idem.cloned();
    let claim = state.runs.claim(&sid);
    let session = state
        .store
        .write_async(move |tx| -> Result<Session, ApiError> {
            let mut p: Proposal = tx.get_json(PROPOSALS, &proposal_id)?.filter(|p: &Proposal| p.session == sid).ok_or_else(|| ApiError::invalid("proposal", "proposal is not a proposal of this session"))?;
            if p.used {
                return Err(ApiError::invalid("proposal", "this proposal was already confirmed"));
            }
            if crate::time::parse(&p.expires_at).is_none_or(|t| t < chrono::Utc::now()) {
                return Err(ApiError::invalid("proposal", "this proposal has expired; send the turn again for a new one"));
            }
            if p.query != query {
                return Err(ApiError::invalid("query", "query differs from the proposal's query"));
            }
            if p.refresh != refresh {
                let route = if p.refresh { "/refresh" } else { "/turns" };
                return Err(ApiError::invalid("proposal", format!("this proposal is confirmed through {route}")));
            }
            let mut s = super::get(tx, &sid)?.ok_or(ApiError::NotFound)?;
            if s.is_running() {
                return Err(ApiError::SessionBusy { status: s.status.as_str().into() });
            }
            if s.turn + 1 != p.turn {
                return Err(ApiError::invalid("proposal", "this proposal is for another turn"));
            }
            check_caps(tx, &caller, max_spend)?;
            let r = reserve(tx, &st, &caller, max_spend, &s.id)?;
            p.used = true;
            store::put_json(tx, PROPOSALS, &p.id, &p)?;
            s.turn = p.turn;
            s.query = p.query.clone();
            s.parsed = p.parsed.clone();
            s.status = Status::Running;
            s.stop = None;
            s.error = None;
            s.reason = None;
            s.ended_at = None;
            s.max_spend = max_spend;
            s.reservation = r.id;
            // A refresh is diffed against the turn it reads again.
            s.diff = None;
            s.diff_base = refresh.then(|| format!("turn:{}", s.turn - 1));
            s.refresh_of = refresh.then(|| s.id.clone());
            s.updated_at = crate::time::now();
            let started = json!({ "turn": s.turn, "query": s.query, "reserved_usd": max_spend.to_json(), "proposal": p.id });
            events::append(tx, &mut s, "started", started)?;
            super::put(tx, &s)?;
            if let Some(idem) = &idem {
                idem.complete_in(tx, StatusCode::CREATED, &s.to_json(&public_url))?;
            }
            Ok(s)
        })
        .await?;
    state.bus.publish();
    run::spawn(
        state.clone(),
        session.clone(),
        std::sync::Arc::new(slot),
        claim,
    );
    Ok(session)
}

/// Reads a finished session's sources again as a new turn (preview: refresh).
#[utoipa::path(post, path = "/sessions/{id}/refresh", operation_id = "refreshSession", tag = "sessions",
    description = "Scope: sessions:write. Preview (switch `refresh`). Priced like a turn: without `proposal`, 409 proposal_required with the priced proposal; with its id (within 15 minutes), 201 and the session running a new turn with the same query and intent. When it ends, `diff` counts the rows added, removed and changed against the turn before (the differ plugin).",
    params(schemas::SessionId, schemas::IdempotencyHeader),
    request_body(content = schemas::SessionRefreshBody),
    responses((status = 201, description = "The session, running the refresh turn", body = schemas::Session)))]
async fn refresh(
    State(state): State<AppState>,
    caller: Caller,
    Extension(RequestId(request_id)): Extension<RequestId>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> Response {
    let idem = match idempotency::begin(
        &state,
        &caller,
        "sessions:write",
        &headers,
        &request_id,
        &format!("POST /v1/sessions/{id}/refresh"),
        &body,
    )
    .await
    {
        Ok(idem) => idem,
        Err(answer) => return answer,
    };
    let result = add_turn(&state, &caller, &id, &body, idem.as_ref(), true).await;
    idempotency::respond(
        &state,
        idem,
        result.map(|s| (StatusCode::CREATED, s.to_json(&state.config.public_url()))),
    )
    .await
}

/// Erases a finished session's customer data (preview: redaction).
#[utoipa::path(delete, path = "/sessions/{id}", operation_id = "redactSession", tag = "sessions",
    description = "Scope: sessions:write. Preview (switch `redaction`). Erases the query, parsed intent, guidance, metadata, webhook URL, rows and event payloads of a finished session; keeps its money, counts and receipts whole (they still verify). A running session is 409 session_busy.",
    params(schemas::SessionId),
    responses((status = 200, description = "The session, redacted", body = schemas::Session)))]
async fn redact(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let s = super::redaction::delete(&state, &caller, &id, Kind::Session).await?;
    Ok(Json(s.to_json(&state.config.public_url())))
}

/// Stops a running session.
#[utoipa::path(post, path = "/sessions/{id}/stop", operation_id = "stopSession", tag = "sessions",
    description = "Scope: sessions:write. Its signed receipts settle, the rest of the reservation is released.",
    params(schemas::SessionId),
    responses((status = 200, description = "The session, stopped", body = schemas::Session)))]
async fn stop(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    caller.require("sessions:write")?;
    let s = own(&state, &caller, &id)?;
    if !s.is_running() {
        return Err(ApiError::SessionTerminal {
            status: s.status.as_str().into(),
        });
    }
    if !state.runs.stop(&id) {
        // The run is between its commit and its end; it is ending anyway.
        tracing::debug!(session = %id, "stop for a run that is already ending");
    }
    let s = wait_until_done(&state, &id, Duration::from_secs(30)).await?;
    Ok(Json(s.to_json(&state.config.public_url())))
}
