//! The `data` of each phase of a run's event log (`SessionEvent`), one
//! type per shape. The log stores what these write; a redacted event's data
//! is `{}`, so the log is read back as JSON, not as these types.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::{Proposal, Usd};

/// `started`, of a session's turn (the first, a follow-up or a refresh).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TurnStarted {
    pub turn: u32,
    pub query: String,
    #[schema(value_type = f64)]
    pub reserved_usd: Usd,
    /// The confirmed proposal a follow-up turn runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal: Option<String>,
}

/// `started`, of an extraction.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ExtractionStarted {
    pub url: String,
    pub entity: Option<String>,
    #[schema(value_type = f64)]
    pub reserved_usd: Usd,
}

/// `started`, of an extraction's refresh: a run with its reservation, or
/// one served from the record at $0 (`served_from`, no reservation).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RefreshStarted {
    pub url: String,
    pub refresh_of: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<f64>)]
    pub reserved_usd: Option<Usd>,
    /// The delivery whose rows are served again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_from: Option<String>,
}

/// `parsed`: the planner's reading of the query.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Parsed {
    pub would_run: bool,
    /// The planner's reading: entity, constraints, sources.
    #[schema(value_type = Object)]
    pub parsed: Value,
    pub missing: Vec<String>,
    pub reason: String,
}

/// `proposal`: a follow-up turn was priced.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ProposalMade {
    pub turn: u32,
    pub proposal: Proposal,
}

/// `source`: a page read, with its receipt, rows and cost.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SourceRead {
    pub url: String,
    /// How the run came to the page: seed, sitemap, link, pagination…
    pub via: &'static str,
    /// `ok`
    pub outcome: &'static str,
    pub receipt_id: String,
    pub records: usize,
    pub qualified: usize,
    /// The extractor's claim of what the page is.
    pub claim: String,
    #[schema(value_type = f64)]
    pub cost_usd: Usd,
    /// Whether the page was read as a browser showed it.
    pub rendered: bool,
}

/// `page`, `skipped` (robots.txt), `fetch_failed` and `extract_failed`: a
/// page that gave nothing billable, at $0 and without a receipt.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PageUnbilled {
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<&'static str>,
    /// The page's outcome (FETCHING.md).
    pub outcome: &'static str,
    pub reason: String,
    /// An unchanged page (HTTP 304) whose earlier rows are served again.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_modified: bool,
    /// Always 0.
    pub records: u64,
    /// Always 0.
    #[schema(value_type = f64)]
    pub cost_usd: Usd,
}

/// `skipped`: the pages a run left unread as unrelated to the query.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PagesNotRead {
    pub reason: &'static str,
    pub pages: usize,
    /// At most ten of their URLs.
    pub examples: Vec<String>,
}

/// The terminal phases (`answered`, `delivered`, `abstain`, `error`,
/// `stopped`): what the turn settled and released, and why it ended.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TurnEnded {
    /// The run's status after the event.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extraction_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// `record` when a refresh was served from an earlier delivery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_from: Option<&'static str>,
    #[schema(value_type = f64)]
    pub settled_usd: Usd,
    #[schema(value_type = f64)]
    pub released_usd: Usd,
    pub records: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualified: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sources: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipts_signed: Option<u64>,
    /// Why: the abstain reason, the error message or the stop's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `error`: the stream code and message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `error`: the phase that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<&'static str>,
    /// `stopped`: spend-budget, query-budget or stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<&'static str>,
}

impl TurnEnded {
    /// `delivered` of a refresh served from an earlier delivery at $0.
    pub fn served_from_record(records: u64) -> TurnEnded {
        TurnEnded {
            status: "delivered",
            session_id: None,
            extraction_id: None,
            turn: None,
            served_from: Some("record"),
            settled_usd: Usd::default(),
            released_usd: Usd::default(),
            records,
            qualified: None,
            sources: None,
            receipts_signed: None,
            reason: None,
            code: None,
            message: None,
            phase: None,
            stop: None,
        }
    }
}

/// A refresh's rows against the delivery it refreshes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema)]
pub struct DiffCounts {
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
    pub price_moves: u64,
}
