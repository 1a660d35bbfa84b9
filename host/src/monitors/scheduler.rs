//! The monitor scheduler: a supervised task that, every tick, ends the runs
//! whose extractions or session have ended and starts the runs that are due.
//!
//! Everything it needs is stored, so a restart (or a kill -9) loses nothing:
//!
//! - a run is written to its monitor (`running`, with the ids of the
//!   extractions or session it will open) and the next run time is moved on
//!   in one transaction *before* anything is opened, so a monitor never has
//!   two runs and a crash between the two steps leaves a run whose children
//!   never existed: it ends as failed, having spent nothing;
//! - the children are extractions and sessions like any other, so after a
//!   crash they are ended by the server's recovery (their committed receipts
//!   settled, the rest released), and the next tick ends the monitor run;
//! - a monitor due while the server was down runs once when it is back, and
//!   its next run is a cadence after that, not once per missed slot.

use std::collections::{HashMap, HashSet};

use std::time::Duration;

use serde_json::Value;

use super::{Monitor, MonitorRun, MonitorStatus, AUTO_PAUSE_AFTER};
use crate::auth::Caller;
use crate::extractions::{self, Spec};
use crate::money::Micros;
use crate::sessions::lifecycle::Refused;
use crate::sessions::opening::{open_session, NewSession};
use crate::sessions::{self, Session, Status};
use crate::state::AppState;
use crate::store::{Scope, Tx};

/// The scheduler's loop (run under `supervise`).
pub async fn run(state: AppState) {
    let tick = Duration::from_millis(state.config.monitors.tick_ms.max(10));
    loop {
        if let Err(e) = tick_once(&state).await {
            tracing::error!(error = %e, "monitor scheduler tick failed");
        }
        tokio::time::sleep(tick).await;
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// One pass: end what has ended, start what is due (concurrently, so the
/// starts share the store's group commits).
pub async fn tick_once(state: &AppState) -> anyhow::Result<()> {
    if state.store.is_shared() {
        // One node schedules at a time; another takes over when its lease lapses.
        let lease_ms = state.config.node_lease_ms;
        let held = state
            .store
            .write_async_in(
                crate::store::Scope::Object(crate::nodes::MONITOR_SCHEDULER),
                move |tx| crate::nodes::hold(tx, crate::nodes::MONITOR_SCHEDULER, lease_ms),
            )
            .await?;
        if !held {
            return Ok(());
        }
    }
    let monitors = state.store.read_async(|tx| super::all(tx)).await?;
    let now = now_ms();
    let mut tasks = tokio::task::JoinSet::new();
    for m in monitors {
        let state = state.clone();
        if m.running.is_some() {
            tasks.spawn(async move { end_if_done(&state, &m.id).await });
        } else if m.status != MonitorStatus::Paused && m.next_run_ms.is_some_and(|t| t <= now) {
            tasks.spawn(async move { start(&state, &m.id).await });
        }
    }
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::error!(error = %e, "a monitor run could not be moved on"),
            Err(e) => tracing::error!(error = %e, "a monitor task panicked"),
        }
    }
    Ok(())
}

/// The scope of a write to a monitor and its runs: its account's (which
/// never changes), read first on a shared database, where scopes are locks.
async fn monitor_scope(state: &AppState, id: &str) -> anyhow::Result<Scope> {
    if !state.store.is_shared() {
        return Ok(Scope::All);
    }
    let id = id.to_string();
    let monitor = state
        .store
        .read_async(move |tx| super::get(tx, &id))
        .await?;
    Ok(monitor.map_or(Scope::All, |m| Scope::Account(m.account)))
}

/// The caller a monitor's runs act as: its key and account, unless the key
/// was revoked or removed.
fn caller_of(tx: &Tx, m: &Monitor) -> anyhow::Result<Result<Caller, String>> {
    let Some(key) = crate::keys::get(tx, &m.key_id)? else {
        return Ok(Err("the monitor's key no longer exists".into()));
    };
    if key.revoked_at.is_some() {
        return Ok(Err("the monitor's key was revoked".into()));
    }
    let Some(account) = crate::accounts::get(tx, &m.account)? else {
        return Ok(Err("the monitor's account no longer exists".into()));
    };
    Ok(Ok(Caller { key, account }))
}

/// Starts a due run: recorded first, then its extractions or session opened.
async fn start(state: &AppState, id: &str) -> anyhow::Result<()> {
    let second_ms = state.config.monitors.second_ms as i64;
    let id_c = id.to_string();
    let scope = monitor_scope(state, id).await?;
    let begun = state
        .store
        .write_async_in(
            scope,
            move |tx| -> anyhow::Result<Option<(MonitorRun, Monitor, Result<Caller, String>)>> {
                let Some(mut m) = super::get(tx, &id_c)? else {
                    return Ok(None);
                };
                let now = now_ms();
                let due = m.running.is_none()
                    && m.status != MonitorStatus::Paused
                    && m.next_run_ms.is_some_and(|t| t <= now);
                if !due {
                    return Ok(None);
                }
                let caller = caller_of(tx, &m)?;
                let children: Vec<String> = match &m.watch.urls {
                    Some(urls) => urls.iter().map(|_| crate::ids::new_id("ext")).collect(),
                    None => vec![crate::ids::new_id("ses")],
                };
                m.runs += 1;
                let run = MonitorRun {
                    id: crate::ids::new_id("run"),
                    monitor_id: m.id.clone(),
                    n: m.runs,
                    outcome: "running".into(),
                    runs: children,
                    started_at: crate::time::now(),
                    fired_at: None,
                    rows: 0,
                    counts: Default::default(),
                    cost: Micros::ZERO,
                    receipt_id: None,
                    reason: None,
                    webhook: None,
                    changes: Vec::new(),
                    notified: 0,
                    baseline: false,
                };
                m.running = Some(run.clone());
                // Once, however many slots were missed; the next a cadence on.
                m.next_run_ms = Some(now + m.cadence_s as i64 * second_ms);
                m.updated_at = crate::time::now();
                super::put(tx, &m)?;
                super::put_run(tx, &run)?;
                Ok(Some((run, m, caller)))
            },
        )
        .await?;
    let Some((run, m, caller)) = begun else {
        return Ok(());
    };
    let opened = match caller {
        Err(reason) => Err(reason),
        Ok(caller) => match open_children(state, &caller, &m, &run).await {
            // The account's runs in flight are at their cap: nothing was
            // opened or reserved, so the run waits for a place instead of
            // counting as a failure.
            Err(Refused::RunsInFlight(_)) => {
                return postpone(state, id, &run).await;
            }
            other => other.map_err(|e| e.to_string()),
        },
    };
    match opened {
        // The children end on their own; a later tick ends the run.
        Ok(()) => Ok(()),
        Err(reason) => end(state, id, Some(reason)).await,
    }
}

/// Takes back a run that could not start for want of a run slot: it leaves
/// the log, and the monitor is due again at the next tick.
async fn postpone(state: &AppState, id: &str, run: &MonitorRun) -> anyhow::Result<()> {
    let scope = monitor_scope(state, id).await?;
    let (id, run) = (id.to_string(), run.clone());
    state
        .store
        .write_async_in(scope, move |tx| -> anyhow::Result<()> {
            let Some(mut m) = super::get(tx, &id)? else {
                return Ok(());
            };
            if m.running.as_ref().map(|r| &r.id) != Some(&run.id) {
                return Ok(());
            }
            m.running = None;
            m.runs -= 1;
            if m.status != MonitorStatus::Paused {
                m.next_run_ms = Some(now_ms());
            }
            super::delete_run(tx, &run)?;
            super::put(tx, &m)?;
            Ok(())
        })
        .await
}

/// Opens the run's extractions (the cap split evenly between its URLs) or
/// its session, as the monitor's key.
async fn open_children(
    state: &AppState,
    caller: &Caller,
    m: &Monitor,
    run: &MonitorRun,
) -> Result<(), Refused> {
    match (&m.watch.urls, &m.watch.query) {
        (Some(urls), _) => {
            let per_url = Micros(m.max_spend_per_run.0 / urls.len().max(1) as i64);
            let entity = m.watch.entity.clone().unwrap_or_else(|| "product".into());
            let made: Vec<Session> = urls
                .iter()
                .zip(&run.runs)
                .enumerate()
                .map(|(i, (url, child))| {
                    let mut e = extractions::new_extraction(
                        caller,
                        url,
                        &entity,
                        Spec {
                            guidance: m.watch.guidance.clone(),
                            metadata: None,
                            webhook_url: None,
                            max_spend: per_url,
                            render: None,
                        },
                    );
                    e.id = child.clone();
                    // The previous run's read of the same URL: sent as a
                    // conditional request.
                    e.conditional_on = m.baseline.as_ref().and_then(|b| b.get(i)).cloned();
                    e
                })
                .collect();
            extractions::open(state, caller, made, true, None).await?;
        }
        (None, Some(query)) => {
            let spec = NewSession {
                id: run.runs[0].clone(),
                query: query.clone(),
                max_spend: m.max_spend_per_run,
                guidance: m.watch.guidance.clone(),
                metadata: None,
                webhook_url: None,
            };
            open_session(state, caller, spec, None).await?;
        }
        (None, None) => {
            return Err(anyhow::anyhow!("the monitor watches nothing").into());
        }
    }
    Ok(())
}

/// Ends the monitor's run once all its children have ended.
async fn end_if_done(state: &AppState, id: &str) -> anyhow::Result<()> {
    let id_c = id.to_string();
    let pending = state
        .store
        .read_async(move |tx| -> anyhow::Result<bool> {
            let Some(m) = super::get(tx, &id_c)? else {
                return Ok(false);
            };
            let Some(run) = &m.running else {
                return Ok(false);
            };
            for child in &run.runs {
                if sessions::get(tx, child)?.is_some_and(|s| s.is_running()) {
                    return Ok(true);
                }
            }
            Ok(false)
        })
        .await?;
    if pending {
        return Ok(());
    }
    end(state, id, None).await
}

/// The rows a set of extractions or a session produced, as record JSON,
/// qualified rows only.
fn records_of(tx: &Tx, children: &[String]) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for child in children {
        let rows = sessions::rows(tx, child, 0, usize::MAX)?;
        out.extend(
            rows.into_iter()
                .filter(|r| r.qualified)
                .map(|r| Value::Object(r.record).to_string()),
        );
    }
    Ok(out)
}

/// The runs a baseline's rows may be carried from at most: a page that
/// fails longer than this many runs in a row has its products dropped from
/// the baseline (and told as new when it is read again).
const MAX_CARRIED_RUNS: usize = 32;

/// What a run is diffed against: the last successful run's rows, then the
/// rows of older runs (`Monitor::carried`, newest first) whose pages no
/// newer run read `ok`.
#[derive(Default)]
struct Baseline {
    /// Record JSON, qualified rows only.
    records: Vec<String>,
    /// Each row's page, by identity.
    pages: HashMap<String, String>,
}

impl Baseline {
    fn read(tx: &Tx, last: &[String], carried: &[String]) -> anyhow::Result<Baseline> {
        let mut out = Baseline {
            records: records_of(tx, last)?,
            pages: pages_of(tx, last)?,
        };
        let mut read_since = pages_read_ok(tx, last)?;
        for child in carried {
            for r in sessions::rows(tx, child, 0, usize::MAX)? {
                if !r.qualified || read_since.contains(&r.source.url) {
                    continue;
                }
                let identity = fnhost_differ::identity(&r.record);
                if out.pages.contains_key(&identity) {
                    continue;
                }
                out.pages.insert(identity, r.source.url);
                out.records.push(Value::Object(r.record).to_string());
            }
            read_since.extend(pages_read_ok(tx, std::slice::from_ref(child))?);
        }
        Ok(out)
    }
}

/// Where the baseline's products were seen, and which pages this run read
/// `ok`: a product counts as removed only when the page that showed it was
/// read again without it (a blocked, failed or unread page removes nothing).
struct Sighting {
    pages_read: HashSet<String>,
    /// The baseline's rows: identity → the page they were read from.
    base_pages: HashMap<String, String>,
}

impl Sighting {
    fn was_read(&self, identity: &str) -> bool {
        self.base_pages
            .get(identity)
            .is_some_and(|page| self.pages_read.contains(page))
    }
}

/// The pages a set of runs read with outcome `ok` (from their page events).
fn pages_read_ok(tx: &Tx, children: &[String]) -> anyhow::Result<HashSet<String>> {
    let mut out = HashSet::new();
    for child in children {
        for e in sessions::events::after(tx, child, 0, usize::MAX)? {
            if e.data["outcome"] == "ok" {
                if let Some(url) = e.data["url"].as_str() {
                    out.insert(url.to_string());
                }
            }
        }
    }
    Ok(out)
}

/// The page each qualified row of a set of runs was read from, by identity.
fn pages_of(tx: &Tx, children: &[String]) -> anyhow::Result<HashMap<String, String>> {
    let mut out = HashMap::new();
    for child in children {
        for r in sessions::rows(tx, child, 0, usize::MAX)? {
            if r.qualified {
                out.insert(fnhost_differ::identity(&r.record), r.source.url);
            }
        }
    }
    Ok(out)
}

/// Ends the monitor's run: `failure` when it could not start, else from
/// its children's ends. Diffs a successful run against the baseline, adds
/// its cost to the lifetime spend, moves the status and tells.
async fn end(state: &AppState, id: &str, failure: Option<String>) -> anyhow::Result<()> {
    let id_c = id.to_string();
    // What the children did, and the rows to diff.
    let read = state
        .store
        .read_async(
            move |tx| -> anyhow::Result<
                Option<(
                    Monitor,
                    Vec<Session>,
                    Option<(Vec<String>, Vec<String>)>,
                    Sighting,
                    bool,
                )>,
            > {
                let Some(m) = super::get(tx, &id_c)? else {
                    return Ok(None);
                };
                let Some(run) = &m.running else {
                    return Ok(None);
                };
                let mut children = Vec::new();
                for child in &run.runs {
                    if let Some(s) = sessions::get(tx, child)? {
                        children.push(s);
                    }
                }
                let before = match &m.baseline {
                    Some(last) => Baseline::read(tx, last, &m.carried)?,
                    None => Baseline::default(),
                };
                let sighting = Sighting {
                    pages_read: pages_read_ok(tx, &run.runs)?,
                    base_pages: before.pages,
                };
                // Rows of the baseline this run neither read again nor saw
                // elsewhere stand for the next run too.
                let seen_now = pages_of(tx, &run.runs)?;
                let carry = sighting.base_pages.iter().any(|(identity, page)| {
                    !sighting.pages_read.contains(page) && !seen_now.contains_key(identity)
                });
                let rows = Some((before.records, records_of(tx, &run.runs)?));
                Ok(Some((m, children, rows, sighting, carry)))
            },
        )
        .await?;
    let Some((m, children, rows, sighting, carry)) = read else {
        return Ok(());
    };
    let run = m.running.clone().expect("checked above");
    let cost = Micros(children.iter().map(|c| c.settled.0).sum());
    let failure = failure.or_else(|| {
        if children.len() < run.runs.len() {
            return Some("the run's extractions were never opened".into());
        }
        children
            .iter()
            .find(|c| c.status != Status::Answered)
            .map(|c| {
                let status = c.status_str();
                let why = c
                    .reason
                    .clone()
                    .or_else(|| c.error.as_ref().map(|(_, message)| message.clone()))
                    .unwrap_or_default();
                format!("{} ended {status}: {why}", c.id)
            })
    });
    let diff = match (&failure, rows) {
        (None, Some((before, after))) => {
            let rows = after.len() as u64;
            let (b, a) = (before.clone(), after.clone());
            match state.plugins.diff(before, after).await {
                Ok(mut d) => {
                    // Gone only from a page that was read, and read whole.
                    d.removed.retain(|identity| sighting.was_read(identity));
                    let changes = super::changes::classify(&b, &a, &d, &m.notify_on);
                    Ok((rows, d, changes))
                }
                Err(e) => Err(format!("the differ failed: {e}")),
            }
        }
        (Some(f), _) => Err(f.clone()),
        (None, None) => Err("the run's rows could not be read".into()),
    };
    let receipt_id = children.iter().find_map(|c| c.receipt_id.clone());
    let receipt_id = match receipt_id {
        Some(r) => Some(r),
        None => match children.first() {
            Some(c) if c.id.starts_with("ses_") => state
                .store
                .read(|tx| sessions::receipt_ids(tx, &c.id))
                .ok()
                .and_then(|r| r.into_iter().next()),
            _ => None,
        },
    };
    let id_c = id.to_string();
    let public_url = state.config.public_url();
    let scope = monitor_scope(state, id).await?;
    state
        .store
        .write_async_in(scope, move |tx| -> anyhow::Result<()> {
            let Some(mut m) = super::get(tx, &id_c)? else {
                return Ok(());
            };
            if m.running.as_ref().map(|r| &r.id) != Some(&run.id) {
                return Ok(());
            }
            let mut run = run;
            run.fired_at = Some(crate::time::now());
            run.cost = cost;
            run.receipt_id = receipt_id;
            m.running = None;
            m.lifetime_spend = m.lifetime_spend + cost;
            m.updated_at = crate::time::now();
            let base = |run: &MonitorRun| crate::wire::MonitorRunData {
                monitor_id: run.monitor_id.clone(),
                run_id: run.id.clone(),
                counts: run.counts,
                rows: run.rows,
                cost_usd: crate::wire::Usd(run.cost),
                receipt_id: run.receipt_id.clone(),
                reason: None,
                consecutive_failures: None,
                paused: None,
                changes: Vec::new(),
                notified: None,
                changes_url: None,
                baseline: None,
            };
            match diff {
                Ok((rows, d, changes)) => {
                    // The first good run is the baseline: it notifies nothing.
                    let first = m.baseline.is_none();
                    run.rows = rows;
                    run.baseline = first;
                    if !first {
                        run.counts = d.counts();
                        run.notified = changes.iter().filter(|c| c.notify).count() as u64;
                        run.changes = changes;
                        run.changes.truncate(super::changes::MAX_KEPT);
                    }
                    let c = run.counts;
                    let changed = c.added + c.removed + c.changed > 0;
                    run.outcome = match (first, changed) {
                        (true, _) => "baseline",
                        (false, true) => "changed",
                        (false, false) => "unchanged",
                    }
                    .into();
                    m.status = if m.status == MonitorStatus::Paused {
                        MonitorStatus::Paused
                    } else {
                        MonitorStatus::Active
                    };
                    m.consecutive_failures = 0;
                    m.carried = if carry {
                        let last = m.baseline.take().unwrap_or_default();
                        last.into_iter()
                            .chain(std::mem::take(&mut m.carried))
                            .take(MAX_CARRIED_RUNS)
                            .collect()
                    } else {
                        Vec::new()
                    };
                    m.baseline = Some(run.runs.clone());
                    // Told only when something `notify_on` selects moved;
                    // other runs go only to endpoints that subscribed to
                    // monitor.unchanged, never to the monitor's own URL.
                    let tell = run.notified > 0;
                    let event = if tell {
                        "monitor.changed"
                    } else {
                        "monitor.unchanged"
                    };
                    let own = if tell { m.webhook_url.as_deref() } else { None };
                    let mut data = base(&run);
                    let notified: Vec<&crate::wire::MonitorChange> =
                        run.changes.iter().filter(|c| c.notify).collect();
                    let changes_url =
                        format!("{public_url}/v1/monitors/{}/runs/{}/changes", m.id, run.id);
                    if tell {
                        data.changes = notified.iter().take(20).map(|c| (*c).clone()).collect();
                        data.notified = Some(run.notified);
                        data.changes_url = Some(changes_url.clone());
                        for channel in &m.channels {
                            let text = super::channels::message(
                                &channel.kind,
                                &m,
                                &run,
                                &notified,
                                &changes_url,
                            );
                            crate::webhooks::post_to_channel(
                                tx,
                                &m.account,
                                m.mode,
                                event,
                                &channel.url,
                                text.to_string(),
                            )?;
                        }
                    }
                    if first {
                        data.baseline = Some(true);
                    }
                    crate::webhooks::emit(tx, &m.account, m.mode, event, data, own)?;
                    run.webhook = Some(event.into());
                }
                Err(reason) => {
                    run.outcome = "failed".into();
                    run.reason = Some(reason.clone());
                    m.consecutive_failures += 1;
                    let pause = m.consecutive_failures >= AUTO_PAUSE_AFTER;
                    let mut data = base(&run);
                    data.reason = Some(reason);
                    data.consecutive_failures = Some(m.consecutive_failures);
                    if pause {
                        m.status = MonitorStatus::Paused;
                        m.next_run_ms = None;
                        data.paused = Some(true);
                    } else if m.status != MonitorStatus::Paused {
                        m.status = MonitorStatus::Failing;
                    }
                    crate::webhooks::emit(
                        tx,
                        &m.account,
                        m.mode,
                        "monitor.failed",
                        data,
                        m.webhook_url.as_deref(),
                    )?;
                    run.webhook = Some("monitor.failed".into());
                }
            }
            m.last_run = Some(run.clone());
            super::put_run(tx, &run)?;
            super::put(tx, &m)?;
            Ok(())
        })
        .await?;
    state.webhooks.kick();
    Ok(())
}
