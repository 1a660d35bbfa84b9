//! Sessions: estimates, sessions, their event logs, rows and results,
//! proposals.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::money::Micros;
use super::{list_of, Usd};

/// What the planner made of a query, and what running it would cost.
#[derive(Debug, Serialize, ToSchema)]
pub struct Estimate {
    /// `estimate`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub livemode: bool,
    /// Whether spending could honestly deliver; when false, a created
    /// session abstains at $0.
    pub would_run: bool,
    /// The parsed intent: entity, constraints, sources.
    #[schema(value_type = Object)]
    pub parsed: Value,
    /// What the query lacks to run (for example `source`).
    pub missing: Vec<String>,
    pub reason: String,
    #[schema(value_type = f64)]
    pub estimated_usd: Usd,
    /// The part of `estimated_usd` for rendering pages in a browser: every
    /// page, when the node renders always or a source's pages were found
    /// to need the browser on an earlier visit; else 0.
    #[schema(value_type = f64)]
    pub render_usd: Usd,
    /// What rendering would add if every page needed the browser (0 on a
    /// node that renders nothing).
    #[schema(value_type = f64)]
    pub render_worst_usd: Usd,
    /// Pages the run expects to read.
    pub passes: u32,
}

/// Why a run ended in error.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionError {
    /// A stream code: model_unavailable, provider_unavailable, parse_failed, aborted, internal (open enum).
    pub code: String,
    pub message: String,
}

/// A session: a query answered with rows, each backed by a signed receipt.
#[derive(Debug, Serialize, ToSchema)]
pub struct Session {
    pub id: String,
    /// `session`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub livemode: bool,
    /// running, answered, abstained, error or stopped (open enum).
    #[schema(value_type = String)]
    pub status: &'static str,
    /// spend-budget, query-budget or stopped; only when status is stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub stop: Option<StopReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<SessionError>,
    /// Why the run ended as it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The current turn, from 1.
    pub turn: u32,
    pub query: String,
    /// The parsed intent of the current turn (null when the planner could not read it).
    #[schema(value_type = Option<Object>)]
    pub parsed: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<HashMap<String, String>>)]
    pub metadata: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
    #[schema(value_type = f64)]
    pub max_spend_usd: Usd,
    /// Held now: the turn's max_spend_usd while running, else 0.
    #[schema(value_type = f64)]
    pub reserved_usd: Usd,
    /// Settled plus the signed spend of the running turn.
    #[schema(value_type = f64)]
    pub spend_usd: Usd,
    #[schema(value_type = f64)]
    pub settled_usd: Usd,
    #[schema(value_type = f64)]
    pub released_usd: Usd,
    pub records: u64,
    pub qualified: u64,
    pub unchecked: u64,
    pub sources: u64,
    pub receipts_signed: u64,
    #[schema(format = "uri")]
    pub result_url: String,
    pub created_at: String,
    pub updated_at: String,
    pub ended_at: Option<String>,
    /// After a refresh turn (preview): rows added, removed and changed
    /// against the turn before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<super::DiffCounts>,
    /// True once redacted (preview).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
}

list_of!(
    /// A page of sessions, newest first.
    SessionList,
    Session
);

// This type only states the stream's framing: the server writes it as
// SSE fields, not as JSON.
/// One server-sent event of a run's stream.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct SseEvent {
    /// The entry's seq: send it back as Last-Event-ID to resume after it.
    id: Option<String>,
    /// The entry's phase.
    event: Option<String>,
    /// The entry (a SessionEvent) as JSON text.
    #[schema(content_media_type = "application/json")]
    data: String,
}

/// A page of the event log.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionEventList {
    /// `list`
    #[schema(value_type = String)]
    pub object: &'static str,
    #[schema(value_type = Vec<SessionEvent>)]
    pub data: Vec<SessionEvent>,
    pub has_more: bool,
    /// The `after` that reads the next page.
    pub next_after: u64,
}

/// Where a row was read.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RowSource {
    pub domain: String,
    pub url: String,
    pub receipt_id: String,
}

/// Each constraint of a query by name, and whether a row meets it.
pub type Fulfillment = std::collections::BTreeMap<String, bool>;

// Stored as written here; its `id` comes from its place in the run.
/// One row: a record, where it came from, and how it meets the query.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Row {
    /// `row_<n>`, in the order rows were first seen.
    // Rows stored by earlier versions do not hold their id (see `sessions::rows`).
    #[serde(default)]
    #[schema(required = true)]
    pub id: String,
    pub turn: u32,
    pub source: RowSource,
    /// The extracted record: name, price, currency, sku, availability, brand, url, …
    #[schema(value_type = Object)]
    pub record: Map<String, Value>,
    /// Each constraint of the query (entity, price_min, price_max, brand,
    /// keywords, condition, in_stock) with true or false.
    #[schema(value_type = HashMap<String, bool>)]
    pub fulfillment: Fulfillment,
    pub qualified: bool,
    /// Why the row could not be checked; only on unchecked rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unchecked: Option<String>,
}

list_of!(
    /// A page of rows.
    RowList,
    Row
);

/// A run's result, once it has ended. As ndjson, its rows come first, one
/// per line, then this object without `rows` and `unchecked`.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionResult {
    /// `result`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub session_id: String,
    #[schema(value_type = String)]
    pub status: &'static str,
    /// spend-budget, query-budget or stopped; only when status is stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = false)]
    pub stop: Option<StopReason>,
    pub qualified: u64,
    pub records: u64,
    #[schema(value_type = f64)]
    pub spend_usd: Usd,
    /// The session's receipt ids.
    pub receipts: Vec<String>,
    /// Checked rows.
    pub rows: Vec<Row>,
    /// Rows that could not be checked against the query.
    pub unchecked: Vec<Row>,
    /// Every page the session wanted, in order, with its outcome.
    pub sources: Vec<super::PageSeen>,
    /// How much of the catalog the last turn read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completeness: Option<super::Completeness>,
}

/// A priced follow-up turn, waiting for confirmation.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Proposal {
    /// Send it back as `proposal` to run the turn.
    pub id: String,
    #[schema(value_type = f64)]
    pub estimated_usd: Usd,
    pub passes: u32,
    pub expires_at: String,
}

/// session.answered
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionAnsweredData {
    pub session_id: String,
    /// `answered`
    #[schema(value_type = String)]
    pub status: &'static str,
    pub turn: u32,
    pub qualified: u64,
    pub records: u64,
    pub sources: u64,
    pub receipts_signed: u64,
    #[schema(value_type = f64)]
    pub spend_usd: Usd,
    #[schema(format = "uri")]
    pub result_url: String,
}

/// session.abstained, session.error and session.stopped
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionEndedData {
    pub session_id: String,
    /// abstained, error or stopped.
    #[schema(value_type = String)]
    pub status: &'static str,
    pub reason: String,
    #[schema(value_type = f64)]
    pub settled_usd: Usd,
    #[schema(value_type = f64)]
    pub released_usd: Usd,
    pub records: u64,
    /// spend-budget, query-budget or stopped; session.stopped only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub stop: Option<StopReason>,
}

/// session.proposal
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionProposalData {
    pub session_id: String,
    pub turn: u32,
    pub proposal: Proposal,
}

/// POST /sessions/estimate. The other members of POST /sessions are taken
/// (and not read), so one body serves both; any other member is refused.
#[derive(Debug, ToSchema)]
pub struct EstimateRequest {
    /// The natural-language query: not blank, at most 2000 characters.
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = r"\S",
        examples("tents under $200 from outdoor-gear.example")
    )]
    pub query: String,
}

/// POST /sessions.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionCreate {
    /// The natural-language query: not blank, at most 2000 characters.
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = r"\S",
        examples("tents under $200 from outdoor-gear.example")
    )]
    pub query: String,
    /// The most this turn may spend; reserved up front (default set by the operator).
    #[schema(value_type = Option<f64>, minimum = 0.000001)]
    pub max_spend_usd: Option<Micros>,
    /// Steering text handed to the extractor as data, never as instructions.
    #[schema(max_length = 2000)]
    pub guidance: Option<String>,
    /// An https URL notified of this session's end, signed with the account default secret.
    #[schema(format = "uri", max_length = 2048)]
    pub webhook_url: Option<String>,
    /// At most 50 string values, returned on the session.
    #[schema(value_type = Option<HashMap<String, String>>)]
    pub metadata: Option<Map<String, Value>>,
}

/// POST /sessions/{id}/turns.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TurnCreate {
    /// The follow-up query: not blank, at most 2000 characters.
    #[schema(min_length = 1, max_length = 2000, pattern = r"\S")]
    pub query: String,
    /// The id of the proposal this request confirms; without it the turn is only priced.
    pub proposal: Option<String>,
    #[schema(value_type = Option<f64>, minimum = 0.000001)]
    pub max_spend_usd: Option<Micros>,
}

/// POST /sessions/{id}/refresh (preview: refresh).
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionRefresh {
    /// The id of the refresh proposal this request confirms; without it the refresh is only priced.
    pub proposal: Option<String>,
    #[schema(value_type = Option<f64>, minimum = 0.000001)]
    pub max_spend_usd: Option<Micros>,
}

super::requests::or_empty_body!(SessionRefreshBody, SessionRefresh);

/// Why a run stopped before it read everything (SPEC §6.3: `stop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopReason {
    /// Its spending cap could not pay for the next page.
    #[serde(rename = "spend-budget")]
    SpendBudget,
    /// It has the rows its query asked for.
    #[serde(rename = "query-budget")]
    QueryBudget,
    /// Stopped on request.
    #[serde(rename = "stopped")]
    Requested,
}

impl StopReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::SpendBudget => "spend-budget",
            StopReason::QueryBudget => "query-budget",
            StopReason::Requested => "stopped",
        }
    }
}

/// One entry of a run's event log.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct SessionEvent {
    /// Increasing from 1 within the session; the SSE `id`.
    pub seq: u64,
    /// started, parsed, source, page, fetch_failed, extract_failed, skipped,
    /// proposal, and the terminal answered, delivered, abstain, error,
    /// stopped (open enum). Every page's event names its `outcome`.
    pub phase: String,
    pub at: String,
    /// `error`: the stream code, as a dying run's event states it beside
    /// its phase (also in `data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// `error`: what went wrong (also in `data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `abstain`: why the run declined (also in `data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[schema(value_type = Object)]
    pub data: Value,
}
