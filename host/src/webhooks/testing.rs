//! Webhook test and redeliver (preview switch `webhook_test`, SPEC §4.4).
//!
//! - `POST /webhooks/{id}/test` queues one sample message of each event
//!   type the endpoint subscribes to, its envelope marked `test: true`. The
//!   delivery worker sends, signs, retries and logs it like any other.
//! - `POST /webhooks/{id}/attempts/{msg}/redeliver` queues one message of
//!   the endpoint again, due now: the same `msg_` id and bytes (a fresh
//!   signature timestamp is taken when it is sent), a new attempt in the
//!   log. It works on dead-lettered and delivered messages alike: every
//!   message queued for an endpoint is kept (`MESSAGES`).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{enqueue, serialize_for_version, Endpoint, Envelope, OutboxEntry, Target};
use crate::auth::Caller;
use crate::http::ApiError;
use crate::openapi::schemas;
use crate::state::AppState;
use crate::store::{self, DEAD_LETTERS, MESSAGES, OUTBOX, WEBHOOKS};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(test))
        .routes(routes!(redeliver))
}

/// A sample of an event type's data, shaped as SPEC §6.3 states it.
pub fn sample(event_type: &str) -> Value {
    match event_type {
        "session.answered" => json!({
            "session_id": "ses_test", "status": "answered", "turn": 1, "qualified": 3,
            "records": 4, "sources": 2, "receipts_signed": 2, "spend_usd": 0.006,
            "result_url": "https://api.example/v1/sessions/ses_test/result",
        }),
        "session.abstained" | "session.error" | "session.stopped" => {
            let status = event_type.trim_start_matches("session.");
            let mut d = json!({
                "session_id": "ses_test", "status": status, "reason": "a test delivery",
                "settled_usd": 0, "released_usd": 1, "records": 0,
            });
            if status == "stopped" {
                d["stop"] = json!("stopped");
            }
            d
        }
        "session.proposal" => json!({
            "session_id": "ses_test", "turn": 2,
            "proposal": { "id": "prop_test", "estimated_usd": 0.05, "passes": 3, "expires_at": crate::time::now() },
        }),
        "extraction.delivered" | "extraction.failed" => json!({
            "extraction_id": "ext_test", "url": "https://shop.example/lamps/",
            "status": if event_type == "extraction.delivered" { "delivered" } else { "error" },
            "records": 24, "claim": "partial", "receipt_id": "rcpt_test", "spend_usd": 0.014,
        }),
        "monitor.changed" | "monitor.unchanged" | "monitor.failed" => json!({
            "monitor_id": "mon_test", "run_id": "run_test", "added": 1, "removed": 0,
            "price_moves": 2, "rows": 24, "cost_usd": 0.014, "receipt_id": "rcpt_test",
        }),
        "balance.low" => json!({
            "balance_usd": 4.5, "threshold_usd": 5, "open_reserves_usd": 0.5,
            "auto_recharge": { "enabled": false, "amount_usd": 0 },
        }),
        _ => json!({}),
    }
}

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

/// Sends a sample delivery of each subscribed event type.
#[utoipa::path(post, path = "/webhooks/{id}/test", operation_id = "testWebhookEndpoint", tag = "webhooks",
    description = "Scope: webhooks:write. Preview (switch `webhook_test`). Queues one sample message per subscribed event type, envelope `test: true`, delivered, signed, retried and logged like a real one. Works with test keys.",
    params(schemas::EndpointId),
    responses((status = 202, description = "The queued test messages", body = Object)))]
async fn test(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    caller.require("webhooks:write")?;
    let ep = own(&state, &caller, &id).await?;
    if ep.disabled {
        return Err(ApiError::invalid(
            "id",
            "the endpoint is disabled; enable it to test it",
        ));
    }
    let queued = state
        .store
        .write_async(move |tx| -> anyhow::Result<Vec<Value>> {
            let mut queued = Vec::new();
            for event_type in &ep.events {
                let msg_id = crate::ids::new_id("msg");
                let created = crate::time::now();
                let data = sample(event_type);
                let envelope = Envelope {
                    id: &msg_id,
                    event_type,
                    created: &created,
                    data: &data,
                    test: true,
                };
                let entry = OutboxEntry {
                    msg_id: msg_id.clone(),
                    event_type: event_type.clone(),
                    account: ep.account.clone(),
                    mode: ep.mode,
                    target: Target::Endpoint { id: ep.id.clone() },
                    body: serialize_for_version(&ep.fn_version, &envelope)?,
                    attempts: 0,
                    created_at: created.clone(),
                    due_ms: chrono::Utc::now().timestamp_millis(),
                };
                enqueue(tx, &entry)?;
                queued.push(json!({ "msg_id": msg_id, "type": event_type }));
            }
            Ok(queued)
        })
        .await?;
    state.webhooks.kick();
    Ok((
        StatusCode::ACCEPTED,
        Json(
            json!({ "object": "webhook_test", "endpoint_id": id, "test": true, "messages": queued }),
        ),
    ))
}

/// Sends one message of the endpoint again, now.
#[utoipa::path(post, path = "/webhooks/{id}/attempts/{msg}/redeliver", operation_id = "redeliverWebhookMessage", tag = "webhooks",
    description = "Scope: webhooks:write. Preview (switch `webhook_test`). `msg` is a message id (`msg_...`) of this endpoint, as its attempts log shows it. The same id and bytes are sent now, with a fresh signature timestamp, as a new attempt; dead-lettered messages too.",
    params(schemas::EndpointId, ("msg" = String, Path, description = "The message id (msg_...)")),
    responses((status = 202, description = "The message, queued again", body = Object)))]
async fn redeliver(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, msg)): Path<(String, String)>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    caller.require("webhooks:write")?;
    let ep = own(&state, &caller, &id).await?;
    let key = format!("{}:{msg}", ep.id);
    let queued = state
        .store
        .write_async(move |tx| -> Result<Value, ApiError> {
            let Some(first) = tx.get_json::<OutboxEntry>(MESSAGES, &key)? else {
                return Err(ApiError::NotFound);
            };
            // Attempts made so far: from its dead letter, or its queued retry.
            let mut attempts = tx
                .get_json::<OutboxEntry>(DEAD_LETTERS, &key)?
                .map_or(0, |d| d.attempts);
            tx.remove(DEAD_LETTERS, &key)?;
            let queued: Vec<(String, OutboxEntry)> = tx
                .scan_json::<OutboxEntry>(OUTBOX, "", None, usize::MAX, false)?
                .into_iter()
                .filter(|(_, e)| e.msg_id == first.msg_id && e.target == first.target)
                .collect();
            for (k, e) in queued {
                attempts = attempts.max(e.attempts);
                super::unqueue(tx, &k)?;
            }
            let entry = OutboxEntry {
                attempts,
                due_ms: chrono::Utc::now().timestamp_millis(),
                ..first
            };
            store::put_json(tx, OUTBOX, &entry.key(), &entry)?;
            Ok(json!({
                "object": "webhook_redelivery",
                "endpoint_id": ep.id,
                "msg_id": entry.msg_id,
                "type": entry.event_type,
            }))
        })
        .await?;
    state.webhooks.kick();
    Ok((StatusCode::ACCEPTED, Json(queued)))
}
