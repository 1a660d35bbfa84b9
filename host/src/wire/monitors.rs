//! Monitors (preview: monitors) and their runs.

use serde::Serialize;
use utoipa::ToSchema;

use super::{list_of, Usd};

/// One run of a monitor.
#[derive(Debug, Serialize, ToSchema)]
pub struct MonitorRun {
    /// `run_...`
    pub id: String,
    /// `monitor_run`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub monitor_id: String,
    /// running, changed, unchanged or failed (open enum).
    pub outcome: String,
    pub started_at: String,
    /// When it ended.
    pub fired_at: Option<String>,
    pub rows: u64,
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
    pub price_moves: u64,
    #[schema(value_type = f64)]
    pub cost_usd: Usd,
    pub receipt_id: Option<String>,
    /// The extractions it ran (a URL watch).
    pub extraction_ids: Vec<String>,
    /// The session it ran (a query watch).
    pub session_id: Option<String>,
    /// Why it failed.
    pub reason: Option<String>,
    /// The event type it sent, if any.
    pub webhook: Option<String>,
}

/// A monitor (SPEC §2.5).
#[derive(Debug, Serialize, ToSchema)]
pub struct Monitor {
    /// `mon_...`
    pub id: String,
    /// `monitor`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub livemode: bool,
    /// active, failing or paused (open enum).
    #[schema(value_type = String)]
    pub status: &'static str,
    pub name: String,
    pub watch: super::MonitorWatch,
    pub cadence_s: u64,
    #[schema(value_type = f64)]
    pub max_spend_usd_per_run: Usd,
    /// Runs in 30 days at the cadence × the per-run cap.
    #[schema(value_type = f64)]
    pub worst_case_monthly_usd: Usd,
    pub webhook_url: Option<String>,
    pub last_run: Option<MonitorRun>,
    /// The run in flight (`run_...`), if any.
    pub running: Option<String>,
    /// Null while paused.
    pub next_run_at: Option<String>,
    pub consecutive_failures: u32,
    #[schema(value_type = f64)]
    pub lifetime_spend_usd: Usd,
    /// How many runs it has started.
    pub runs: u64,
    pub created_at: String,
    pub updated_at: String,
}

list_of!(MonitorList, Monitor);
list_of!(MonitorRunList, MonitorRun);

#[derive(Debug, Serialize, ToSchema)]
pub struct MonitorDeleted {
    pub id: String,
    /// `monitor`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub deleted: bool,
}

/// monitor.changed, monitor.unchanged and monitor.failed: a run's counts,
/// never its rows.
#[derive(Debug, Serialize, ToSchema)]
pub struct MonitorRunData {
    pub monitor_id: String,
    pub run_id: String,
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
    pub price_moves: u64,
    pub rows: u64,
    #[schema(value_type = f64)]
    pub cost_usd: Usd,
    pub receipt_id: Option<String>,
    /// Why the run failed; monitor.failed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// monitor.failed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consecutive_failures: Option<u32>,
    /// True on the monitor.failed that paused the monitor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
}
