//! Monitors (preview: monitors) and their runs.

use serde::Serialize;
use utoipa::ToSchema;

use super::money::Micros;
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
    /// Rows added, removed, changed and repriced against the run before.
    #[serde(flatten)]
    pub counts: super::DiffCounts,
    /// Changes `notify_on` selected (GET /monitors/{id}/runs/{run_id}/changes lists them all).
    pub notified: u64,
    /// True for a monitor's first good run: the baseline, which notifies nothing.
    pub baseline: bool,
    #[schema(value_type = f64)]
    pub cost_usd: Usd,
    /// The receipt of its rows, when it read some.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
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
    pub notify_on: super::NotifyOn,
    pub channels: Vec<super::MonitorChannel>,
    /// The Atom feed of the runs that notified, readable without a key
    /// while its token is not revoked (POST /monitors/{id}/feed/revoke).
    pub feed_url: String,
    /// Left out until the first run.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub last_run: Option<MonitorRun>,
    /// The run in flight (`run_...`), if any.
    pub running: Option<String>,
    /// Left out while paused.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
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
    /// Rows added, removed, changed and repriced against the run before.
    #[serde(flatten)]
    pub counts: super::DiffCounts,
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
    /// The changes `notify_on` selected, at most 20 (monitor.changed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<super::MonitorChange>,
    /// How many changes were selected in all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notified: Option<u64>,
    /// Where every change of the run is listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes_url: Option<String>,
    /// True on the first good run's monitor.unchanged: the baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<bool>,
}

/// The longest monitor name or entity.
pub const MAX_NAME_CHARS: usize = 200;

/// What a monitor watches: `urls` with `entity`, or `query`. Read from
/// POST /monitors, stored on the monitor, and shown as it is stored.
#[derive(Debug, Clone, PartialEq, ToSchema, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonitorWatch {
    /// 1 to 20 catalog URLs, each read as an extraction (with `entity`).
    #[schema(min_items = 1, max_items = 20)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urls: Option<Vec<String>>,
    /// What the URLs' records are (with `urls`), at most 200 characters.
    #[schema(min_length = 1, max_length = 200)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// A natural-language query run as a session (instead of `urls`).
    #[schema(min_length = 1, max_length = 2000)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Handed to the extractor as data, at most 2000 characters.
    #[schema(max_length = 2000)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guidance: Option<String>,
}

/// The most chat channels one monitor posts to.
pub const MAX_CHANNELS: usize = 5;

/// POST /monitors (preview: monitors).
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MonitorCreate {
    pub watch: MonitorWatch,
    /// Seconds between runs, 60 to 2592000.
    #[schema(minimum = 60, maximum = 2592000)]
    pub cadence_s: u64,
    /// Reserved by each run; runs settle only their receipts.
    #[schema(value_type = f64, minimum = 0.000001)]
    pub max_spend_usd_per_run: Micros,
    #[schema(max_length = 200)]
    pub name: Option<String>,
    /// Receives monitor.changed and monitor.failed (https, public).
    #[schema(format = "uri", max_length = 2048)]
    pub webhook_url: Option<String>,
    /// What is worth telling; members left out take their defaults.
    pub notify_on: Option<super::NotifyOn>,
    /// Chat channels told of notified changes.
    #[schema(max_items = 5)]
    pub channels: Option<Vec<super::MonitorChannel>>,
}

/// PATCH /monitors/{id} (preview: monitors): at least one member.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MonitorUpdate {
    pub paused: Option<bool>,
    #[schema(minimum = 60, maximum = 2592000)]
    pub cadence_s: Option<u64>,
    #[schema(value_type = Option<f64>, minimum = 0.000001)]
    pub max_spend_usd_per_run: Option<Micros>,
    /// Null clears it.
    #[schema(value_type = Option<String>, format = "uri", max_length = 2048)]
    pub webhook_url: Option<Option<String>>,
    #[schema(max_length = 200)]
    pub name: Option<String>,
    pub notify_on: Option<super::NotifyOn>,
    #[schema(max_items = 5)]
    pub channels: Option<Vec<super::MonitorChannel>>,
}

impl MonitorUpdate {
    /// Whether the update names nothing to change (`{}`, only nulls).
    pub fn changes_nothing(&self) -> bool {
        self.paused.is_none()
            && self.cadence_s.is_none()
            && self.max_spend_usd_per_run.is_none()
            && self.webhook_url.is_none()
            && self.name.is_none()
            && self.notify_on.is_none()
            && self.channels.is_none()
    }
}

/// The shortest and longest cadence, in seconds.
pub const MIN_CADENCE_S: u64 = 60;
pub const MAX_CADENCE_S: u64 = 30 * 86_400;
/// The most URLs one monitor watches.
pub const MAX_WATCH_URLS: usize = 20;
