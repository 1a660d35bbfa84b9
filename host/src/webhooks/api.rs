//! The webhook routes: endpoints, their attempts log, and the account
//! default secret.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::Json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{signing, Attempt, Endpoint};
use super::{ATTEMPTS, WEBHOOKS};
use crate::auth::Caller;
use crate::http::{ApiError, Body, Page, Query};
use crate::idempotency::{self, Idempotent, WebhooksWrite};
use crate::state::AppState;
use crate::store::{self, ATTEMPT_KEYS, DELETED_WEBHOOKS, WEBHOOK_INDEX};
use crate::wire;
use crate::wire::KeyScope;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create, list))
        .routes(routes!(read, update, remove))
        .routes(routes!(attempts))
        .routes(routes!(read_secret))
        .routes(routes!(run_attempts))
        .routes(routes!(rotate_secret))
}

/// Registers an endpoint; its secret is shown in this response only.
#[utoipa::path(post, path = "/webhooks", operation_id = "createWebhookEndpoint", tag = "webhooks",
    description = "Scope: webhooks:write. The URL must be https and resolve to public unicast addresses; private, loopback, link-local and metadata ranges are refused with invalid_param. The endpoint pins the request's fn-version (or the account pin).",
    params(wire::IdempotencyHeader),
    request_body = wire::WebhookEndpointCreate,
    responses((status = 201, description = "The endpoint with its secret", body = wire::WebhookEndpointCreated)))]
async fn create(State(state): State<AppState>, request: Idempotent<WebhooksWrite>) -> Response {
    let Idempotent {
        caller,
        headers,
        body,
        idem,
        ..
    } = request;
    let result = create_endpoint(&state, &caller, &headers, &body).await;
    idempotency::respond(&state, idem, result).await
}

async fn create_endpoint(
    state: &AppState,
    caller: &Caller,
    headers: &HeaderMap,
    body: &Body,
) -> Result<(StatusCode, wire::WebhookEndpointCreated), ApiError> {
    let wire::WebhookEndpointCreate {
        url,
        events,
        description,
    } = wire::WebhookEndpointCreate::parse(body, &state.config.target_policy()).await?;
    // The header is echoed, never refused (SPEC §9.2); the endpoint pins it
    // when it is a version this service knows, else the account's pin.
    let fn_version = headers
        .get("fn-version")
        .and_then(|v| v.to_str().ok())
        .filter(|v| wire::KNOWN_VERSIONS.contains(v))
        .map_or_else(|| caller.account.fn_version.clone(), str::to_string);
    let now = chrono::Utc::now();
    let ep = Endpoint {
        id: crate::ids::new_id("whep"),
        account: caller.account.id.clone(),
        mode: caller.mode(),
        url,
        events,
        description,
        secret: signing::new_secret(),
        fn_version,
        disabled: false,
        created_at: crate::time::format(now),
        created_us: now.timestamp_micros(),
        last_delivery: None,
    };
    let stored = ep.clone();
    state
        .store
        .write_async(move |tx| -> anyhow::Result<()> {
            store::put_json(tx, WEBHOOKS, &stored.id, &stored)?;
            tx.put_str(
                WEBHOOK_INDEX,
                stored.index_key().as_str(),
                stored.id.as_str(),
            )?;
            Ok(())
        })
        .await?;
    // The secret is shown this once.
    let created = wire::WebhookEndpointCreated {
        endpoint: ep.to_wire(),
        secret: ep.secret,
    };
    Ok((StatusCode::CREATED, created))
}

/// The caller's endpoint, or 404 for an unknown one, another account's or
/// the other mode's.
async fn own(state: &AppState, caller: &Caller, id: &str) -> Result<Endpoint, ApiError> {
    let id = id.to_string();
    let ep: Option<Endpoint> = state
        .store
        .read_async(move |tx| tx.get_json(WEBHOOKS, &id))
        .await?;
    match ep {
        Some(ep) if ep.account == caller.account.id && ep.mode == caller.mode() => Ok(ep),
        _ => Err(ApiError::NotFound),
    }
}

/// The endpoints of the caller's account and mode.
#[utoipa::path(get, path = "/webhooks", operation_id = "listWebhookEndpoints", tag = "webhooks",
    description = "Scope: webhooks:read.",
    params(wire::PageParams),
    responses((status = 200, description = "A page of endpoints", body = wire::WebhookEndpointList)))]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::WebhookEndpointList>, ApiError> {
    caller.require(KeyScope::WebhooksRead)?;
    let page = Page::from_query(&q)?;
    let after = match &page.starting_after {
        Some(id) => Some(
            own(&state, &caller, id)
                .await
                .map_err(|_| {
                    ApiError::invalid(
                        "starting_after",
                        "starting_after must be a webhook endpoint id of this account",
                    )
                })?
                .index_key(),
        ),
        None => None,
    };
    let prefix = crate::prefix!(caller.account.id, caller.mode());
    let limit = page.limit + 1;
    let endpoints = state
        .store
        .read_async(move |tx| -> anyhow::Result<Vec<Endpoint>> {
            let ids = super::index_ids(tx, &prefix, after.as_deref(), limit, true)?;
            let mut out = Vec::new();
            for id in ids {
                if let Some(ep) = tx.get_json(WEBHOOKS, &id)? {
                    out.push(ep);
                }
            }
            Ok(out)
        })
        .await?;
    Ok(Json(wire::WebhookEndpointList::cut(
        page.limit,
        endpoints.iter().map(Endpoint::to_wire).collect(),
    )))
}

/// One endpoint (never its secret).
#[utoipa::path(get, path = "/webhooks/{id}", operation_id = "getWebhookEndpoint", tag = "webhooks",
    description = "Scope: webhooks:read.",
    params(wire::EndpointId),
    responses((status = 200, description = "The endpoint", body = wire::WebhookEndpoint)))]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::WebhookEndpoint>, ApiError> {
    caller.require(KeyScope::WebhooksRead)?;
    Ok(Json(own(&state, &caller, &id).await?.to_wire()))
}

/// Changes an endpoint: its URL, events, description, disabled flag, or the
/// version its payloads are serialized under.
#[utoipa::path(patch, path = "/webhooks/{id}", operation_id = "updateWebhookEndpoint", tag = "webhooks",
    description = "Scope: webhooks:write.",
    params(wire::EndpointId),
    request_body = wire::WebhookEndpointUpdate,
    responses((status = 200, description = "The endpoint", body = wire::WebhookEndpoint)))]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Body,
) -> Result<Json<wire::WebhookEndpoint>, ApiError> {
    caller.require(KeyScope::WebhooksWrite)?;
    let current = own(&state, &caller, &id).await?;
    let wire::WebhookEndpointUpdate {
        url,
        events,
        disabled,
        fn_version,
        description,
    } = wire::WebhookEndpointUpdate::parse(
        &body,
        &state.config.target_policy(),
        &current.fn_version,
    )
    .await?;
    let id2 = id.clone();
    let updated = state
        .store
        .write_async(move |tx| -> Result<Endpoint, ApiError> {
            // Re-read inside the transaction: the worker updates last_delivery.
            let mut ep: Endpoint = tx.get_json(WEBHOOKS, &id2)?.ok_or(ApiError::NotFound)?;
            if let Some(u) = url {
                ep.url = u;
            }
            if let Some(e) = events {
                ep.events = e;
            }
            if let Some(d) = disabled {
                ep.disabled = d;
            }
            if let Some(v) = fn_version {
                ep.fn_version = v;
            }
            if description.is_some() {
                ep.description = description;
            }
            store::put_json(tx, WEBHOOKS, &ep.id, &ep)?;
            Ok(ep)
        })
        .await?;
    if updated.disabled {
        state.webhooks.sweep();
    }
    Ok(Json(updated.to_wire()))
}

/// Deletes an endpoint; its pending messages are dropped and logged.
#[utoipa::path(delete, path = "/webhooks/{id}", operation_id = "deleteWebhookEndpoint", tag = "webhooks",
    description = "Scope: webhooks:write.",
    params(wire::EndpointId),
    responses((status = 200, description = "Deleted", body = wire::WebhookEndpointDeleted)))]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::WebhookEndpointDeleted>, ApiError> {
    caller.require(KeyScope::WebhooksWrite)?;
    let ep = own(&state, &caller, &id).await?;
    let key = ep.index_key();
    let owner = owner_mark(&ep.account, ep.mode);
    let id2 = id.clone();
    state
        .store
        .write_async(move |tx| -> anyhow::Result<()> {
            tx.remove(WEBHOOKS, id2.as_str())?;
            tx.remove(WEBHOOK_INDEX, key.as_str())?;
            // Its attempts stay in the log; the mark keeps them its owner's.
            tx.put_str(DELETED_WEBHOOKS, id2.as_str(), &owner)?;
            Ok(())
        })
        .await?;
    state.webhooks.sweep();
    Ok(Json(wire::WebhookEndpointDeleted {
        id,
        object: "webhook_endpoint",
        deleted: true,
    }))
}

/// Every delivery attempt to an endpoint, newest first (all are kept, also
/// after the endpoint is deleted: SPEC §6.2.4).
#[utoipa::path(get, path = "/webhooks/{id}/attempts", operation_id = "listWebhookAttempts", tag = "webhooks",
    description = "Scope: webhooks:read. Every attempt is kept: a deleted endpoint's log stays readable here.",
    params(wire::EndpointId, wire::PageParams),
    responses((status = 200, description = "A page of attempts", body = wire::WebhookAttemptList)))]
async fn attempts(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::WebhookAttemptList>, ApiError> {
    caller.require(KeyScope::WebhooksRead)?;
    let id = match own(&state, &caller, &id).await {
        Ok(ep) => ep.id,
        Err(ApiError::NotFound) if was_own(&state, &caller, &id).await? => id,
        Err(e) => return Err(e),
    };
    let page = Page::from_query(&q)?;
    Ok(Json(
        attempts_page(&state, id, page, "this endpoint").await?,
    ))
}

/// Who owned a deleted endpoint, as its deletion marked it.
fn owner_mark(account: &str, mode: crate::accounts::Mode) -> String {
    crate::key!(account, mode)
}

/// Whether `id` is an endpoint of the caller's account and mode that was
/// deleted.
async fn was_own(state: &AppState, caller: &Caller, id: &str) -> Result<bool, ApiError> {
    let id = id.to_string();
    let owner: Option<String> = state
        .store
        .read_async(move |tx| tx.get_str(DELETED_WEBHOOKS, &id))
        .await?;
    Ok(owner == Some(owner_mark(&caller.account.id, caller.mode())))
}

/// Every delivery attempt to a run's own webhook_url in this account and
/// mode, newest first (all are kept, as an endpoint's are).
#[utoipa::path(get, path = "/webhook-secret/attempts", operation_id = "listRunWebhookAttempts", tag = "webhooks",
    description = "Scope: webhooks:read. The attempts to the webhook_url given to sessions and extractions, which the default secret signs.",
    params(wire::PageParams),
    responses((status = 200, description = "A page of attempts", body = wire::WebhookAttemptList)))]
async fn run_attempts(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::WebhookAttemptList>, ApiError> {
    caller.require(KeyScope::WebhooksRead)?;
    let page = Page::from_query(&q)?;
    let log = super::run_log_target(&caller.account.id, caller.mode());
    Ok(Json(
        attempts_page(&state, log, page, "these deliveries").await?,
    ))
}

/// One page of the attempts logged under `log_target`, newest first.
async fn attempts_page(
    state: &AppState,
    log_target: String,
    page: Page,
    whose: &'static str,
) -> Result<wire::WebhookAttemptList, ApiError> {
    let prefix = crate::prefix!(log_target);
    let limit = page.limit + 1;
    let after_id = page.starting_after.clone();
    let list = state
        .store
        .read_async(move |tx| -> Result<Vec<Attempt>, ApiError> {
            let after = match after_id {
                Some(a) => {
                    let key =
                        (|| -> anyhow::Result<Option<String>> { tx.get_str(ATTEMPT_KEYS, &a) })()?;
                    match key {
                        Some(k) if k.starts_with(&prefix) => Some(k),
                        _ => {
                            return Err(ApiError::invalid(
                                "starting_after",
                                format!("starting_after must be an attempt id of {whose}"),
                            ))
                        }
                    }
                }
                None => None,
            };
            Ok(tx
                .scan_json::<Attempt>(ATTEMPTS, &prefix, after.as_deref(), limit, true)?
                .into_iter()
                .map(|(_, a)| a)
                .collect())
        })
        .await?;
    Ok(wire::WebhookAttemptList::cut(page.limit, list))
}

/// The account default secret, which signs deliveries to a session's own
/// webhook_url; created on first use.
#[utoipa::path(get, path = "/webhook-secret", operation_id = "getWebhookSecret", tag = "webhooks",
    description = "Scope: webhooks:read.",
    responses((status = 200, description = "The default secret", body = wire::WebhookSecret)))]
async fn read_secret(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<wire::WebhookSecret>, ApiError> {
    caller.require(KeyScope::WebhooksRead)?;
    let (acct, mode) = (caller.account.id.clone(), caller.mode());
    if let Some(s) = state
        .store
        .read_async(move |tx| super::read_default_secret(tx, &acct, mode))
        .await?
    {
        return Ok(Json(s.to_wire()));
    }
    let (acct, mode) = (caller.account.id.clone(), caller.mode());
    let s = state
        .store
        .write_async(move |tx| super::default_secret(tx, &acct, mode))
        .await?;
    Ok(Json(s.to_wire()))
}

/// Replaces the account default secret.
#[utoipa::path(post, path = "/webhook-secret/rotate", operation_id = "rotateWebhookSecret", tag = "webhooks",
    description = "Scope: webhooks:write.",
    responses((status = 200, description = "The new default secret", body = wire::WebhookSecret)))]
async fn rotate_secret(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<wire::WebhookSecret>, ApiError> {
    caller.require(KeyScope::WebhooksWrite)?;
    let (acct, mode) = (caller.account.id.clone(), caller.mode());
    let s = state
        .store
        .write_async(move |tx| super::rotate_default_secret(tx, &acct, mode))
        .await?;
    Ok(Json(s.to_wire()))
}
