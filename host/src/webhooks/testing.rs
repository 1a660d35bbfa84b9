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
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{enqueue, serialize_for_version, Endpoint, Envelope, OutboxEntry, Target};
use super::{DEAD_LETTERS, MESSAGES, OUTBOX};
use crate::auth::Caller;
use crate::http::ApiError;
use crate::state::AppState;
use crate::store;
use crate::wire;
use crate::wire::KeyScope;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(test))
        .routes(routes!(redeliver))
}

/// A sample of an event type's data, in the event's own wire shape, with
/// this node's `public_url` in the links it carries.
pub fn sample(event_type: &str, public_url: &str) -> Value {
    use crate::money::Micros;
    use crate::wire::{self, Usd};
    let usd = |micros: i64| Usd(Micros(micros));
    let data = match event_type {
        "session.answered" => serde_json::to_value(wire::SessionAnsweredData {
            session_id: "ses_test".into(),
            status: "answered",
            turn: 1,
            qualified: 3,
            records: 4,
            sources: 2,
            receipts_signed: 2,
            spend_usd: usd(6_000),
            result_url: format!("{public_url}/v1/sessions/ses_test/result"),
        }),
        "session.abstained" | "session.error" | "session.stopped" => {
            let status = match event_type {
                "session.abstained" => "abstained",
                "session.error" => "error",
                _ => "stopped",
            };
            serde_json::to_value(wire::SessionEndedData {
                session_id: "ses_test".into(),
                status,
                reason: "a test delivery".into(),
                settled_usd: usd(0),
                released_usd: usd(1_000_000),
                records: 0,
                stop: (status == "stopped").then_some(crate::sessions::StopReason::Requested),
            })
        }
        "session.proposal" => serde_json::to_value(wire::SessionProposalData {
            session_id: "ses_test".into(),
            turn: 2,
            proposal: wire::Proposal {
                id: "prop_test".into(),
                estimated_usd: usd(50_000),
                passes: 3,
                expires_at: crate::time::now(),
            },
        }),
        "extraction.delivered" | "extraction.failed" => {
            let delivered = event_type == "extraction.delivered";
            serde_json::to_value(wire::ExtractionEndedData {
                extraction_id: "ext_test".into(),
                url: Some("https://shop.example/lamps/".into()),
                status: if delivered { "delivered" } else { "error" },
                records: 24,
                claim: Some("partial".into()),
                receipt_id: Some("rcpt_test".into()),
                spend_usd: usd(14_000),
                reason: (!delivered).then(|| "a test delivery".into()),
            })
        }
        "monitor.changed" | "monitor.unchanged" | "monitor.failed" => {
            let failed = event_type == "monitor.failed";
            let changed = event_type == "monitor.changed";
            serde_json::to_value(wire::MonitorRunData {
                monitor_id: "mon_test".into(),
                run_id: "run_test".into(),
                counts: wire::DiffCounts {
                    added: 1,
                    removed: 0,
                    changed: 0,
                    price_moves: 2,
                },
                rows: 24,
                cost_usd: usd(14_000),
                receipt_id: Some("rcpt_test".into()),
                reason: failed.then(|| "a test delivery".into()),
                consecutive_failures: failed.then_some(1),
                paused: None,
                // What a real change tells: the changes (the first 20),
                // how many were told, and where the whole list is.
                changes: if changed {
                    sample_changes()
                } else {
                    Vec::new()
                },
                notified: changed.then_some(3),
                changes_url: changed
                    .then(|| format!("{public_url}/v1/monitors/mon_test/runs/run_test/changes")),
                baseline: None,
            })
        }
        "balance.low" => serde_json::to_value(wire::BalanceLowData {
            balance_usd: usd(4_500_000),
            available_usd: usd(4_000_000),
            threshold_usd: usd(5_000_000),
            open_reserves_usd: usd(500_000),
            auto_recharge: wire::AutoRecharge::DISABLED,
        }),
        _ => Ok(Value::Object(Default::default())),
    };
    data.expect("a sample serializes")
}

/// A sample monitor run's changes: a product added and two price moves.
fn sample_changes() -> Vec<crate::wire::MonitorChange> {
    let change =
        |kind: &str, n: u32, old: Option<&str>, new: Option<&str>| crate::wire::MonitorChange {
            kind: kind.into(),
            identity: format!("url:https://shop.example/lamps/{n}"),
            name: Some(format!("Lamp {n}")),
            url: Some(format!("https://shop.example/lamps/{n}")),
            old_price: old.map(String::from),
            new_price: new.map(String::from),
            change: old.zip(new).map(|_| {
                if kind == "price_down" {
                    "-5.00"
                } else {
                    "2.00"
                }
                .into()
            }),
            change_percent: old
                .zip(new)
                .map(|_| if kind == "price_down" { -12.5 } else { 10.0 }),
            currency: Some("USD".into()),
            fields: Vec::new(),
            notify: true,
        };
    vec![
        change("added", 1, None, Some("19.00")),
        change("price_down", 2, Some("40.00"), Some("35.00")),
        change("price_up", 3, Some("20.00"), Some("22.00")),
    ]
}

async fn own(state: &AppState, caller: &Caller, id: &str) -> Result<Endpoint, ApiError> {
    let id = id.to_string();
    let ep: Option<Endpoint> = state
        .store
        .read_async(move |tx| super::endpoint(tx, &id))
        .await?;
    match ep {
        Some(ep) if ep.account == caller.account.id && ep.mode == caller.mode() => Ok(ep),
        _ => Err(ApiError::NotFound),
    }
}

/// Sends a sample delivery of each subscribed event type.
#[utoipa::path(post, path = "/webhooks/{id}/test", operation_id = "testWebhookEndpoint", tag = "webhooks",
    description = "Scope: webhooks:write. Preview (switch `webhook_test`). Queues one sample message per subscribed event type, envelope `test: true`, delivered, signed, retried and logged like a real one. Works with test keys.",
    params(wire::EndpointId),
    responses((status = 202, description = "The queued test messages", body = wire::WebhookTest)))]
async fn test(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<wire::WebhookTest>), ApiError> {
    caller.require(KeyScope::WebhooksWrite)?;
    let ep = own(&state, &caller, &id).await?;
    if ep.disabled {
        return Err(ApiError::invalid(
            "id",
            "the endpoint is disabled; enable it to test it",
        ));
    }
    let public_url = state.config.public_url();
    let queued = state
        .store
        .write_async(move |tx| -> anyhow::Result<Vec<wire::WebhookTestMessage>> {
            let mut queued = Vec::new();
            for event_type in &ep.events {
                let msg_id = crate::ids::new_id("msg");
                let created = crate::time::now();
                let data = sample(event_type, &public_url);
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
                queued.push(wire::WebhookTestMessage {
                    msg_id,
                    event_type: event_type.clone(),
                });
            }
            Ok(queued)
        })
        .await?;
    state.webhooks.kick();
    Ok((
        StatusCode::ACCEPTED,
        Json(wire::WebhookTest {
            object: "webhook_test",
            endpoint_id: id,
            test: true,
            messages: queued,
        }),
    ))
}

/// Sends one message of the endpoint again, now.
#[utoipa::path(post, path = "/webhooks/{id}/attempts/{msg}/redeliver", operation_id = "redeliverWebhookMessage", tag = "webhooks",
    description = "Scope: webhooks:write. Preview (switch `webhook_test`). `msg` is a message id (`msg_...`) of this endpoint, as its attempts log shows it. The same id and bytes are sent now, with a fresh signature timestamp, as a new attempt; dead-lettered messages too.",
    params(wire::EndpointId, ("msg" = String, Path, description = "The message id (msg_...)")),
    responses((status = 202, description = "The message, queued again", body = wire::WebhookRedelivery)))]
async fn redeliver(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, msg)): Path<(String, String)>,
) -> Result<(StatusCode, Json<wire::WebhookRedelivery>), ApiError> {
    caller.require(KeyScope::WebhooksWrite)?;
    let ep = own(&state, &caller, &id).await?;
    let key = crate::key!(ep.id, msg);
    let queued = state
        .store
        .write_async(move |tx| -> Result<wire::WebhookRedelivery, ApiError> {
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
            // A message delivered already: its attempts are in the log.
            let logged = tx
                .scan_json::<super::Attempt>(
                    super::ATTEMPTS,
                    &crate::prefix!(ep.id),
                    None,
                    usize::MAX,
                    false,
                )?
                .into_iter()
                .filter(|(_, a)| a.msg_id == first.msg_id)
                .map(|(_, a)| a.attempt)
                .max()
                .unwrap_or(0);
            attempts = attempts.max(logged);
            let entry = OutboxEntry {
                attempts,
                due_ms: chrono::Utc::now().timestamp_millis(),
                ..first
            };
            store::put_json(tx, OUTBOX, &entry.key(), &entry)?;
            Ok(wire::WebhookRedelivery {
                object: "webhook_redelivery",
                endpoint_id: ep.id,
                msg_id: entry.msg_id,
                event_type: entry.event_type,
            })
        })
        .await?;
    state.webhooks.kick();
    Ok((StatusCode::ACCEPTED, Json(queued)))
}

#[cfg(test)]
mod tests {
    use super::sample;

    #[test]
    fn a_sample_change_carries_what_a_real_one_does() {
        let data = sample("monitor.changed", "https://fn.example");
        let changes = data["changes"].as_array().unwrap();
        assert_eq!(changes.len(), 3);
        assert_eq!(data["notified"], 3);
        assert_eq!(
            data["changes_url"],
            "https://fn.example/v1/monitors/mon_test/runs/run_test/changes"
        );
        // The counts agree with the changes: one added, two price moves.
        assert_eq!(data["added"], 1);
        assert_eq!(data["price_moves"], 2);
        assert!(changes.iter().all(|c| c["notify"] == true));
        // An unchanged run tells none.
        let quiet = sample("monitor.unchanged", "https://fn.example");
        assert!(quiet.get("changes_url").is_none_or(|u| u.is_null()));
    }
}
