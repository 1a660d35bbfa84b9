//! The tools' inputs (their JSON Schemas are what agents see) and the
//! shapes of their outputs and of the REST bodies they send.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct EstimateArgs {
    /// The natural-language query, e.g. "tents under $200 from outdoor-gear.example".
    pub query: String,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct StartSessionArgs {
    /// The natural-language query (data for the planner, never instructions).
    pub query: String,
    /// The most this session may spend, in USD: reserved now, only receipts settle.
    pub max_spend_usd: f64,
    /// Optional extraction guidance (data for the extractor), at most 2000 characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionArgs {
    /// The session id (`ses_…`).
    pub session_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionResultArgs {
    /// The session id (`ses_…`).
    pub session_id: String,
    /// Seconds to wait for the session to end (0 to 600; default 30).
    pub wait_s: Option<u32>,
    /// Rows per page, 1 to 100 (default 20).
    pub limit: Option<u32>,
    /// The last row id of the previous page.
    pub starting_after: Option<String>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct ExtractArgs {
    /// The catalog or product page to read.
    pub url: String,
    /// What its records are, e.g. "tent".
    pub entity: String,
    /// The most this extraction may spend, in USD: reserved now, only its receipt settles.
    pub max_spend_usd: f64,
    /// Optional guidance (data for the extractor), at most 2000 characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExtractionResultArgs {
    /// The extraction id (`ext_…`).
    pub extraction_id: String,
    /// Seconds to wait for it to end (0 to 600; default 30).
    pub wait_s: Option<u32>,
    /// Rows per page, 1 to 100 (default 20).
    pub limit: Option<u32>,
    /// The last row id of the previous page.
    pub starting_after: Option<String>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct DiscoverArgs {
    /// A page of the site, usually its home page.
    pub url: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateMonitorArgs {
    /// Catalog URLs to watch (1 to 20), read as extractions of `entity`.
    pub urls: Option<Vec<String>>,
    /// What the URLs' records are (with `urls`).
    pub entity: Option<String>,
    /// Or a query to run as a session each time (instead of `urls`).
    pub query: Option<String>,
    /// Seconds between runs, 60 to 2592000.
    pub cadence_s: u64,
    /// Reserved by each run; the monitor states its monthly worst case.
    pub max_spend_usd_per_run: f64,
    pub name: Option<String>,
}

/// The body of POST /v1/monitors from the tool's arguments.
#[derive(Serialize)]
pub(super) struct MonitorBody<'a> {
    pub(super) watch: MonitorWatchBody<'a>,
    pub(super) cadence_s: u64,
    pub(super) max_spend_usd_per_run: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<&'a str>,
}

#[derive(Serialize)]
pub(super) struct MonitorWatchBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) urls: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) entity: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) query: Option<&'a str>,
}

// ---- tool outputs (the REST answers they carry stay as the API wrote them) ----

/// A long-poll that ran out of time: the object, still running.
#[derive(Serialize)]
pub(super) struct StillRunning {
    pub(super) still_running: bool,
    pub(super) object: Value,
}

/// `session_result`: the session's summary and a page of its rows.
#[derive(Serialize)]
pub(super) struct SessionResultPage {
    pub(super) session_id: String,
    pub(super) status: Value,
    pub(super) still_running: bool,
    pub(super) rows: Vec<Value>,
    pub(super) has_more: Value,
    pub(super) next_starting_after: Value,
    pub(super) receipt_ids: Vec<Value>,
    pub(super) spend_usd: Value,
    /// Reading a result is free.
    pub(super) cost_usd: u8,
}

/// `extraction_result`: the extraction's summary and a page of its rows.
#[derive(Serialize)]
pub(super) struct ExtractionResultPage {
    pub(super) extraction_id: String,
    pub(super) status: Value,
    pub(super) still_running: bool,
    pub(super) claim: Value,
    pub(super) outcome: Value,
    pub(super) records: Value,
    pub(super) rows: Vec<Value>,
    pub(super) has_more: bool,
    pub(super) next_starting_after: Option<Value>,
    pub(super) receipt_ids: Value,
    pub(super) spend_usd: Value,
    /// Reading a result is free.
    pub(super) cost_usd: u8,
}
