//! The monitor routes (preview switch `monitors`). Creating, changing and
//! deleting a monitor moves no money: each run reserves and settles its own
//! (see `scheduler`). Creation states the worst case and checks it against
//! the caps.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse as _, Response};
use axum::Json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{Monitor, MonitorStatus};
use crate::auth::Caller;
use crate::http::{ApiError, Body, Page, Query};
use crate::idempotency::{self, Idempotent, SessionsWrite};
use crate::money::Micros;
use crate::state::AppState;
use crate::wire;
use crate::wire::KeyScope;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create, list))
        .routes(routes!(read, update, remove))
        .routes(routes!(runs))
        .routes(routes!(run_changes))
        .routes(routes!(feed))
        .routes(routes!(revoke_feed))
}

/// Channel URLs pass the target wall as webhook URLs do.
async fn check_channels(
    state: &AppState,
    channels: Option<&Vec<wire::MonitorChannel>>,
) -> Result<(), ApiError> {
    for (i, c) in channels.into_iter().flatten().enumerate() {
        crate::webhooks::check_target(&state.config.target_policy(), &c.url)
            .await
            .map_err(|e| ApiError::invalid(&format!("channels[{i}].url"), e.to_string()))?;
    }
    Ok(())
}

/// A new secret for a monitor's feed URL.
fn feed_token() -> String {
    use rand::Rng;
    let bytes: [u8; 18] = rand::thread_rng().gen();
    hex::encode(bytes)
}

/// The caller's monitor, or 404 (another account's or mode's too).
fn owned(state: &AppState, caller: &Caller, id: &str) -> Result<Monitor, ApiError> {
    let m = state.store.read(|tx| super::get(tx, id))?;
    m.filter(|m| m.account == caller.account.id && m.mode == caller.mode())
        .ok_or(ApiError::NotFound)
}

/// The key's per-run cap, and the account's monthly cap against the worst
/// case of this monitor together with its other scheduled (not paused)
/// monitors of the same mode; `replacing` is the monitor being retuned.
fn check_caps(
    state: &AppState,
    caller: &Caller,
    cadence_s: u64,
    per_run: Micros,
    replacing: Option<&str>,
) -> Result<(), ApiError> {
    if let Some(cap) = caller.key.session_cap {
        if per_run > cap {
            return Err(ApiError::SessionCapExceeded {
                cap,
                requested: per_run,
            });
        }
    }
    if let Some(cap) = caller.account.monthly_cap {
        let (acct, mode) = (caller.account.id.clone(), caller.mode());
        let others = state
            .store
            .read(|tx| super::all(tx))?
            .into_iter()
            .filter(|m| {
                m.account == acct
                    && m.mode == mode
                    && m.status != MonitorStatus::Paused
                    && Some(m.id.as_str()) != replacing
            });
        let committed = others.fold(Micros::ZERO, |sum, m| {
            sum + Monitor::worst_case_monthly(m.cadence_s, m.max_spend_per_run)
        });
        if committed + Monitor::worst_case_monthly(cadence_s, per_run) > cap {
            let spent = state
                .store
                .read(|tx| crate::ledger::spent_this_month(tx, &acct, mode))?;
            return Err(ApiError::MonthlyCapExceeded { cap, spent });
        }
    }
    Ok(())
}

/// A webhook_url passes the hard wall (https, public).
async fn check_webhook(state: &AppState, url: Option<&str>) -> Result<(), ApiError> {
    if let Some(w) = url {
        crate::webhooks::check_target(&state.config.target_policy(), w)
            .await
            .map_err(|e| ApiError::invalid("webhook_url", e.to_string()))?;
    }
    Ok(())
}

/// Creates a monitor; its first run is due at once.
#[utoipa::path(post, path = "/monitors", operation_id = "createMonitor", tag = "monitors",
    description = "Scope: sessions:write. Preview (switch `monitors`). `watch` is `{urls: [1..20 URLs], entity, guidance?}` (each URL read as an extraction, the cap split evenly between them) or `{query, guidance?}` (run as a session). `cadence_s` from 60 to 2592000. `worst_case_monthly_usd` (runs in 30 days × `max_spend_usd_per_run`) must fit the account's monthly cap (403 monthly_cap_exceeded) and the per-run cap the key's session cap (403 session_cap_exceeded). The first run is due at once. Creating a monitor moves no money: each run reserves its cap, settles its receipts and releases the rest.",
    params(wire::IdempotencyHeader),
    request_body(content = wire::MonitorCreate, example = json!({
        "watch": { "urls": ["https://outdoor-gear.example/tents/"], "entity": "tent" },
        "cadence_s": 3600, "max_spend_usd_per_run": 0.05 })),
    responses((status = 201, description = "The monitor", body = wire::Monitor)))]
async fn create(State(state): State<AppState>, request: Idempotent<SessionsWrite>) -> Response {
    let Idempotent {
        caller,
        headers: _,
        body,
        idem,
        ..
    } = request;
    let made = create_monitor(&state, &caller, &body, idem.as_ref()).await;
    idempotency::respond(&state, idem, made.map(|v| (StatusCode::CREATED, v))).await
}

async fn create_monitor(
    state: &AppState,
    caller: &Caller,
    body: &Body,
    idem: Option<&idempotency::Idem>,
) -> Result<wire::Monitor, ApiError> {
    let wire::MonitorCreate {
        watch,
        cadence_s,
        max_spend_usd_per_run: per_run,
        name,
        webhook_url,
        notify_on,
        channels,
    } = wire::MonitorCreate::parse(body)?;
    check_webhook(state, webhook_url.as_deref()).await?;
    check_channels(state, channels.as_ref()).await?;
    check_caps(state, caller, cadence_s, per_run, None)?;
    let now = crate::time::now();
    let name = name.unwrap_or_else(|| match (&watch.urls, &watch.query) {
        (Some(urls), _) => urls[0].clone(),
        (_, Some(q)) => q.clone(),
        _ => String::new(),
    });
    let m = Monitor {
        id: crate::ids::new_id("mon"),
        account: caller.account.id.clone(),
        mode: caller.mode(),
        key_id: caller.key.id.clone(),
        name,
        watch,
        cadence_s,
        max_spend_per_run: per_run,
        webhook_url,
        status: MonitorStatus::Active,
        consecutive_failures: 0,
        next_run_ms: Some(chrono::Utc::now().timestamp_millis()),
        running: None,
        last_run: None,
        baseline: None,
        carried: Vec::new(),
        lifetime_spend: Micros::ZERO,
        runs: 0,
        notify_on: notify_on.unwrap_or_default(),
        channels: channels.unwrap_or_default(),
        feed_token: feed_token(),
        created_at: now.clone(),
        created_us: chrono::Utc::now().timestamp_micros(),
        updated_at: now,
    };
    let idem = idem.cloned();
    let public_url = state.config.public_url();
    state
        .store
        .write_async(move |tx| -> Result<wire::Monitor, ApiError> {
            super::put(tx, &m)?;
            let answer = m.to_wire(&public_url);
            if let Some(idem) = &idem {
                idem.complete_in(tx, StatusCode::CREATED, &answer)?;
            }
            Ok(answer)
        })
        .await
}

/// The caller's monitors, newest first.
#[utoipa::path(get, path = "/monitors", operation_id = "listMonitors", tag = "monitors",
    description = "Scope: sessions:read. Preview (switch `monitors`).",
    params(wire::PageParams),
    responses((status = 200, description = "A page of monitors", body = wire::MonitorList)))]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::MonitorList>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    let page = Page::from_query(&q)?;
    let mut mine: Vec<Monitor> = state
        .store
        .read(|tx| super::all(tx))?
        .into_iter()
        .filter(|m| m.account == caller.account.id && m.mode == caller.mode())
        .collect();
    mine.sort_by_key(|m| std::cmp::Reverse((m.created_us, m.id.clone())));
    let start = match &page.starting_after {
        Some(id) => mine
            .iter()
            .position(|m| &m.id == id)
            .map(|i| i + 1)
            .ok_or_else(|| {
                ApiError::invalid(
                    "starting_after",
                    "starting_after must be a monitor id of this account",
                )
            })?,
        None => 0,
    };
    let rest = &mine[start.min(mine.len())..];
    let public_url = state.config.public_url();
    let data = rest
        .iter()
        .take(page.limit + 1)
        .map(|m| m.to_wire(&public_url));
    Ok(Json(wire::MonitorList::cut(page.limit, data.collect())))
}

#[utoipa::path(get, path = "/monitors/{id}", operation_id = "getMonitor", tag = "monitors",
    description = "Scope: sessions:read. Preview (switch `monitors`).",
    params(wire::MonitorId),
    responses((status = 200, description = "The monitor", body = wire::Monitor)))]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::Monitor>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    Ok(Json(
        owned(&state, &caller, &id)?.to_wire(&state.config.public_url()),
    ))
}

/// Pauses, resumes or retunes a monitor (SPEC §4.3).
#[utoipa::path(patch, path = "/monitors/{id}", operation_id = "updateMonitor", tag = "monitors",
    description = "Scope: sessions:write. Preview (switch `monitors`). At least one of: `paused` (true pauses, false resumes with the next run a cadence from now and the failure count reset), `cadence_s` (60 to 2592000; the next run comes no later than a cadence from now), `max_spend_usd_per_run`, `webhook_url` (null clears), `name`, `notify_on`, `channels`. The caps are checked as at creation. A run in flight finishes either way.",
    params(wire::MonitorId),
    request_body(content = wire::MonitorUpdate),
    responses((status = 200, description = "The monitor", body = wire::Monitor)))]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Body,
) -> Result<Json<wire::Monitor>, ApiError> {
    caller.require(KeyScope::SessionsWrite)?;
    let current = owned(&state, &caller, &id)?;
    let update = wire::MonitorUpdate::parse(&body)?;
    // Every member is optional: nothing to change answers the monitor as
    // it is.
    if update.changes_nothing() {
        return Ok(Json(current.to_wire(&state.config.public_url())));
    }
    let wire::MonitorUpdate {
        paused,
        cadence_s: cadence,
        max_spend_usd_per_run: per_run,
        webhook_url: webhook,
        name,
        notify_on,
        channels,
    } = update;
    check_webhook(&state, webhook.as_ref().and_then(|w| w.as_deref())).await?;
    check_channels(&state, channels.as_ref()).await?;
    // Retuned, or resumed (back among the scheduled), it must fit again.
    let resuming = paused == Some(false) && current.status == MonitorStatus::Paused;
    if cadence.is_some() || per_run.is_some() || resuming {
        check_caps(
            &state,
            &caller,
            cadence.unwrap_or(current.cadence_s),
            per_run.unwrap_or(current.max_spend_per_run),
            Some(&current.id),
        )?;
    }
    let second_ms = state.config.monitors.second_ms as i64;
    let updated = state
        .store
        .write_async(move |tx| -> Result<Monitor, ApiError> {
            let mut m = super::get(tx, &id)?.ok_or(ApiError::NotFound)?;
            let now = chrono::Utc::now().timestamp_millis();
            if let Some(c) = cadence {
                m.cadence_s = c;
                if let Some(next) = m.next_run_ms {
                    m.next_run_ms = Some(next.min(now + c as i64 * second_ms));
                }
            }
            if let Some(p) = per_run {
                m.max_spend_per_run = p;
            }
            if let Some(w) = webhook {
                m.webhook_url = w;
            }
            if let Some(n) = name {
                m.name = n;
            }
            if let Some(n) = notify_on {
                m.notify_on = n;
            }
            if let Some(c) = channels {
                m.channels = c;
            }
            match paused {
                Some(true) => {
                    m.status = MonitorStatus::Paused;
                    m.next_run_ms = None;
                }
                Some(false) if m.status == MonitorStatus::Paused => {
                    m.status = MonitorStatus::Active;
                    m.consecutive_failures = 0;
                    m.next_run_ms = Some(now + m.cadence_s as i64 * second_ms);
                }
                _ => {}
            }
            m.updated_at = crate::time::now();
            super::put(tx, &m)?;
            Ok(m)
        })
        .await?;
    Ok(Json(updated.to_wire(&state.config.public_url())))
}

/// Deletes a monitor: no further runs; a run in flight ends and settles.
#[utoipa::path(delete, path = "/monitors/{id}", operation_id = "deleteMonitor", tag = "monitors",
    description = "Scope: sessions:write. Preview (switch `monitors`). No run starts afterwards; a run in flight ends on its own and settles its receipts. Its runs' extractions or sessions, receipts and ledger entries are kept.",
    params(wire::MonitorId),
    responses((status = 200, description = "Deleted", body = wire::MonitorDeleted)))]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::MonitorDeleted>, ApiError> {
    caller.require(KeyScope::SessionsWrite)?;
    owned(&state, &caller, &id)?;
    let id_c = id.clone();
    state
        .store
        .write_async(move |tx| -> Result<(), ApiError> { Ok(super::delete(tx, &id_c)?) })
        .await?;
    Ok(Json(wire::MonitorDeleted {
        id,
        object: "monitor",
        deleted: true,
    }))
}

/// A monitor's runs, newest first.
#[utoipa::path(get, path = "/monitors/{id}/runs", operation_id = "listMonitorRuns", tag = "monitors",
    description = "Scope: sessions:read. Preview (switch `monitors`). Each run: `id` (`run_…`), `outcome` (running, changed, unchanged, failed), `rows`, `added`, `removed`, `changed`, `price_moves`, `cost_usd`, `receipt_id`, the `extraction_ids` or `session_id` it ran, `reason` when failed, and the `webhook` it sent. `starting_after` is a run id.",
    params(wire::MonitorId, wire::PageParams),
    responses((status = 200, description = "A page of runs", body = wire::MonitorRunList)))]
async fn runs(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::MonitorRunList>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    let page = Page::from_query(&q)?;
    let m = owned(&state, &caller, &id)?;
    // The first page reads only itself; a later one finds its place by id.
    let wanted = if page.starting_after.is_some() {
        usize::MAX
    } else {
        page.limit + 1
    };
    let all = state
        .store
        .read(|tx| super::runs_of(tx, &m.id, None, wanted))?;
    let start = match &page.starting_after {
        Some(run) => all
            .iter()
            .position(|r| &r.id == run)
            .map(|i| i + 1)
            .ok_or_else(|| {
                ApiError::invalid(
                    "starting_after",
                    "starting_after must be a run id of this monitor",
                )
            })?,
        None => 0,
    };
    let rest = &all[start.min(all.len())..];
    let data = rest
        .iter()
        .take(page.limit + 1)
        .map(super::MonitorRun::to_wire);
    Ok(Json(wire::MonitorRunList::cut(page.limit, data.collect())))
}

/// Every change of one run of a monitor.
#[utoipa::path(get, path = "/monitors/{id}/runs/{run_id}/changes", operation_id = "listMonitorRunChanges", tag = "monitors",
    description = "Scope: sessions:read. Preview (switch `monitors`). The run's item-level changes by row identity: `added`, `removed`, `price_down` / `price_up` (old and new price, `change`, `change_percent`, `currency`), `back_in_stock`, `out_of_stock`, `changed` (the `fields`), each with `notify` (whether the monitor's `notify_on` selected it); at most 1000 are kept, `counts` are whole. A baseline run has none.",
    params(wire::MonitorId, ("run_id" = String, Path, description = "The run (`run_…`)")),
    responses((status = 200, description = "The run's changes", body = wire::MonitorChangeList)))]
async fn run_changes(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, run_id)): Path<(String, String)>,
) -> Result<Json<wire::MonitorChangeList>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    let m = owned(&state, &caller, &id)?;
    let runs = state
        .store
        .read(|tx| super::runs_of(tx, &m.id, None, usize::MAX))?;
    let run = runs
        .into_iter()
        .find(|r| r.id == run_id)
        .ok_or(ApiError::NotFound)?;
    let mut counts = std::collections::BTreeMap::new();
    for c in &run.changes {
        *counts.entry(c.kind.clone()).or_insert(0u64) += 1;
    }
    Ok(Json(wire::MonitorChangeList {
        object: "list",
        run_id: run.id,
        counts,
        data: run.changes,
    }))
}

/// `?token=` of the feed URL.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FeedParams {
    /// The secret of the monitor's `feed_url`; without it, an API key.
    pub token: Option<String>,
}

/// The monitor's Atom feed: the runs that notified, newest first.
#[utoipa::path(get, path = "/monitors/{id}/feed", operation_id = "getMonitorFeed", tag = "monitors",
    description = "Preview (switch `monitors`). An Atom 1.0 feed of the monitor's runs that notified (at most 50), each entry's content the changes as HTML. Readable with an API key (scope sessions:read), or without one at the monitor's `feed_url` (its `token`); a revoked or wrong token is 404.",
    params(wire::MonitorId, FeedParams),
    security((), ("bearer" = [])),
    responses((status = 200, description = "The feed", content_type = "application/atom+xml", body = String)))]
async fn feed(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    Path(id): Path<String>,
    axum::extract::Query(q): axum::extract::Query<FeedParams>,
) -> Result<Response, ApiError> {
    let m = match (&q.token, caller) {
        (Some(token), _) => {
            let m = state
                .store
                .read(|tx| super::get(tx, &id))?
                .ok_or(ApiError::NotFound)?;
            let known = !m.feed_token.is_empty()
                && subtle::ConstantTimeEq::ct_eq(m.feed_token.as_bytes(), token.as_bytes()).into();
            if !known {
                return Err(ApiError::NotFound);
            }
            m
        }
        (None, Ok(caller)) => {
            caller.require(KeyScope::SessionsRead)?;
            owned(&state, &caller, &id)?
        }
        (None, Err(e)) => return Err(e),
    };
    let runs = state
        .store
        .read(|tx| super::runs_of(tx, &m.id, None, 200))?;
    let body = super::channels::atom(&m, &runs, &state.config.public_url());
    Ok((
        [(
            axum::http::header::CONTENT_TYPE,
            "application/atom+xml; charset=utf-8",
        )],
        body,
    )
        .into_response())
}

/// Revokes the monitor's feed URL: a new token, the old URL answers 404.
#[utoipa::path(post, path = "/monitors/{id}/feed/revoke", operation_id = "revokeMonitorFeed", tag = "monitors",
    description = "Scope: sessions:write. Preview (switch `monitors`). The feed's key-less URL gets a new token; the old one answers 404 from now on. Answers the monitor with its new `feed_url`.",
    params(wire::MonitorId),
    responses((status = 200, description = "The monitor", body = wire::Monitor)))]
async fn revoke_feed(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::Monitor>, ApiError> {
    caller.require(KeyScope::SessionsWrite)?;
    owned(&state, &caller, &id)?;
    let updated = state
        .store
        .write_async(move |tx| -> Result<Monitor, ApiError> {
            let mut m = super::get(tx, &id)?.ok_or(ApiError::NotFound)?;
            m.feed_token = feed_token();
            m.updated_at = crate::time::now();
            super::put(tx, &m)?;
            Ok(m)
        })
        .await?;
    Ok(Json(updated.to_wire(&state.config.public_url())))
}
