//! The extraction routes (preview switch `extractions`): create (one URL
//! or a batch), list, read, events, result. Redaction and refresh stay 501
//! until their own switches open.
//!
//! Money and events of a create, in one transaction: per URL, the caps,
//! the reservation, the `started` event and the stored extraction; then the
//! idempotent response. The runs start once it commits, in tasks of their
//! own (each claimed before the commit, as sessions are).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::Spec;
use crate::auth::Caller;
use crate::http::{ApiError, Body, Page, Query};
use crate::idempotency::{self, Idempotent, SessionsWrite};
use crate::sessions::api::{event_page, list_of, long_poll, owned, sse};
use crate::sessions::events::EventData;
use crate::sessions::lifecycle::{self, Opening};
use crate::sessions::{Kind, Session, Status};
use crate::state::AppState;
use crate::wire::KeyScope;
use crate::wire::{self, Usd};

/// The extraction routes; `redaction` opens `DELETE /extractions/{id}`
/// and `refresh` opens `POST /extractions/{id}/refresh` (the preview
/// switches of those names); closed, they answer 501.
pub fn routes(redaction: bool, refresh: bool) -> OpenApiRouter<AppState> {
    let router = OpenApiRouter::new()
        .routes(routes!(create, list))
        .routes(routes!(read));
    let router = if redaction {
        router.routes(routes!(redact))
    } else {
        let surface = crate::planned::partial("/extractions/{id}", "DELETE")
            .expect("extraction redaction is planned");
        router.route(
            "/extractions/{id}",
            crate::planned::method_handler("DELETE", surface),
        )
    };
    let router = router.routes(routes!(events_page)).routes(routes!(result));
    if refresh {
        router.routes(routes!(refresh_extraction))
    } else {
        router
    }
}

/// The latest delivered extraction of the caller's for `url`: what a
/// refresh compares against and may be served from.
fn last_delivery(
    state: &AppState,
    caller: &Caller,
    url: &str,
) -> Result<Option<Session>, ApiError> {
    let (acct, mode, url) = (caller.account.id.clone(), caller.mode(), url.to_string());
    Ok(state.store.read(|tx| -> anyhow::Result<Option<Session>> {
        let mut after: Option<Session> = None;
        loop {
            let page =
                crate::sessions::list(tx, Kind::Extraction, &acct, mode, after.as_ref(), 100)?;
            if let Some(found) = page.iter().find(|e| {
                e.url.as_deref() == Some(url.as_str())
                    && e.status == Status::Answered
                    && !e.redacted
            }) {
                return Ok(Some(found.clone()));
            }
            if page.len() < 100 {
                return Ok(None);
            }
            after = page.last().cloned();
        }
    })?)
}

/// Re-reads an extraction's page as a new extraction (preview: refresh).
#[utoipa::path(post, path = "/extractions/{id}/refresh", operation_id = "refreshExtraction", tag = "extractions",
    description = "Scope: sessions:write. Preview (switches `extractions` and `refresh`). A new extraction of the same URL with `refresh_of` set. When the latest delivery of that URL is younger than `max_age_s`, it is served from that record at $0 (`served_from: record`, no fetch); otherwise the page is read again and `diff` counts the rows added, removed and changed against the refreshed-from extraction, or the latest delivery when that one was not delivered (the differ plugin). `max_spend_usd` defaults to the refreshed extraction's.",
    params(wire::ExtractionId, wire::IdempotencyHeader),
    request_body(content = wire::ExtractionRefreshBody),
    responses((status = 201, description = "The refresh", body = wire::Extraction)))]
async fn refresh_extraction(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Idempotent<SessionsWrite>,
) -> Response {
    let Idempotent {
        caller, body, idem, ..
    } = request;
    let made = refresh(&state, &caller, &id, &body, idem.as_ref()).await;
    idempotency::respond(&state, idem, made.map(|v| (StatusCode::CREATED, v))).await
}

async fn refresh(
    state: &AppState,
    caller: &Caller,
    id: &str,
    body: &Body,
    idem: Option<&idempotency::Idem>,
) -> Result<wire::Extraction, ApiError> {
    // The path's object first: an unknown id is 404 whatever the body.
    let base = owned(state, caller, id, Kind::Extraction)?;
    let wire::ExtractionRefresh {
        max_age_s,
        max_spend_usd,
    } = wire::ExtractionRefresh::parse(body)?;
    if base.is_running() {
        return Err(ApiError::SessionBusy {
            status: base.status_str().into(),
        });
    }
    if base.redacted {
        // Redaction is not a status: the context names the one it has.
        return Err(ApiError::SessionTerminal {
            status: base.status_str().into(),
        });
    }
    let max_spend = max_spend_usd.unwrap_or(base.max_spend);
    let url = base.url.clone().unwrap_or_default();
    let entity = base.entity.clone().unwrap_or_default();
    let last = last_delivery(state, caller, &url)?;
    let mut fresh = super::new_extraction(
        caller,
        &url,
        &entity,
        Spec {
            guidance: base.guidance.clone(),
            metadata: base.metadata.clone(),
            webhook_url: base.webhook_url.clone(),
            max_spend,
            render: base.render,
        },
    );
    fresh.refresh_of = Some(base.id.clone());
    fresh.conditional_on = if base.status == Status::Answered {
        Some(base.id.clone())
    } else {
        last.as_ref().map(|l| l.id.clone())
    };
    // The diff is against the refreshed-from delivery; when that one was not
    // delivered, against the latest delivery of its URL.
    fresh.diff_base = if base.status == Status::Answered {
        Some(base.id.clone())
    } else {
        last.as_ref().map(|l| l.id.clone())
    };
    let young = |l: &Session| {
        let age = l
            .ended_at
            .as_deref()
            .and_then(crate::time::parse)
            .map(|t| (chrono::Utc::now() - t).num_seconds().max(0) as u64);
        max_age_s.is_some_and(|max| age.is_some_and(|a| a < max))
    };
    let public_url = state.config.public_url();
    let ids = [fresh.id.clone()];
    let opening = match last.filter(young) {
        // Served from the record: its rows, no fetch, no money.
        Some(record) => {
            let started = wire::RefreshStarted {
                url: fresh.url.clone().unwrap_or_default(),
                refresh_of: fresh.refresh_of.clone(),
                reserved_usd: None,
                served_from: Some(record.id.clone()),
            };
            Opening::served(fresh, vec![EventData::RefreshStarted(started)], record)
        }
        // Read again: reserved, run and settled like any extraction.
        None => {
            let started = wire::RefreshStarted {
                url: fresh.url.clone().unwrap_or_default(),
                refresh_of: fresh.refresh_of.clone(),
                reserved_usd: Some(max_spend.into()),
                served_from: None,
            };
            Opening::run(fresh, vec![EventData::RefreshStarted(started)])
        }
    };
    let opened = lifecycle::open(
        state,
        caller,
        &ids,
        idem,
        move |_| Ok::<_, ApiError>(vec![opening]),
        move |s: &[Session]| s[0].to_extraction_wire(&public_url),
    )
    .await?;
    Ok(opened.start(state).1)
}

/// Erases a finished extraction's customer data (preview: redaction).
#[utoipa::path(delete, path = "/extractions/{id}", operation_id = "redactExtraction", tag = "extractions",
    description = "Scope: sessions:write. Preview (switches `extractions` and `redaction`). Erases the entity, guidance, metadata, webhook URL, rows and event payloads of a finished extraction; keeps its money, counts and receipt whole. A running one is 409 session_busy.",
    params(wire::ExtractionId),
    responses((status = 200, description = "The extraction, redacted", body = wire::Extraction)))]
async fn redact(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::Extraction>, ApiError> {
    let e = crate::sessions::redaction::delete(&state, &caller, &id, Kind::Extraction).await?;
    Ok(Json(e.to_extraction_wire(&state.config.public_url())))
}

/// Starts one extraction per URL, each reserving `max_spend_usd`.
#[utoipa::path(post, path = "/extractions", operation_id = "createExtraction", tag = "extractions",
    description = "Scope: sessions:write. Preview (switch `extractions`). Exactly one of `url` and `urls` (both or neither: 400 naming `url`). A batch is validated whole and its reservations commit together or not at all. With `Accept: text/event-stream` the single form's 201 body is the run's event stream.",
    params(wire::IdempotencyHeader),
    request_body(content = wire::ExtractionCreate,
        example = json!({ "url": "https://outdoor-gear.example/tents/", "entity": "tent", "max_spend_usd": 0.05 })),
    responses(
        (status = 201, description = "A running extraction, or a batch of them", content(
            (wire::ExtractionCreated = "application/json"),
            (wire::SseEvent = "text/event-stream"),
        )),
    ))]
async fn create(State(state): State<AppState>, request: Idempotent<SessionsWrite>) -> Response {
    let Idempotent {
        caller,
        headers,
        body,
        mut idem,
        ..
    } = request;
    let wants_stream = crate::http::accept::wants_event_stream(&headers);
    if let Some(idem) = idem.as_mut() {
        idem.streamed = wants_stream;
    }
    let created = create_extractions(&state, &caller, &body, idem.as_ref()).await;
    match created {
        Ok((answer @ wire::ExtractionCreated::One(_), first)) if wants_stream => {
            let _ = idempotency::respond(&state, idem, Ok((StatusCode::CREATED, answer))).await;
            (StatusCode::CREATED, sse(state, first, 0)).into_response()
        }
        Ok((answer, _)) => {
            idempotency::respond(&state, idem, Ok((StatusCode::CREATED, answer))).await
        }
        Err(e) => idempotency::respond(&state, idem, Err::<(StatusCode, ()), _>(e)).await,
    }
}

/// Validate, reserve and store; start the runs. Returns the 201 body and
/// the first extraction's id.
async fn create_extractions(
    state: &AppState,
    caller: &Caller,
    body: &Body,
    idem: Option<&idempotency::Idem>,
) -> Result<(wire::ExtractionCreated, String), ApiError> {
    let asked = wire::ExtractionCreate::parse(body)?;
    let (urls, batch) = asked.pages();
    let wire::ExtractionCreate {
        entity,
        guidance,
        max_spend_usd: max_spend,
        webhook_url,
        metadata,
        render,
        ..
    } = asked;
    if render == Some(crate::render::RenderMode::Always) && state.renderer.is_none() {
        return Err(ApiError::invalid(
            "render",
            "this node renders no pages (no browser, or fetch.render = \"off\")",
        ));
    }
    if let Some(w) = &webhook_url {
        crate::webhooks::check_target(&state.config.target_policy(), w)
            .await
            .map_err(|e| ApiError::invalid("webhook_url", e.to_string()))?;
    }
    let extractions: Vec<Session> = urls
        .iter()
        .map(|url| {
            super::new_extraction(
                caller,
                url,
                &entity,
                Spec {
                    guidance: guidance.clone(),
                    metadata: metadata.clone(),
                    webhook_url: webhook_url.clone(),
                    max_spend,
                    render,
                },
            )
        })
        .collect();
    let (stored, answer) = super::open(state, caller, extractions, batch, idem).await?;
    Ok((answer, stored[0].id.clone()))
}

/// The extractions of the caller's account and mode, newest first.
#[utoipa::path(get, path = "/extractions", operation_id = "listExtractions", tag = "extractions",
    description = "Scope: sessions:read. Preview (switch `extractions`).",
    params(wire::PageParams),
    responses((status = 200, description = "A page of extractions", body = wire::ExtractionList)))]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::ExtractionList>, ApiError> {
    let page = Page::from_query(&q)?;
    let found = list_of(&state, &caller, &page, Kind::Extraction).await?;
    let public_url = state.config.public_url();
    Ok(Json(wire::ExtractionList::cut(
        page.limit,
        found
            .iter()
            .map(|e| e.to_extraction_wire(&public_url))
            .collect(),
    )))
}

/// One extraction.
#[utoipa::path(get, path = "/extractions/{id}", operation_id = "getExtraction", tag = "extractions",
    description = "Scope: sessions:read. Preview (switch `extractions`).",
    params(wire::ExtractionId),
    responses((status = 200, description = "The extraction", body = wire::Extraction)))]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::Extraction>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    let e = owned(&state, &caller, &id, Kind::Extraction)?;
    Ok(Json(e.to_extraction_wire(&state.config.public_url())))
}

/// A page of the extraction's event log (the same entries as a session's).
#[utoipa::path(get, path = "/extractions/{id}/events", operation_id = "listExtractionEvents", tag = "extractions",
    description = "Scope: sessions:read. Preview (switch `extractions`).",
    params(wire::ExtractionId, wire::EventsParams),
    responses((status = 200, description = "A page of events", body = wire::SessionEventList)))]
async fn events_page(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<wire::EventsParams>,
) -> Result<Json<wire::SessionEventList>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    owned(&state, &caller, &id, Kind::Extraction)?;
    event_page(&state, id, &q).await.map(Json)
}

/// The extraction's rows once it has ended (long poll).
#[utoipa::path(get, path = "/extractions/{id}/result", operation_id = "getExtractionResult", tag = "extractions",
    description = "Scope: sessions:read. Preview (switch `extractions`). `wait` (0–600 s) long-polls: 200 with the result once the extraction has ended, else 202 with the extraction. `format=ndjson` gives one row per line, then the summary.",
    params(wire::ExtractionId, wire::ResultParams),
    responses(
        (status = 200, description = "The result; with format=ndjson one row per line, then the summary line", content(
            (wire::ExtractionResult = "application/json"),
            (String = "application/x-ndjson"),
        )),
        (status = 202, description = "Still running after the wait", body = wire::Extraction),
    ))]
async fn result(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<wire::ResultParams>,
) -> Result<Response, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    owned(&state, &caller, &id, Kind::Extraction)?;
    let public_url = state.config.public_url();
    long_poll(
        &state,
        &id,
        &q,
        |e| e.to_extraction_wire(&public_url),
        |e, read| wire::ExtractionResult {
            object: "result",
            extraction_id: e.id.clone(),
            status: e.status_str(),
            claim: e.claim.clone(),
            outcome: e.outcome.map(|o| o.as_str().to_string()),
            completeness: e.completeness.clone(),
            qualified: e.qualified,
            records: e.records,
            spend_usd: Usd(e.settled),
            receipts: read.receipts,
            rows: read.rows,
            unchecked: read.unchecked,
        },
    )
    .await
}
