//! Monitors (preview switch `monitors`): catalogs watched on a cadence,
//! each run paid for within its cap and diffed against the last good run
//! (SPEC §2.5, §3.3, §4.3, §6.3).
//!
//! A monitor is a stored schedule ([`Monitor`], table `monitors`) and a log
//! of its runs ([`MonitorRun`], table `monitor_runs`). A run is one
//! extraction per watched URL, or one session of the watched query, opened
//! as any extraction or session is (caps, reservation, receipts, settlement,
//! crash recovery); the monitor only starts them and, once they have ended,
//! diffs, bills its lifetime and tells (see [`scheduler`]).

pub mod api;
pub mod changes;
pub mod channels;
pub mod scheduler;

use serde::{Deserialize, Serialize};

use crate::accounts::Mode;
use crate::money::Micros;
use crate::store::{self, Tx};
use crate::wire::Usd;

pub use crate::wire::{MAX_CADENCE_S, MAX_WATCH_URLS, MIN_CADENCE_S};

/// `monitors`, read and written through this module only.
const MONITORS: store::Table<Monitor> = store::MONITORS.holding();

/// `monitor_runs`, read and written through this module only.
const MONITOR_RUNS: store::Table<MonitorRun> = store::MONITOR_RUNS.holding();
/// Consecutive failed runs after which a monitor pauses itself (SPEC §8).
pub const AUTO_PAUSE_AFTER: u32 = 3;

/// What a monitor watches: catalog URLs (each read as an extraction of
/// `entity`), or a query (run as a session); stored as the API shows it.
pub use crate::wire::MonitorWatch as Watch;

/// active, failing (the last run failed) or paused (SPEC §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MonitorStatus {
    Active,
    Failing,
    Paused,
}

impl MonitorStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            MonitorStatus::Active => "active",
            MonitorStatus::Failing => "failing",
            MonitorStatus::Paused => "paused",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Monitor {
    pub id: String,
    pub account: String,
    pub mode: Mode,
    /// The key that created it: runs are authorized (and capped) as it.
    pub key_id: String,
    pub name: String,
    pub watch: Watch,
    pub cadence_s: u64,
    pub max_spend_per_run: Micros,
    pub webhook_url: Option<String>,
    pub status: MonitorStatus,
    pub consecutive_failures: u32,
    /// When the next run is due (ms since the epoch); None while paused.
    pub next_run_ms: Option<i64>,
    /// The run in flight, if any: at most one at a time.
    pub running: Option<MonitorRun>,
    pub last_run: Option<MonitorRun>,
    /// What the next run is diffed against: the extractions or session of
    /// the last successful run (None before the first).
    pub baseline: Option<Vec<String>>,
    /// Older runs (extractions or sessions, newest first) whose rows still
    /// stand in the baseline: their pages went unread by the runs after
    /// them (a failed page removes nothing, and its products are not new
    /// when it is read again).
    #[serde(default)]
    pub carried: Vec<String>,
    pub lifetime_spend: Micros,
    pub runs: u64,
    /// What is worth telling.
    #[serde(default)]
    pub notify_on: crate::wire::NotifyOn,
    /// Chat channels told of notified changes.
    #[serde(default)]
    pub channels: Vec<crate::wire::MonitorChannel>,
    /// The secret of the feed's key-less URL; a new one revokes the old.
    #[serde(default)]
    pub feed_token: String,
    pub created_at: String,
    pub created_us: i64,
    pub updated_at: String,
}

/// One run of a monitor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonitorRun {
    pub id: String,
    pub monitor_id: String,
    /// 1, 2, ...: the run's place in the monitor's log.
    pub n: u64,
    /// running, changed, unchanged or failed.
    pub outcome: String,
    /// The extractions (`ext_…`) or session (`ses_…`) it ran.
    pub runs: Vec<String>,
    pub started_at: String,
    pub fired_at: Option<String>,
    pub rows: u64,
    #[serde(flatten)]
    pub counts: crate::wire::DiffCounts,
    pub cost: Micros,
    pub receipt_id: Option<String>,
    pub reason: Option<String>,
    /// The event type it sent, if any.
    pub webhook: Option<String>,
    /// Its item-level changes (at most `changes::MAX_KEPT`).
    #[serde(default)]
    pub changes: Vec<crate::wire::MonitorChange>,
    /// How many changes `notify_on` selected.
    #[serde(default)]
    pub notified: u64,
    /// The monitor's first good run: the baseline, which notifies nothing.
    #[serde(default)]
    pub baseline: bool,
}

impl MonitorRun {
    pub fn to_wire(&self) -> crate::wire::MonitorRun {
        let (extraction_ids, session_id) = if self.runs.iter().any(|r| r.starts_with("ses_")) {
            (Vec::new(), self.runs.first().cloned())
        } else {
            (self.runs.clone(), None)
        };
        crate::wire::MonitorRun {
            id: self.id.clone(),
            object: "monitor_run",
            monitor_id: self.monitor_id.clone(),
            outcome: self.outcome.clone(),
            started_at: self.started_at.clone(),
            fired_at: self.fired_at.clone(),
            rows: self.rows,
            counts: self.counts,
            notified: self.notified,
            baseline: self.baseline,
            cost_usd: Usd(self.cost),
            receipt_id: self.receipt_id.clone(),
            extraction_ids,
            session_id,
            reason: self.reason.clone(),
            webhook: self.webhook.clone(),
        }
    }
}

impl Monitor {
    /// Runs in 30 days at the cadence, times the cap: the most it can spend
    /// in a month.
    pub fn worst_case_monthly(cadence_s: u64, cap: Micros) -> Micros {
        let runs = (30 * 86_400_u64).div_ceil(cadence_s.max(1));
        Micros(cap.0.saturating_mul(runs as i64))
    }

    /// The key-less URL of the monitor's Atom feed.
    pub fn feed_url(&self, public_url: &str) -> String {
        format!(
            "{public_url}/v1/monitors/{}/feed?token={}",
            self.id, self.feed_token
        )
    }

    pub fn to_wire(&self, public_url: &str) -> crate::wire::Monitor {
        crate::wire::Monitor {
            id: self.id.clone(),
            object: "monitor",
            livemode: self.mode == Mode::Live,
            status: self.status.as_str(),
            name: self.name.clone(),
            watch: self.watch.clone(),
            cadence_s: self.cadence_s,
            max_spend_usd_per_run: Usd(self.max_spend_per_run),
            worst_case_monthly_usd: Usd(Monitor::worst_case_monthly(
                self.cadence_s,
                self.max_spend_per_run,
            )),
            webhook_url: self.webhook_url.clone(),
            notify_on: self.notify_on.clone(),
            channels: self.channels.clone(),
            feed_url: self.feed_url(public_url),
            last_run: self.last_run.as_ref().map(MonitorRun::to_wire),
            running: self.running.as_ref().map(|r| r.id.clone()),
            next_run_at: self.next_run_ms.map(crate::time::from_millis),
            consecutive_failures: self.consecutive_failures,
            lifetime_spend_usd: Usd(self.lifetime_spend),
            runs: self.runs,
            created_at: self.created_at.clone(),
            updated_at: self.updated_at.clone(),
        }
    }
}

// ---- storage: the monitors and monitor_runs tables are read and written here only ----

pub fn get(tx: &Tx, id: &str) -> anyhow::Result<Option<Monitor>> {
    tx.get_json(MONITORS, id)
}

pub fn put(tx: &Tx, m: &Monitor) -> anyhow::Result<()> {
    store::put_json(tx, MONITORS, &m.id, m)
}

pub fn delete(tx: &Tx, id: &str) -> anyhow::Result<()> {
    tx.remove(MONITORS, id)?;
    Ok(())
}

/// Every monitor (the scheduler's view).
pub fn all(tx: &Tx) -> anyhow::Result<Vec<Monitor>> {
    let all: Vec<(String, Monitor)> = tx.scan_json(MONITORS, "", None, usize::MAX, false)?;
    Ok(all.into_iter().map(|(_, m)| m).collect())
}

/// A run's log entry, written when it starts and again when it ends.
pub fn put_run(tx: &Tx, run: &MonitorRun) -> anyhow::Result<()> {
    store::put_json(tx, MONITOR_RUNS, &run_key(&run.monitor_id, run.n), run)
}

/// Removes a run that never started from the log.
pub fn delete_run(tx: &Tx, run: &MonitorRun) -> anyhow::Result<()> {
    tx.remove(MONITOR_RUNS, run_key(&run.monitor_id, run.n).as_str())?;
    Ok(())
}

/// A monitor's runs, newest first, after run number `before` (exclusive).
pub fn runs_of(
    tx: &Tx,
    monitor: &str,
    before: Option<u64>,
    limit: usize,
) -> anyhow::Result<Vec<MonitorRun>> {
    let end = before.map(|n| run_key(monitor, n));
    let runs: Vec<(String, MonitorRun)> = tx.scan_json(
        MONITOR_RUNS,
        &crate::prefix!(monitor),
        end.as_deref(),
        limit,
        true,
    )?;
    Ok(runs.into_iter().map(|(_, r)| r).collect())
}

fn run_key(monitor: &str, n: u64) -> String {
    crate::key!(monitor, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_case_is_a_month_of_runs_at_the_cap() {
        // Hourly at $0.10: 720 runs.
        assert_eq!(
            Monitor::worst_case_monthly(3600, Micros(100_000)),
            Micros(72_000_000)
        );
        // A cadence that does not divide the month rounds the runs up.
        assert_eq!(
            Monitor::worst_case_monthly(7 * 86_400, Micros(1)),
            Micros(5)
        );
    }
}
