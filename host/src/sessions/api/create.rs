//! Estimating and creating a session: the planner's reading, the price, and
//! `open_session`, where a session's caps, reservation and first events commit.

use super::sse;
use crate::auth::Caller;
use crate::http::{ApiError, Body};
use crate::idempotency::{self, Idempotent, SessionsWrite};
use crate::money::Micros;
use crate::sessions::intent::{Intent, Source};
use crate::sessions::opening::{open_session, plan, NewSession};
use crate::sessions::Session;
use crate::state::AppState;
use crate::wire;
use crate::wire::KeyScope;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::Value;

/// Products a listing page is expected to show, for estimates.
pub(super) const EXPECTED_ROWS_PER_LISTING: u64 = 24;

/// Pages a turn expects to read and what that costs. A run reads a catalog
/// through its listings: per source, its entry page and first listing, then
/// one listing page per `EXPECTED_ROWS_PER_LISTING` rows asked for (three
/// listing pages when no count is asked), each row billed once.
pub(super) fn price(
    state: &AppState,
    parsed: &Value,
    would_run: bool,
    cap: Micros,
) -> (u32, Micros) {
    if !would_run {
        return (0, Micros::ZERO);
    }
    let intent = Intent::of(parsed);
    let sources = intent.sources.len().max(1) as u64;
    let (listings, rows) = match intent.constraints.count {
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
    request_body(content = wire::EstimateRequest,
        example = json!({ "query": "tents under $200 from outdoor-gear.example" })),
    responses((status = 200, description = "The estimate", body = wire::Estimate)))]
pub(super) async fn estimate(
    State(state): State<AppState>,
    caller: Caller,
    body: Body,
) -> Result<Json<wire::Estimate>, ApiError> {
    caller.require(KeyScope::SessionsWrite)?;
    let wire::EstimateRequest { query } = wire::EstimateRequest::parse(&body)?;
    let e = plan(&state, caller.mode(), &query)
        .await
        .ok_or(ApiError::EngineUnavailable)?;
    let cap = state.config.default_max_spend();
    let (passes, cost) = price(&state, &e.parsed, e.would_run, cap);
    let (render, render_worst) = render_price(&state, &e.parsed, passes);
    Ok(Json(wire::Estimate {
        object: "estimate",
        livemode: caller.mode().livemode(),
        would_run: e.would_run,
        parsed: e.parsed,
        missing: e.missing,
        reason: e.reason,
        estimated_usd: wire::Usd(Micros(cost.0 + render.0).min(cap)),
        render_usd: wire::Usd(render),
        render_worst_usd: wire::Usd(render_worst),
        passes,
    }))
}

/// What rendering adds to an estimate: every page when the node renders
/// `always` or a source's pages were found to need the browser before;
/// and the worst case, every page rendered (both $0 on a node that renders
/// nothing).
fn render_price(state: &AppState, parsed: &Value, passes: u32) -> (Micros, Micros) {
    let Some(renderer) = &state.renderer else {
        return (Micros::ZERO, Micros::ZERO);
    };
    let worst = Micros(state.config.per_render().0 * i64::from(passes));
    let known = Intent::of(parsed).sources.iter().any(|s| {
        let host = match s {
            Source::Url(u) => url::Url::parse(u)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_default(),
            Source::Domain(d) => d.clone(),
        };
        renderer.known_to_need(&host)
    });
    let always = state.render_mode == crate::render::RenderMode::Always;
    (if known || always { worst } else { Micros::ZERO }, worst)
}

/// Starts a session: reserves max_spend_usd and runs the query.
#[utoipa::path(post, path = "/sessions", operation_id = "createSession", tag = "sessions",
    description = "Scope: sessions:write. A query the service declines still gets 201; the run then ends abstained at $0 with the reservation released in full. With `Accept: text/event-stream` the 201 body is the run's event stream.",
    params(wire::IdempotencyHeader),
    request_body(content = wire::SessionCreate,
        example = json!({ "query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 0.5 })),
    responses(
        (status = 201, description = "A running session holding its reservation", content(
            (wire::Session = "application/json"),
            (wire::SseEvent = "text/event-stream"),
        )),
    ))]
pub(super) async fn create(
    State(state): State<AppState>,
    request: Idempotent<SessionsWrite>,
) -> Response {
    let wants_stream = request.wants_stream();
    let Idempotent {
        caller,
        body,
        mut idem,
        ..
    } = request;
    if let Some(idem) = idem.as_mut() {
        idem.streamed = wants_stream;
    }
    let result = create_session(&state, &caller, &body, idem.as_ref()).await;
    let public_url = state.config.public_url();
    match result {
        Ok(session) if wants_stream => {
            let answer = Ok((StatusCode::CREATED, session.to_wire(&public_url)));
            let _ = idempotency::respond(&state, idem, answer).await;
            (StatusCode::CREATED, sse(state, session.id, 0)).into_response()
        }
        result => {
            let answer = result.map(|s| (StatusCode::CREATED, s.to_wire(&public_url)));
            idempotency::respond(&state, idem, answer).await
        }
    }
}

pub(super) async fn create_session(
    state: &AppState,
    caller: &Caller,
    body: &Body,
    idem: Option<&idempotency::Idem>,
) -> Result<Session, ApiError> {
    let wire::SessionCreate {
        query,
        max_spend_usd,
        guidance,
        webhook_url,
        metadata,
    } = wire::SessionCreate::parse(body)?;
    let max_spend = max_spend_usd.unwrap_or_else(|| state.config.default_max_spend());
    if let Some(w) = &webhook_url {
        crate::webhooks::check_target(&state.config.target_policy(), w)
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
    Ok(open_session(state, caller, spec, idem).await?)
}
