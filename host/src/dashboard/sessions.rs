//! Sessions: the list, and one session's rows, events and receipts. The
//! events page of a running session follows the log live by polling
//! `events.json` (an EventSource on the API stream would need the bearer
//! key, which the browser does not hold).

use std::fmt::Write as _;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::auth::Dash;
use super::frame::{self, Nav};
use super::html::{self, esc, esc_json, esc_value, pill, usd, usd_json, when, when_opt, E};
use crate::http::ApiError;
use crate::sessions::{self, events, Session};
use crate::state::AppState;
use crate::wire::KeyScope;

const PAGE: usize = 25;
const ROWS_PAGE: usize = 50;

/// Which runs a page shows: sessions, or extractions (preview switch
/// `extractions`), whose pages are the same but for their names.
#[derive(Clone, Copy)]
pub struct Of {
    kind: sessions::Kind,
    pub base: &'static str,
    nav: Nav,
    noun: &'static str,
    plural: &'static str,
    empty: &'static str,
}

pub const SESSIONS: Of = Of {
    kind: sessions::Kind::Session,
    base: "/dashboard/sessions",
    nav: Nav::Sessions,
    noun: "Session",
    plural: "Sessions",
    empty: "No sessions yet in this mode. Start one with <code>POST /v1/sessions</code>.",
};

pub const EXTRACTIONS: Of = Of {
    kind: sessions::Kind::Extraction,
    base: "/dashboard/extractions",
    nav: Nav::Extractions,
    noun: "Extraction",
    plural: "Extractions",
    empty: "No extractions yet in this mode (POST /v1/extractions, preview switch <code>extractions</code>).",
};

#[derive(Deserialize)]
pub struct After {
    after: Option<String>,
}

fn internal(e: impl Into<anyhow::Error>) -> Response {
    ApiError::internal(e).into_response()
}

fn not_found(dash: &Dash, of: Of) -> Response {
    frame::page_with_status(
        dash,
        of.nav,
        &format!("{} not found", of.noun),
        &html::notice(
            "error",
            &format!(
                "No {} with this id in this account and mode.",
                of.noun.to_lowercase()
            ),
        ),
        StatusCode::NOT_FOUND,
    )
}

/// The session `id` if it belongs to the signed-in account and mode.
async fn own(state: &AppState, dash: &Dash, of: Of, id: &str) -> Result<Option<Session>, Response> {
    let id = id.to_string();
    let s = state
        .store
        .read_async(move |tx| sessions::get(tx, &id))
        .await
        .map_err(internal)?;
    Ok(s.filter(|s| s.kind == of.kind && s.account == dash.account.id && s.mode == dash.key.mode))
}

/// The session `id` for one of its pages: the page that says why not when
/// the key lacks `sessions:read` or the session is not the account's.
async fn readable(state: &AppState, dash: &Dash, of: Of, id: &str) -> Result<Session, Response> {
    if !dash.can(KeyScope::SessionsRead) {
        let missing = html::missing_scope(KeyScope::SessionsRead);
        return Err(frame::page(dash, of.nav, of.noun, &missing));
    }
    match own(state, dash, of, id).await? {
        Some(s) => Ok(s),
        None => Err(not_found(dash, of)),
    }
}

pub async fn list(
    of: Of,
    State(state): State<AppState>,
    dash: Dash,
    Query(q): Query<After>,
) -> Response {
    if !dash.can(KeyScope::SessionsRead) {
        return frame::page(
            &dash,
            of.nav,
            of.plural,
            &html::missing_scope(KeyScope::SessionsRead),
        );
    }
    let after = match &q.after {
        Some(id) => match own(&state, &dash, of, id).await {
            Ok(Some(s)) => Some(s),
            Ok(None) => None,
            Err(r) => return r,
        },
        None => None,
    };
    let (account, mode) = (dash.account.id.clone(), dash.key.mode);
    let list = match state
        .store
        .read_async(move |tx| sessions::list(tx, of.kind, &account, mode, after.as_ref(), PAGE + 1))
        .await
    {
        Ok(l) => l,
        Err(e) => return internal(e),
    };
    let more = list.len() > PAGE;
    let mut main = String::new();
    if list.is_empty() {
        let _ = write!(main, "<p class=\"empty\">{}</p>", of.empty);
    } else {
        main.push_str(
            "<table id=\"sessions\"><thead><tr><th>Id</th><th>Status</th><th>Query</th><th class=\"num\">Spend</th>\
             <th class=\"num\">Rows</th><th class=\"num\">Qualified</th><th>Created</th></tr></thead><tbody>",
        );
        for s in list.iter().take(PAGE) {
            let spend = s.settled + s.pending_spend();
            let _ = write!(
                main,
                "<tr><td><a href=\"{base}/{id}\"><code>{id}</code></a></td><td>{status}</td><td class=\"query\">{query}</td>\
                 <td class=\"num\">{spend}</td><td class=\"num\">{rows}</td><td class=\"num\">{qualified}</td><td>{created}</td></tr>",
                base = of.base,
                id = E(&s.id),
                status = pill(s.status_str()),
                query = E(&asked(s)),
                spend = usd(spend),
                rows = s.records,
                qualified = s.qualified,
                created = when(&s.created_at),
            );
        }
        main.push_str("</tbody></table>");
        if more {
            if let Some(last) = list.get(PAGE - 1) {
                let _ = write!(
                    main,
                    "<p class=\"pager\"><a href=\"{}?after={}\">Older →</a></p>",
                    of.base,
                    E(&last.id)
                );
            }
        }
    }
    frame::page(&dash, of.nav, of.plural, &main)
}

/// What the run was asked: a session's query; an extraction's entity and
/// URL.
fn asked(s: &Session) -> String {
    match (&s.entity, &s.url) {
        (Some(entity), Some(url)) if s.kind == sessions::Kind::Extraction => {
            format!("{entity} · {url}")
        }
        _ => s.query.clone(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Rows,
    Events,
    Receipts,
}

/// The summary and tabs shared by a session's pages.
fn header(of: Of, s: &Session, tab: Tab) -> String {
    let mut out = String::new();
    let spend = s.settled + s.pending_spend();
    let mut extra = String::new();
    if let Some(stop) = &s.stop {
        let _ = write!(extra, "<dt>Stop</dt><dd>{}</dd>", E(stop.as_str()));
    }
    if let Some((code, message)) = &s.error {
        let _ = write!(
            extra,
            "<dt>Error</dt><dd><code>{}</code> {}</dd>",
            E(code),
            E(message)
        );
    }
    if let Some(reason) = &s.reason {
        let _ = write!(extra, "<dt>Reason</dt><dd>{}</dd>", E(reason));
    }
    // A session's turns; an extraction's claim and its page's outcome.
    let (turn, per_turn) = if s.kind == sessions::Kind::Extraction {
        if let Some(claim) = &s.claim {
            let _ = write!(extra, "<dt>Claim</dt><dd>{}</dd>", E(claim));
        }
        if let Some(outcome) = s.outcome {
            let _ = write!(extra, "<dt>Outcome</dt><dd>{}</dd>", E(outcome.as_str()));
        }
        (String::new(), "")
    } else {
        (format!("<dt>Turn</dt><dd>{}</dd>", s.turn), " per turn")
    };
    let _ = write!(
        out,
        "<p class=\"query-line\">“<span id=\"session-query\">{query}</span>”</p>\
         <dl class=\"summary\"><dt>Id</dt><dd><code id=\"session-id\">{id}</code></dd>\
         <dt>Status</dt><dd id=\"session-status\">{status}</dd>{turn}\
         <dt>Spend</dt><dd>{spend} of at most {max}{per_turn}</dd>\
         <dt>Settled / released</dt><dd>{settled} / {released}</dd>\
         <dt>Rows</dt><dd>{records} ({qualified} qualified, {unchecked} unchecked)</dd>\
         <dt>Sources read</dt><dd>{sources}</dd><dt>Receipts</dt><dd>{receipts}</dd>\
         <dt>Created</dt><dd>{created}</dd><dt>Ended</dt><dd>{ended}</dd>{extra}</dl>",
        query = E(&asked(s)),
        id = E(&s.id),
        status = pill(s.status_str()),
        spend = usd(spend),
        max = usd(s.max_spend),
        settled = usd(s.settled),
        released = usd(s.released),
        records = s.records,
        qualified = s.qualified,
        unchecked = s.unchecked,
        sources = s.sources,
        receipts = s.receipts_signed,
        created = when(&s.created_at),
        ended = when_opt(s.ended_at.as_deref()),
    );
    let tabs = [
        (Tab::Rows, "", "Rows"),
        (Tab::Events, "/events", "Events"),
        (Tab::Receipts, "/receipts", "Receipts"),
    ];
    out.push_str("<nav class=\"subtabs\">");
    for (t, suffix, label) in tabs {
        let current = if t == tab {
            " class=\"current\" aria-current=\"page\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<a href=\"{}/{}{suffix}\"{current}>{label}</a>",
            of.base,
            E(&s.id)
        );
    }
    out.push_str("</nav>");
    out
}

/// Common record members, shown as columns; the whole row is in a
/// collapsible JSON view.
fn record_cell(record: &Value, member: &str) -> String {
    match record.get(member) {
        Some(v) => esc_value(v),
        None => String::new(),
    }
}

fn price_cell(record: &Value) -> String {
    let price = record.get("price").or_else(|| record.get("price_usd"));
    match price {
        None | Some(Value::Null) => String::new(),
        Some(p) => {
            let cur = record.get("currency").and_then(Value::as_str).unwrap_or("");
            format!("{} {}", esc_value(p), esc(cur)).trim().to_string()
        }
    }
}

pub async fn rows(
    of: Of,
    State(state): State<AppState>,
    dash: Dash,
    Path(id): Path<String>,
    Query(q): Query<After>,
) -> Response {
    let s = match readable(&state, &dash, of, &id).await {
        Ok(s) => s,
        Err(page) => return page,
    };
    let after_n: u64 = q
        .after
        .as_deref()
        .and_then(|a| a.trim_start_matches("row_").parse().ok())
        .unwrap_or(0);
    let sid = s.id.clone();
    let rows = match state
        .store
        .read_async(move |tx| crate::sessions::rows(tx, &sid, after_n, ROWS_PAGE + 1))
        .await
    {
        Ok(r) => r,
        Err(e) => return internal(e),
    };
    let more = rows.len() > ROWS_PAGE;
    let mut main = header(of, &s, Tab::Rows);
    if rows.is_empty() {
        main.push_str(if s.is_running() {
            "<p class=\"empty\">No rows yet: the run is still going. Follow it on the Events tab.</p>"
        } else {
            "<p class=\"empty\">No rows.</p>"
        });
    } else {
        main.push_str(
            "<table id=\"rows\"><thead><tr><th>Row</th><th>Name</th><th>Price</th><th>Brand</th><th>Availability</th>\
             <th>Qualified</th><th>Source</th><th>Receipt</th><th></th></tr></thead><tbody>",
        );
        let mut last_n = 0;
        for row in rows.iter().take(ROWS_PAGE) {
            let n: u64 = row.id.trim_start_matches("row_").parse().unwrap_or(0);
            last_n = n;
            let record = &Value::Object(row.record.clone());
            let url = record
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or(&row.source.url);
            let domain = &row.source.domain;
            let qualified = if let Some(reason) = &row.unchecked {
                format!(
                    "<span class=\"pill muted\" title=\"{}\">unchecked</span>",
                    E(reason)
                )
            } else if row.qualified {
                pill("yes")
            } else {
                pill("no")
            };
            let receipt = row.source.receipt_id.as_str();
            let _ = write!(
                main,
                "<tr><td><code>row_{n}</code></td><td class=\"name\">{name}</td><td>{price}</td><td>{brand}</td><td>{avail}</td>\
                 <td>{qualified}</td><td>{source}</td><td><a href=\"{base}/{sid}/receipts#{rid}\"><code>{rid}</code></a></td>\
                 <td><details><summary>JSON</summary><pre>{json}</pre></details></td></tr>",
                name = record_cell(record, "name"),
                price = price_cell(record),
                brand = record_cell(record, "brand"),
                avail = record_cell(record, "availability"),
                source = html::ext_link(url, domain),
                base = of.base,
                sid = E(&s.id),
                rid = E(receipt),
                json = esc_json(&serde_json::to_value(row).unwrap_or_default()),
            );
        }
        main.push_str("</tbody></table>");
        if more {
            let _ = write!(
                main,
                "<p class=\"pager\"><a href=\"{}/{}?after=row_{last_n}\">More rows →</a></p>",
                of.base,
                E(&s.id)
            );
        }
    }
    frame::page(&dash, of.nav, of.noun, &main)
}

/// One event as a table row.
fn event_row(e: &events::Event) -> String {
    format!(
        "<tr data-seq=\"{seq}\"><td class=\"num\">{seq}</td><td>{phase}</td><td>{at}</td><td><code class=\"data\">{data}</code></td></tr>",
        seq = e.seq,
        phase = pill(&e.phase),
        at = when(&e.at),
        data = esc(&e.data.to_string()),
    )
}

pub async fn events(
    of: Of,
    State(state): State<AppState>,
    dash: Dash,
    Path(id): Path<String>,
) -> Response {
    let s = match readable(&state, &dash, of, &id).await {
        Ok(s) => s,
        Err(page) => return page,
    };
    let sid = s.id.clone();
    let list = match state
        .store
        .read_async(move |tx| events::after(tx, &sid, 0, 1000))
        .await
    {
        Ok(l) => l,
        Err(e) => return internal(e),
    };
    let last = list.last().map(|e| e.seq).unwrap_or(0);
    let mut main = header(of, &s, Tab::Events);
    if s.is_running() {
        main.push_str("<p class=\"notice info\" id=\"live\" role=\"status\">Live: new events appear as the run goes.</p>");
    }
    let _ = write!(
        main,
        "<table id=\"events\"><thead><tr><th class=\"num\">Seq</th><th>Phase</th><th>At</th><th>Data</th></tr></thead>\
         <tbody id=\"event-rows\" data-poll=\"{base}/{}/events.json\" data-after=\"{last}\" data-running=\"{}\">",
        E(&s.id),
        s.is_running(),
        base = of.base,
    );
    for e in &list {
        main.push_str(&event_row(e));
    }
    main.push_str("</tbody></table>");
    if list.len() >= 1000 {
        main.push_str(
            "<p class=\"small\">The first 1000 events are shown; the API has them all.</p>",
        );
    }
    frame::page(&dash, of.nav, of.noun, &main)
}

#[derive(Deserialize)]
pub struct EventsQuery {
    after: Option<u64>,
}

/// What the live events page's script reads.
#[derive(Serialize)]
struct NewEvents {
    events: Vec<EventCells>,
    next_after: u64,
    running: bool,
    status: &'static str,
}

/// One event as the cells of its table row (text, never markup).
#[derive(Serialize)]
struct EventCells {
    seq: u64,
    phase: String,
    at: String,
    data: String,
}

#[derive(Serialize)]
struct DashError {
    error: &'static str,
}

/// New events after `after`, for the live events page.
pub async fn events_json(
    of: Of,
    State(state): State<AppState>,
    dash: Dash,
    Path(id): Path<String>,
    Query(q): Query<EventsQuery>,
) -> Response {
    if !dash.can(KeyScope::SessionsRead) {
        return html::secure(
            (
                StatusCode::FORBIDDEN,
                Json(DashError {
                    error: "missing scope sessions:read",
                }),
            )
                .into_response(),
        );
    }
    let s = match own(&state, &dash, of, &id).await {
        Ok(Some(s)) => s,
        Ok(None) => {
            return html::secure(
                (
                    StatusCode::NOT_FOUND,
                    Json(DashError { error: "not found" }),
                )
                    .into_response(),
            )
        }
        Err(r) => return r,
    };
    let (sid, after) = (s.id.clone(), q.after.unwrap_or(0));
    let list = match state
        .store
        .read_async(move |tx| events::after(tx, &sid, after, 200))
        .await
    {
        Ok(l) => l,
        Err(e) => return internal(e),
    };
    let next = list.last().map(|e| e.seq).unwrap_or(after);
    // The browser builds table cells from these with textContent.
    let events: Vec<EventCells> = list
        .iter()
        .map(|e| EventCells {
            seq: e.seq,
            phase: e.phase.clone(),
            at: when(&e.at),
            data: e.data.to_string(),
        })
        .collect();
    html::secure(
        Json(NewEvents {
            events,
            next_after: next,
            running: s.is_running() || next < s.last_seq,
            status: s.status_str(),
        })
        .into_response(),
    )
}

pub async fn receipts(
    of: Of,
    State(state): State<AppState>,
    dash: Dash,
    Path(id): Path<String>,
) -> Response {
    let s = match readable(&state, &dash, of, &id).await {
        Ok(s) => s,
        Err(page) => return page,
    };
    let sid = s.id.clone();
    let list = state
        .store
        .read_async(move |tx| {
            let ids = crate::sessions::receipt_ids(tx, &sid)?;
            crate::receipts::get_many(tx, &ids)
        })
        .await;
    let list = match list {
        Ok(l) => l,
        Err(e) => return internal(e),
    };
    let mut main = header(of, &s, Tab::Receipts);
    main.push_str(
        "<p class=\"small\">Each receipt is signed with Ed25519 over its canonical JSON; the public keys are at \
         <code>GET /v1/signing-keys</code>.</p>",
    );
    if list.is_empty() {
        main.push_str("<p class=\"empty\">No receipts: no page was read.</p>");
    } else {
        main.push_str(
            "<table id=\"receipts\"><thead><tr><th>Receipt</th><th>Page</th><th>Fetched</th><th>HTTP</th><th class=\"num\">Records</th>\
             <th>Claim</th><th class=\"num\">Cost</th><th>Signature</th><th></th></tr></thead><tbody>",
        );
        for r in &list {
            let rid = r["id"].as_str().unwrap_or("");
            let url = r["url"].as_str().unwrap_or("");
            let sig = r["signature"]["value"].as_str().unwrap_or("");
            let sig_short: String = sig.chars().take(16).collect();
            let _ = write!(
                main,
                "<tr id=\"{rid}\"><td><code>{rid}</code></td><td class=\"url\">{page}</td><td>{fetched}</td><td>{status}</td>\
                 <td class=\"num\">{records}</td><td>{claim}</td><td class=\"num\">{cost}</td>\
                 <td><code title=\"{key}\">{sig_short}…</code></td><td><details><summary>JSON</summary><pre>{json}</pre></details></td></tr>",
                rid = E(rid),
                page = html::ext_link(url, url),
                fetched = when(r["fetched_at"].as_str().unwrap_or("")),
                status = esc_value(&r["http_status"]),
                records = esc_value(&r["records"]),
                claim = esc_value(&r["claim"]),
                cost = usd_json(&r["cost_usd"]),
                key = esc_value(&r["signature"]["key_id"]),
                sig_short = E(&sig_short),
                json = esc_json(r),
            );
        }
        main.push_str("</tbody></table>");
    }
    frame::page(&dash, of.nav, of.noun, &main)
}
