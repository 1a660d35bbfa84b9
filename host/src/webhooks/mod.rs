//! Webhooks: endpoints, signed at-least-once delivery, the attempts log.
//!
//! The interface the rest of the host uses:
//! - `emit`: enqueue an event for every subscribed endpoint (and the run's
//!   own webhook_url), inside the transaction that causes it.
//! - `balance_changed`: emit balance.low when a balance crosses the
//!   account's threshold.
//! - `check_target`: the hard wall for a webhook URL, at registration.
//! - `Webhooks::kick`: wake the delivery worker after a commit.
//!
//! Storage (tables in `crate::store`):
//! - WEBHOOKS: endpoint by id; WEBHOOK_INDEX lists them per account and mode.
//!   DELETED_WEBHOOKS marks a deleted one's owner, for its attempts log.
//! - OUTBOX: one entry per message and target, keyed by when it is due, with
//!   the exact bytes to send. An entry leaves only once its success or its
//!   dead-letter is committed, so a crash at any point re-sends, never loses.
//! - ATTEMPTS: every attempt, per target in time order; ATTEMPT_KEYS finds
//!   one by id (for pagination).
//! - META `webhook_secret:<account>:<mode>`: the account default secret that
//!   signs deliveries to a run's own webhook_url.

pub mod api;
pub mod delivery;
mod secrets;
pub mod signing;
pub mod testing;

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Notify;

use crate::accounts::{Mode, CURRENT_VERSION};
use crate::ledger::Balance;
use crate::store::{self, Tx, ATTEMPT_KEYS, WEBHOOK_INDEX};
use crate::wire::Usd;

pub use api::routes;
pub use secrets::{
    default_secret, read_default_secret, rotate_default_secret, DefaultSecret,
    ROTATION_OVERLAP_HOURS,
};

pub use crate::wire::{is_known_event, EMITTED_EVENTS, KNOWN_VERSIONS, PLANNED_EVENTS};

/// `webhooks`, read and written through this module only.
const WEBHOOKS: store::Table<Endpoint> = store::WEBHOOKS.holding();

/// `outbox`, read and written through this module only.
const OUTBOX: store::Table<OutboxEntry> = store::OUTBOX.holding();

/// `attempts`, read and written through this module only.
pub(super) const ATTEMPTS: store::Table<Attempt> = store::ATTEMPTS.holding();

/// `messages`, read and written through this module only.
const MESSAGES: store::Table<OutboxEntry> = store::MESSAGES.holding();

/// `dead_letters`, read and written through this module only.
const DEAD_LETTERS: store::Table<OutboxEntry> = store::DEAD_LETTERS.holding();

/// A handle on the delivery worker.
#[derive(Clone, Default)]
pub struct Webhooks {
    wake: Arc<Notify>,
    /// Set when endpoints were disabled or deleted: the worker then drops
    /// their pending messages.
    sweep: Arc<std::sync::atomic::AtomicBool>,
}

/// The worker's side of the handle (`delivery::start` takes it from the state).
pub(crate) struct Signals {
    pub wake: Arc<Notify>,
    pub sweep: Arc<std::sync::atomic::AtomicBool>,
}

impl Webhooks {
    /// Wake the delivery worker: messages were committed.
    pub fn kick(&self) {
        self.wake.notify_one();
    }

    /// Ask the worker to drop the pending messages of disabled and deleted
    /// endpoints.
    pub fn sweep(&self) {
        self.sweep.store(true, std::sync::atomic::Ordering::SeqCst);
        self.kick();
    }

    pub(crate) fn signals(&self) -> Signals {
        Signals {
            wake: self.wake.clone(),
            sweep: self.sweep.clone(),
        }
    }
}

/// A webhook endpoint as stored (the secret included).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Endpoint {
    pub id: String,
    pub account: String,
    pub mode: Mode,
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub secret: String,
    pub fn_version: String,
    pub disabled: bool,
    pub created_at: String,
    /// Creation time in microseconds: the listing order.
    pub created_us: i64,
    pub last_delivery: Option<LastDelivery>,
}

/// The outcome of an endpoint's latest attempt, stored as it is shown.
pub use crate::wire::LastDelivery;

impl Endpoint {
    /// The API object; never the secret.
    pub fn to_wire(&self) -> crate::wire::WebhookEndpoint {
        crate::wire::WebhookEndpoint {
            id: self.id.clone(),
            object: "webhook_endpoint",
            url: self.url.clone(),
            events: self.events.clone(),
            description: self.description.clone(),
            fn_version: self.fn_version.clone(),
            disabled: self.disabled,
            livemode: self.mode.livemode(),
            created_at: self.created_at.clone(),
            last_delivery: self.last_delivery.clone(),
        }
    }

    pub fn index_key(&self) -> String {
        crate::key!(self.account, self.mode, self.created_us, self.id)
    }

    pub fn wants(&self, event_type: &str) -> bool {
        !self.disabled && self.events.iter().any(|e| e == event_type)
    }
}

/// Where a message goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// A registered endpoint: its URL and secret are read at each attempt.
    Endpoint { id: String },
    /// A run's own webhook_url, signed with the account default secret.
    Run { url: String },
    /// A monitor's chat channel (Slack, Discord, Teams): the body is in
    /// that service's format, posted unsigned (the URL is the secret).
    Channel { url: String },
}

/// A message waiting for delivery to one target.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutboxEntry {
    pub msg_id: String,
    pub event_type: String,
    pub account: String,
    pub mode: Mode,
    pub target: Target,
    /// The exact bytes to send (JSON text).
    pub body: String,
    /// Attempts made so far.
    pub attempts: u32,
    pub created_at: String,
    /// When the next attempt is due, in Unix milliseconds.
    pub due_ms: i64,
}

impl OutboxEntry {
    pub fn key(&self) -> String {
        outbox_key(self.due_ms, &self.msg_id, &self.target)
    }

    /// Where this target's attempts are logged.
    pub fn log_target(&self) -> String {
        match &self.target {
            Target::Endpoint { id } => id.clone(),
            Target::Run { .. } => run_log_target(&self.account, self.mode),
            Target::Channel { .. } => format!("channel:{}:{}", self.account, self.mode.as_str()),
        }
    }
}

/// Where the attempts to runs' own webhook_url of an account and mode are
/// logged (`GET /webhook-secret/attempts`).
pub fn run_log_target(account: &str, mode: Mode) -> String {
    format!("run:{}:{}", account, mode.as_str())
}

/// Outbox keys sort by due time, so the worker reads what is due first.
pub fn outbox_key(due_ms: i64, msg_id: &str, target: &Target) -> String {
    let t = match target {
        Target::Endpoint { id } => id.as_str(),
        Target::Run { .. } => "run",
        Target::Channel { .. } => "channel",
    };
    crate::key!(due_ms, msg_id, t)
}

/// One delivery attempt (or the record of a message dropped unsent),
/// stored as the API answers it.
pub use crate::wire::WebhookAttempt as Attempt;

/// Append an attempt to the log of `log_target`, after every record before it.
pub fn log_attempt(tx: &Tx, log_target: &str, attempt: &Attempt) -> anyhow::Result<()> {
    // Strictly increasing microseconds: records written in the same
    // microsecond (an attempt and the drop that follows it) keep their order.
    static LAST_US: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);
    let now = chrono::Utc::now().timestamp_micros();
    let prev = LAST_US.fetch_max(now, std::sync::atomic::Ordering::SeqCst);
    let us = if now > prev {
        now
    } else {
        LAST_US.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
    };
    let key = crate::key!(log_target, us, attempt.id);
    store::put_json(tx, ATTEMPTS, &key, attempt)?;
    tx.put_str(ATTEMPT_KEYS, attempt.id.as_str(), key.as_str())?;
    Ok(())
}

/// Take an entry out of the outbox, with any node's claim on it; true if
/// it was queued.
pub(crate) fn unqueue(tx: &Tx, key: &str) -> anyhow::Result<bool> {
    tx.remove(crate::store::OUTBOX_CLAIMS, key)?;
    tx.remove(OUTBOX, key)
}

/// The message envelope (SPEC §6.1).
#[derive(Debug, Clone, Serialize)]
pub struct Envelope<'a> {
    pub id: &'a str,
    #[serde(rename = "type")]
    pub event_type: &'a str,
    pub created: &'a str,
    pub data: &'a Value,
    /// True on test deliveries only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub test: bool,
}

/// The bytes of an envelope under a dated version. One version exists, so
/// every pin serializes the same way; a later version that changes a payload
/// branches here.
pub fn serialize_for_version(version: &str, envelope: &Envelope<'_>) -> anyhow::Result<String> {
    match version {
        CURRENT_VERSION => Ok(serde_json::to_string(envelope)?),
        other => {
            tracing::warn!(
                version = other,
                "unknown pinned version; serializing under {CURRENT_VERSION}"
            );
            Ok(serde_json::to_string(envelope)?)
        }
    }
}

/// The endpoints of an account in a mode, oldest first.
/// One endpoint, by id.
pub fn endpoint(tx: &Tx, id: &str) -> anyhow::Result<Option<Endpoint>> {
    tx.get_json(WEBHOOKS, id)
}

/// The newest `limit` attempts logged under `log_target` (an endpoint id).
pub fn attempts_of(tx: &Tx, log_target: &str, limit: usize) -> anyhow::Result<Vec<Attempt>> {
    Ok(tx
        .scan_json::<Attempt>(ATTEMPTS, &crate::prefix!(log_target), None, limit, true)?
        .into_iter()
        .map(|(_, a)| a)
        .collect())
}

pub fn endpoints_of(tx: &Tx, account: &str, mode: Mode) -> anyhow::Result<Vec<Endpoint>> {
    let prefix = crate::prefix!(account, mode);
    let ids = index_ids(tx, &prefix, None, usize::MAX, false)?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(ep) = tx.get_json::<Endpoint>(WEBHOOKS, &id)? {
            out.push(ep);
        }
    }
    Ok(out)
}

/// Endpoint ids from the listing index, as `Tx::scan_str` walks it.
pub(super) fn index_ids(
    tx: &Tx,
    prefix: &str,
    after: Option<&str>,
    limit: usize,
    rev: bool,
) -> anyhow::Result<Vec<String>> {
    Ok(tx
        .scan_str(WEBHOOK_INDEX, prefix, after, limit, rev)?
        .into_iter()
        .map(|(_, id)| id)
        .collect())
}

/// Enqueue `event_type` with `data` for the account's subscribed endpoints
/// in this mode, and for `run_webhook_url` when the run named one.
pub fn emit(
    tx: &Tx,
    account: &str,
    mode: Mode,
    event_type: &str,
    data: impl serde::Serialize,
    run_webhook_url: Option<&str>,
) -> anyhow::Result<()> {
    let data = serde_json::to_value(data)?;
    let endpoints: Vec<Endpoint> = endpoints_of(tx, account, mode)?
        .into_iter()
        .filter(|e| e.wants(event_type))
        .collect();
    if endpoints.is_empty() && run_webhook_url.is_none() {
        return Ok(());
    }
    let msg_id = crate::ids::new_id("msg");
    let created = crate::time::now();
    let due_ms = chrono::Utc::now().timestamp_millis();
    let envelope = Envelope {
        id: &msg_id,
        event_type,
        created: &created,
        data: &data,
        test: false,
    };
    let entry = |target: Target, body: String| OutboxEntry {
        msg_id: msg_id.clone(),
        event_type: event_type.to_string(),
        account: account.to_string(),
        mode,
        target,
        body,
        attempts: 0,
        created_at: created.clone(),
        due_ms,
    };
    for ep in endpoints {
        let e = entry(
            Target::Endpoint { id: ep.id.clone() },
            serialize_for_version(&ep.fn_version, &envelope)?,
        );
        enqueue(tx, &e)?;
    }
    if let Some(url) = run_webhook_url {
        let pin = crate::accounts::get(tx, account)?
            .map(|a| a.fn_version)
            .unwrap_or_else(|| CURRENT_VERSION.to_string());
        default_secret(tx, account, mode)?;
        let e = entry(
            Target::Run {
                url: url.to_string(),
            },
            serialize_for_version(&pin, &envelope)?,
        );
        store::put_json(tx, OUTBOX, &e.key(), &e)?;
    }
    Ok(())
}

/// Queue a chat message (already in the service's format) for a channel
/// URL, delivered and retried by the same worker as webhooks.
pub fn post_to_channel(
    tx: &Tx,
    account: &str,
    mode: Mode,
    event_type: &str,
    url: &str,
    body: String,
) -> anyhow::Result<()> {
    let e = OutboxEntry {
        msg_id: crate::ids::new_id("msg"),
        event_type: event_type.to_string(),
        account: account.to_string(),
        mode,
        target: Target::Channel {
            url: url.to_string(),
        },
        body,
        attempts: 0,
        created_at: crate::time::now(),
        due_ms: chrono::Utc::now().timestamp_millis(),
    };
    store::put_json(tx, OUTBOX, &e.key(), &e)
}

/// Queue a message for an endpoint, and keep it for a manual redelivery.
pub fn enqueue(tx: &Tx, e: &OutboxEntry) -> anyhow::Result<()> {
    store::put_json(tx, OUTBOX, &e.key(), e)?;
    store::put_json(tx, MESSAGES, &crate::key!(e.log_target(), e.msg_id), e)
}

/// Emit balance.low when available crosses below the account's threshold.
pub fn balance_changed(
    tx: &Tx,
    account: &str,
    mode: Mode,
    before: &Balance,
    after: &Balance,
) -> anyhow::Result<()> {
    let Some(acct) = crate::accounts::get(tx, account)? else {
        return Ok(());
    };
    let threshold = acct.low_balance_threshold;
    if !(before.available() >= threshold && after.available() < threshold) {
        return Ok(());
    }
    let data = crate::wire::BalanceLowData {
        balance_usd: Usd(after.balance),
        available_usd: Usd(after.available()),
        threshold_usd: Usd(threshold),
        open_reserves_usd: Usd(after.open_reserves),
        auto_recharge: crate::wire::AutoRecharge::DISABLED,
    };
    emit(tx, account, mode, "balance.low", data, None)
}

/// The hard wall for a webhook target (https, public unicast addresses).
pub async fn check_target(
    policy: &crate::targets::Policy,
    url: &str,
) -> Result<(), crate::targets::Refused> {
    let parsed =
        url::Url::parse(url).map_err(|e| crate::targets::Refused(format!("not a URL: {e}")))?;
    policy
        .check(&parsed, crate::targets::Purpose::Webhook)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::Micros;
    use crate::store::Store;
    use serde_json::json;

    #[test]
    fn attempts_stored_by_earlier_versions_read_as_the_wire_shape() {
        let old = json!({
            "id": "att_1", "msg_id": "msg_1", "event_type": "session.answered", "attempt": 1,
            "at": "2026-11-01T00:00:00Z", "url": "https://h.example/", "duration_ms": 12,
            "status": 200, "error": null, "ok": true, "next_attempt_at": null,
            "dead_lettered": false, "dropped": false,
        });
        let a: Attempt = serde_json::from_value(old).unwrap();
        let answered = serde_json::to_value(&a).unwrap();
        assert_eq!(answered["type"], "session.answered");
        assert_eq!(answered["object"], "webhook_attempt");
        assert!(answered.get("event_type").is_none());
        let again: Attempt = serde_json::from_value(answered).unwrap();
        assert_eq!(again.event_type, "session.answered");
    }

    fn account(store: &Store, threshold_usd: i64) -> String {
        let mut a = crate::accounts::Account::new("t");
        a.low_balance_threshold = Micros::from_usd(threshold_usd);
        let id = a.id.clone();
        store.write(|tx| crate::accounts::put(tx, &a)).unwrap();
        id
    }

    fn endpoint(
        store: &Store,
        account: &str,
        mode: Mode,
        events: &[&str],
        disabled: bool,
    ) -> Endpoint {
        let ep = Endpoint {
            id: crate::ids::new_id("whep"),
            account: account.into(),
            mode,
            url: "https://hooks.example/in".into(),
            events: events.iter().map(|s| s.to_string()).collect(),
            description: None,
            secret: signing::new_secret(),
            fn_version: CURRENT_VERSION.into(),
            disabled,
            created_at: crate::time::now(),
            created_us: chrono::Utc::now().timestamp_micros(),
            last_delivery: None,
        };
        store
            .write(|tx| -> anyhow::Result<()> {
                store::put_json(tx, WEBHOOKS, &ep.id, &ep)?;
                tx.put_str(WEBHOOK_INDEX, ep.index_key().as_str(), ep.id.as_str())?;
                Ok(())
            })
            .unwrap();
        ep
    }

    fn outbox(store: &Store) -> Vec<OutboxEntry> {
        store
            .read(|tx| tx.scan_json::<OutboxEntry>(OUTBOX, "", None, usize::MAX, false))
            .unwrap()
            .into_iter()
            .map(|(_, e)| e)
            .collect()
    }

    #[test]
    fn emit_enqueues_one_message_per_subscribed_target() {
        let store = Store::in_memory().unwrap();
        let acct = account(&store, 5);
        let other = account(&store, 5);
        let a = endpoint(&store, &acct, Mode::Test, &["session.answered"], false);
        endpoint(&store, &acct, Mode::Test, &["session.error"], false);
        endpoint(&store, &acct, Mode::Test, &["session.answered"], true);
        endpoint(&store, &acct, Mode::Live, &["session.answered"], false);
        endpoint(&store, &other, Mode::Test, &["session.answered"], false);
        store
            .write(|tx| {
                emit(
                    tx,
                    &acct,
                    Mode::Test,
                    "session.answered",
                    json!({"session_id": "ses_1"}),
                    Some("https://run.example/hook"),
                )
            })
            .unwrap();
        let out = outbox(&store);
        assert_eq!(
            out.len(),
            2,
            "the subscribed enabled endpoint and the run's URL"
        );
        assert_eq!(out[0].msg_id, out[1].msg_id, "one message id per event");
        assert!(out
            .iter()
            .any(|e| e.target == Target::Endpoint { id: a.id.clone() }));
        assert!(out.iter().any(|e| e.target
            == Target::Run {
                url: "https://run.example/hook".into()
            }));
        let body: Value = serde_json::from_str(&out[0].body).unwrap();
        assert_eq!(body["id"], json!(out[0].msg_id));
        assert_eq!(body["type"], "session.answered");
        assert_eq!(body["data"]["session_id"], "ses_1");
        assert!(body["created"].is_string());
        // The run's URL made the default secret exist.
        assert!(store
            .read(|tx| read_default_secret(tx, &acct, Mode::Test))
            .unwrap()
            .is_some());
        assert!(store
            .read(|tx| read_default_secret(tx, &acct, Mode::Live))
            .unwrap()
            .is_none());
    }

    #[test]
    fn nothing_subscribed_writes_nothing() {
        let store = Store::in_memory().unwrap();
        let acct = account(&store, 5);
        endpoint(&store, &acct, Mode::Live, &["session.error"], false);
        store
            .write(|tx| emit(tx, &acct, Mode::Live, "session.answered", json!({}), None))
            .unwrap();
        assert!(outbox(&store).is_empty());
        assert!(store
            .read(|tx| read_default_secret(tx, &acct, Mode::Live))
            .unwrap()
            .is_none());
    }

    #[test]
    fn balance_low_fires_only_on_the_downward_crossing() {
        let store = Store::in_memory().unwrap();
        let acct = account(&store, 5);
        endpoint(&store, &acct, Mode::Live, &["balance.low"], false);
        let b = |bal: i64, res: i64| Balance {
            balance: Micros::from_usd(bal),
            open_reserves: Micros::from_usd(res),
        };
        let fire = |before: Balance, after: Balance| {
            store
                .write(|tx| balance_changed(tx, &acct, Mode::Live, &before, &after))
                .unwrap();
            outbox(&store).len()
        };
        assert_eq!(fire(b(10, 0), b(10, 4)), 0, "available 6 is above 5");
        assert_eq!(fire(b(10, 4), b(10, 6)), 1, "available 6 → 4 crosses");
        assert_eq!(
            fire(b(10, 6), b(10, 7)),
            1,
            "already below: no second message"
        );
        assert_eq!(fire(b(10, 7), b(10, 0)), 1, "going up never fires");
        assert_eq!(
            fire(b(5, 0), b(5, 1)),
            2,
            "exactly the threshold counts as above"
        );
        // Both crossings may share a millisecond: find the second by its reserves.
        let bodies: Vec<Value> = outbox(&store)
            .iter()
            .map(|e| serde_json::from_str(&e.body).unwrap())
            .collect();
        assert!(bodies.iter().all(|b| b["type"] == "balance.low"));
        let last = bodies
            .iter()
            .find(|b| b["data"]["balance_usd"].as_f64() == Some(5.0))
            .expect("the second crossing");
        let d = &last["data"];
        assert_eq!(d["threshold_usd"].as_f64(), Some(5.0));
        assert_eq!(d["open_reserves_usd"].as_f64(), Some(1.0));
        assert_eq!(d["auto_recharge"]["enabled"], false);
        assert_eq!(d["auto_recharge"]["amount_usd"].as_f64(), Some(0.0));
    }

    #[test]
    fn outbox_keys_sort_by_due_time() {
        let t = Target::Endpoint {
            id: "whep_x".into(),
        };
        assert!(outbox_key(999, "msg_b", &t) < outbox_key(1000, "msg_a", &t));
    }
}
