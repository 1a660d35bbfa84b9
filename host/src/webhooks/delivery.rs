//! The delivery worker: reads due outbox entries, POSTs their stored bytes
//! signed per Standard Webhooks, logs every attempt, and reschedules or
//! dead-letters failures.
//!
//! At-least-once: an entry leaves the outbox only in the transaction that
//! records its success, its dead-letter or its drop. A crash between the
//! POST and that commit means the message is sent again after restart, so
//! receivers dedupe on the message id.

use std::collections::HashSet;
use std::error::Error as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::{Notify, Semaphore};

use super::{log_attempt, signing, Attempt, Endpoint, LastDelivery, OutboxEntry, Target};
use super::{DEAD_LETTERS, OUTBOX, WEBHOOKS};
use crate::state::AppState;
use crate::store::{self, Tx};
use crate::targets::{Policy, Purpose};

/// `outbox_claims`, read and written through this module only.
const OUTBOX_CLAIMS: store::Table<Claim> = store::OUTBOX_CLAIMS.holding();

/// How long a claim outlives its attempt's timeout.
const CLAIM_MARGIN_MS: i64 = 5_000;
/// The scope of the outbox's own writes (claims, attempts, retries): beside
/// the accounts' writes, which only add messages under fresh keys.
const OUTBOX_SCOPE: &str = "webhook-outbox";

/// A node's claim on an outbox entry it is delivering.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Claim {
    node: String,
    until_ms: i64,
}

/// Is the entry claimed by a delivery (of any node) that has not lapsed?
fn claimed_elsewhere(tx: &Tx, key: &str, now: i64) -> anyhow::Result<bool> {
    Ok(tx
        .get_json::<Claim>(OUTBOX_CLAIMS, key)?
        .is_some_and(|c| c.until_ms > now))
}

/// Due entries not being delivered here or by another node, at most
/// `room`, and when the first entry not yet due will be.
fn due_unclaimed(
    tx: &Tx,
    now: i64,
    busy: &HashSet<String>,
    room: usize,
) -> anyhow::Result<(Vec<(String, OutboxEntry)>, Option<i64>)> {
    let mut batch = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page: Vec<(String, OutboxEntry)> =
            tx.scan_json(OUTBOX, "", after.as_deref(), 256, false)?;
        let Some((last, _)) = page.last() else {
            return Ok((batch, None));
        };
        after = Some(last.clone());
        for (key, entry) in page {
            let due = due_of(&key);
            if due > now {
                return Ok((batch, Some(due)));
            }
            if busy.contains(&key) || claimed_elsewhere(tx, &key, now)? {
                continue;
            }
            if batch.len() >= room {
                // A finishing delivery kicks the worker again.
                return Ok((batch, None));
            }
            batch.push((key, entry));
        }
    }
}

/// Deliveries in flight at once.
pub const CONCURRENCY: usize = 16;
/// The worker looks at the outbox at least this often, kicked or not.
const IDLE_POLL: Duration = Duration::from_secs(1);
const USER_AGENT: &str = "fnhost-webhooks/0.1";

struct Worker {
    state: AppState,
    policy: Policy,
    client: reqwest::Client,
    minute_ms: u64,
    timeout: Duration,
    permits: Arc<Semaphore>,
    /// Outbox keys being delivered now.
    in_flight: Mutex<HashSet<String>>,
    wake: Arc<Notify>,
    sweep: Arc<AtomicBool>,
}

/// Start the delivery worker on the current runtime. It resumes every
/// pending message.
pub fn start(state: AppState) -> anyhow::Result<()> {
    let super::Signals { wake, sweep } = state.webhooks.signals();
    let cfg = state.config.webhooks.clone();
    let mut roots = Vec::new();
    if let Some(path) = &cfg.extra_root_cert {
        let pem = std::fs::read(path).with_context(|| {
            format!("failed to read webhooks.extra_root_cert {}", path.display())
        })?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem).with_context(|| {
            format!(
                "webhooks.extra_root_cert {} is not PEM certificates",
                path.display()
            )
        })?;
        anyhow::ensure!(
            !certs.is_empty(),
            "webhooks.extra_root_cert {} holds no certificate",
            path.display()
        );
        tracing::info!(path = %path.display(), certificates = certs.len(), "webhook deliveries trust an extra root certificate");
        roots = certs;
    }
    let timeout = Duration::from_secs(cfg.timeout_s.max(1));
    let policy = state.config.target_policy();
    let client = policy.client(timeout, &roots, USER_AGENT);
    // Messages of endpoints disabled or deleted while the server was down.
    sweep.store(true, Ordering::SeqCst);
    let worker = Arc::new(Worker {
        state,
        policy,
        client,
        minute_ms: cfg.schedule_minute_ms,
        timeout,
        permits: Arc::new(Semaphore::new(CONCURRENCY)),
        in_flight: Mutex::new(HashSet::new()),
        wake,
        sweep,
    });
    crate::supervise::supervise("webhook deliveries", move || worker.clone().run());
    Ok(())
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

fn due_of(key: &str) -> i64 {
    key.get(..20).and_then(|d| d.parse().ok()).unwrap_or(0)
}

/// A delivery under way: dropping it frees its outbox entry and permit.
struct InFlight {
    worker: Arc<Worker>,
    key: String,
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.worker
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.key);
        drop(self.permit.take());
        self.worker.wake.notify_one();
    }
}

impl Worker {
    async fn run(self: Arc<Self>) {
        loop {
            if self.sweep.swap(false, Ordering::SeqCst) {
                if let Err(e) = self.drop_unwanted().await {
                    tracing::error!(error = ?e, "webhooks: dropping messages of disabled endpoints failed");
                }
            }
            let next_due = match self.dispatch_due().await {
                Ok(next) => next,
                Err(e) => {
                    tracing::error!(error = ?e, "webhooks: reading the outbox failed");
                    None
                }
            };
            let wait = match next_due {
                Some(due) => Duration::from_millis((due - now_ms()).max(0) as u64).min(IDLE_POLL),
                None => IDLE_POLL,
            };
            tokio::select! {
                _ = self.wake.notified() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Start deliveries for due entries while permits last; return when the
    /// next entry not yet due will be.
    ///
    /// Due entries are claimed in the store before they are sent, so that
    /// with several nodes on one database each message is delivered by one
    /// node at a time; a claim lapses after the attempt's timeout and a
    /// margin, so a message whose node died mid-delivery is sent again by
    /// another.
    async fn dispatch_due(self: &Arc<Self>) -> anyhow::Result<Option<i64>> {
        let room = self.permits.available_permits();
        let busy: HashSet<String> = self.in_flight.lock().unwrap().clone();
        let now = now_ms();
        let (candidates, next) = self
            .state
            .store
            .read_async(move |tx| due_unclaimed(tx, now, &busy, room))
            .await?;
        if candidates.is_empty() {
            return Ok(next);
        }
        let hold_ms = self.timeout.as_millis() as i64 + CLAIM_MARGIN_MS;
        let batch = self
            .state
            .store
            .write_async_in(
                crate::store::Scope::Object(OUTBOX_SCOPE),
                move |tx| -> anyhow::Result<Vec<(String, OutboxEntry)>> {
                    let mut claimed = Vec::new();
                    for (key, entry) in candidates {
                        // Still queued, and not claimed since the read.
                        if tx.get_json::<OutboxEntry>(OUTBOX, &key)?.is_none()
                            || claimed_elsewhere(tx, &key, now)?
                        {
                            continue;
                        }
                        // From the moment of the claim, not of the read before it.
                        let claim = Claim {
                            node: tx.node().to_string(),
                            until_ms: now_ms() + hold_ms,
                        };
                        tx.put_json(OUTBOX_CLAIMS, &key, &claim)?;
                        claimed.push((key, entry));
                    }
                    Ok(claimed)
                },
            )
            .await?;
        for (key, entry) in batch {
            let Ok(permit) = self.permits.clone().try_acquire_owned() else {
                break;
            };
            self.in_flight.lock().unwrap().insert(key.clone());
            let me = self.clone();
            // The guard frees the entry however the task ends (a panic
            // included), so the message stays queued and is tried again.
            let guard = InFlight {
                worker: me.clone(),
                key: key.clone(),
                permit: Some(permit),
            };
            tokio::spawn(async move {
                if let Err(e) = me.deliver(&key, entry).await {
                    tracing::error!(error = ?e, key = %key, "webhooks: delivery bookkeeping failed; the message stays queued");
                }
                drop(guard);
            });
        }
        Ok(next)
    }

    /// One attempt at one outbox entry, and its bookkeeping.
    async fn deliver(&self, key: &str, entry: OutboxEntry) -> anyhow::Result<()> {
        // Where and with which secrets, read now: a PATCHed URL or a rotated
        // secret applies to messages already queued.
        let target = entry.target.clone();
        let (account, mode) = (entry.account.clone(), entry.mode);
        let resolved = self
            .state
            .store
            .read_async(
                move |tx| -> anyhow::Result<Result<(String, Vec<String>), String>> {
                    Ok(match &target {
                        Target::Endpoint { id } => match tx.get_json::<Endpoint>(WEBHOOKS, id)? {
                            None => Err("the endpoint was deleted; message dropped".into()),
                            Some(ep) if ep.disabled => {
                                Err("the endpoint is disabled; message dropped".into())
                            }
                            Some(ep) => Ok((ep.url, vec![ep.secret])),
                        },
                        Target::Channel { url } => Ok((url.clone(), Vec::new())),
                        Target::Run { url } => {
                            match super::read_default_secret(tx, &account, mode)? {
                                Some(s) => Ok((
                                    url.clone(),
                                    s.signing_secrets()
                                        .into_iter()
                                        .map(str::to_string)
                                        .collect(),
                                )),
                                None => Err(
                                    "the account has no default webhook secret; message dropped"
                                        .into(),
                                ),
                            }
                        }
                    })
                },
            )
            .await?;
        let (url, secrets) = match resolved {
            Ok(x) => x,
            Err(reason) => return self.drop_entry(key, entry, reason).await,
        };

        let number = entry.attempts + 1;
        let at = chrono::Utc::now();
        let started = Instant::now();
        let outcome = self.post(&url, &secrets, &entry).await;
        let duration_ms = started.elapsed().as_millis() as u64;
        let (status, error) = match outcome {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(e)),
        };
        let ok = status.is_some_and(|s| (200..300).contains(&s));
        let delay = if ok {
            None
        } else {
            signing::retry_delay_ms(number, self.minute_ms)
        };
        if ok {
            tracing::debug!(msg_id = %entry.msg_id, url = %url, attempt = number, "webhook delivered");
        } else {
            tracing::info!(msg_id = %entry.msg_id, url = %url, attempt = number, ?status, ?error, "webhook attempt failed");
        }

        let key = key.to_string();
        self.state
            .store
            .write_async_in(
                crate::store::Scope::Object(OUTBOX_SCOPE),
                move |tx| -> anyhow::Result<()> {
                    let still_queued = super::unqueue(tx, &key)?;
                    let endpoint = match &entry.target {
                        Target::Endpoint { id } => tx.get_json::<Endpoint>(WEBHOOKS, id)?,
                        Target::Run { .. } | Target::Channel { .. } => None,
                    };
                    // Disabled or deleted during the attempt: no retry.
                    let unwanted = matches!(&entry.target, Target::Endpoint { .. })
                        && endpoint.as_ref().is_none_or(|e| e.disabled);
                    let retry_at = match delay {
                        Some(d) if still_queued && !unwanted => {
                            Some(at.timestamp_millis() + duration_ms as i64 + d as i64)
                        }
                        _ => None,
                    };
                    let dead = !ok && retry_at.is_none() && !unwanted;
                    let attempt = Attempt {
                        id: crate::ids::new_id("att"),
                        object: "webhook_attempt",
                        msg_id: entry.msg_id.clone(),
                        event_type: entry.event_type.clone(),
                        attempt: number,
                        at: crate::time::format(at),
                        url: Some(url.clone()),
                        duration_ms,
                        status,
                        error,
                        ok,
                        next_attempt_at: retry_at
                            .and_then(chrono::DateTime::from_timestamp_millis)
                            .map(crate::time::format),
                        dead_lettered: dead,
                        dropped: false,
                    };
                    log_attempt(tx, &entry.log_target(), &attempt)?;
                    if let Some(mut ep) = endpoint {
                        ep.last_delivery = Some(LastDelivery {
                            msg_id: entry.msg_id.clone(),
                            at: attempt.at.clone(),
                            status,
                            ok,
                        });
                        store::put_json(tx, WEBHOOKS, &ep.id.clone(), &ep)?;
                    }
                    if !still_queued {
                        return Ok(());
                    }
                    if let Some(due) = retry_at {
                        let next = OutboxEntry {
                            attempts: number,
                            due_ms: due,
                            ..entry
                        };
                        store::put_json(tx, OUTBOX, &next.key(), &next)?;
                    } else if dead {
                        // Kept for inspection and a later manual redelivery.
                        let kept = OutboxEntry {
                            attempts: number,
                            ..entry
                        };
                        store::put_json(
                            tx,
                            DEAD_LETTERS,
                            &crate::key!(kept.log_target(), kept.msg_id),
                            &kept,
                        )?;
                    } else if unwanted && !ok {
                        log_attempt(
                            tx,
                            &entry.log_target(),
                            &drop_record(
                                &entry,
                                "the endpoint was disabled or deleted; message dropped",
                            ),
                        )?;
                    }
                    Ok(())
                },
            )
            .await
    }

    /// POST the stored bytes: the status, or why there was none.
    async fn post(
        &self,
        url: &str,
        secrets: &[String],
        entry: &OutboxEntry,
    ) -> Result<u16, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("not a URL: {e}"))?;
        // Re-checked at every attempt; the client's resolver checks again at
        // connect time, so a name cannot rebind in between.
        self.policy
            .check(&parsed, Purpose::Webhook)
            .await
            .map_err(|e| e.to_string())?;
        let mut request = self
            .client
            .post(parsed)
            .header("content-type", "application/json");
        // A chat channel's URL is its secret: its message goes unsigned.
        if !matches!(entry.target, Target::Channel { .. }) {
            let timestamp = chrono::Utc::now().timestamp();
            let refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
            let signature =
                signing::signature_header(&refs, &entry.msg_id, timestamp, entry.body.as_bytes())
                    .map_err(|e| e.to_string())?;
            request = request
                .header("webhook-id", &entry.msg_id)
                .header("webhook-timestamp", timestamp.to_string())
                .header("webhook-signature", signature);
        }
        let sent = request.body(entry.body.clone()).send().await;
        match sent {
            Ok(resp) => Ok(resp.status().as_u16()),
            Err(e) if e.is_timeout() => {
                Err(format!("no answer within {} s", self.timeout.as_secs()))
            }
            Err(e) => Err(error_chain(&e)),
        }
    }

    /// Remove an entry unsent, with a record saying why.
    async fn drop_entry(
        &self,
        key: &str,
        entry: OutboxEntry,
        reason: String,
    ) -> anyhow::Result<()> {
        let key = key.to_string();
        self.state
            .store
            .write_async_in(
                crate::store::Scope::Object(OUTBOX_SCOPE),
                move |tx| -> anyhow::Result<()> {
                    if super::unqueue(tx, &key)? {
                        log_attempt(tx, &entry.log_target(), &drop_record(&entry, &reason))?;
                    }
                    Ok(())
                },
            )
            .await
    }

    /// Drop every queued message of a disabled or deleted endpoint, except
    /// those being delivered now (their own bookkeeping drops them).
    async fn drop_unwanted(&self) -> anyhow::Result<()> {
        let busy: HashSet<String> = self.in_flight.lock().unwrap().clone();
        let dropped = self
            .state
            .store
            .write_async(move |tx| -> anyhow::Result<usize> {
                let all: Vec<(String, OutboxEntry)> =
                    tx.scan_json(OUTBOX, "", None, usize::MAX, false)?;
                let mut n = 0;
                for (key, entry) in all {
                    let Target::Endpoint { id } = &entry.target else {
                        continue;
                    };
                    if busy.contains(&key) || claimed_elsewhere(tx, &key, now_ms())? {
                        continue;
                    }
                    let reason = match tx.get_json::<Endpoint>(WEBHOOKS, id)? {
                        None => "the endpoint was deleted; message dropped",
                        Some(ep) if ep.disabled => "the endpoint is disabled; message dropped",
                        Some(_) => continue,
                    };
                    super::unqueue(tx, &key)?;
                    log_attempt(tx, &entry.log_target(), &drop_record(&entry, reason))?;
                    n += 1;
                }
                Ok(n)
            })
            .await?;
        if dropped > 0 {
            tracing::info!(
                dropped,
                "webhooks: dropped queued messages of disabled or deleted endpoints"
            );
        }
        Ok(())
    }
}

fn drop_record(entry: &OutboxEntry, reason: &str) -> Attempt {
    Attempt {
        id: crate::ids::new_id("att"),
        object: "webhook_attempt",
        msg_id: entry.msg_id.clone(),
        event_type: entry.event_type.clone(),
        attempt: 0,
        at: crate::time::now(),
        url: match &entry.target {
            Target::Run { url } | Target::Channel { url } => Some(url.clone()),
            Target::Endpoint { .. } => None,
        },
        duration_ms: 0,
        status: None,
        error: Some(reason.to_string()),
        ok: false,
        next_attempt_at: None,
        dead_lettered: false,
        dropped: true,
    }
}

/// An error with its causes: reqwest's own text alone rarely says why.
fn error_chain(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}
