//! Extractions (preview: extractions): one known page read once.

use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::money::Micros;
use super::{list_of, Row, SessionError, Usd};

/// An extraction: one page read once, every record of it a row.
#[derive(Debug, Serialize, ToSchema)]
pub struct Extraction {
    pub id: String,
    /// `extraction`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub livemode: bool,
    /// running, delivered, abstained, error or stopped (open enum).
    #[schema(value_type = String)]
    pub status: &'static str,
    #[schema(value_type = String)]
    pub url: Option<String>,
    /// What was asked for; left out once redacted.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub entity: Option<String>,
    /// complete or partial: the receipt's stated claim, once read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub claim: Option<String>,
    pub records: u64,
    pub qualified: u64,
    #[schema(value_type = f64)]
    pub spend_usd: Usd,
    #[schema(value_type = f64)]
    pub max_spend_usd: Usd,
    #[schema(value_type = f64)]
    pub reserved_usd: Usd,
    #[schema(value_type = f64)]
    pub settled_usd: Usd,
    #[schema(value_type = f64)]
    pub released_usd: Usd,
    /// The receipt of its rows, once delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub receipt_id: Option<String>,
    /// What became of the page: ok, blocked, login_required, not_found,
    /// rate_limited, robots_disallowed, needs_rendering, not_a_catalog,
    /// fetch_failed (open enum); null while running.
    pub outcome: Option<String>,
    /// How much of the listing the page holds, once read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completeness: Option<super::Completeness>,
    /// Set when created by a refresh.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_of: Option<String>,
    /// `record` when a refresh was served from the last delivery at $0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_from: Option<String>,
    /// Refreshes: rows added, removed, changed (and price_moves) against the refreshed-from delivery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<super::DiffCounts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
    /// spend-budget or stopped; only when status is stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub stop: Option<super::StopReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<SessionError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<HashMap<String, String>>)]
    pub metadata: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
    #[schema(format = "uri")]
    pub result_url: String,
    pub created_at: String,
    pub updated_at: String,
    pub ended_at: Option<String>,
}

/// A create's answer: the extraction for `url`, the batch for `urls`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ExtractionCreated {
    One(Box<Extraction>),
    Batch(ExtractionBatch),
}

impl utoipa::PartialSchema for ExtractionCreated {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::{schema::OneOfBuilder, Ref};
        OneOfBuilder::new()
            .item(Ref::from_schema_name("Extraction"))
            .item(Ref::from_schema_name("ExtractionBatch"))
            .into()
    }
}

impl ToSchema for ExtractionCreated {
    fn schemas(
        out: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        use utoipa::PartialSchema;
        out.push(("Extraction".into(), Extraction::schema()));
        <Extraction as ToSchema>::schemas(out);
        out.push(("ExtractionBatch".into(), ExtractionBatch::schema()));
        <ExtractionBatch as ToSchema>::schemas(out);
    }
}

/// The batch form's answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExtractionBatch {
    /// `extraction_batch`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub data: Vec<Extraction>,
    /// N × max_spend_usd, the stated worst case.
    #[schema(value_type = f64)]
    pub total_reserved_usd: Usd,
}

list_of!(
    /// A page of extractions, newest first.
    ExtractionList,
    Extraction
);

/// An extraction's result, once it has ended.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExtractionResult {
    /// `result`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub extraction_id: String,
    #[schema(value_type = String)]
    pub status: &'static str,
    /// complete or partial, once the page was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub claim: Option<String>,
    /// What became of the page (see the extraction's `outcome`).
    pub outcome: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completeness: Option<super::Completeness>,
    pub qualified: u64,
    pub records: u64,
    #[schema(value_type = f64)]
    pub spend_usd: Usd,
    pub receipts: Vec<String>,
    pub rows: Vec<Row>,
    pub unchecked: Vec<Row>,
}

/// extraction.delivered and extraction.failed: ids and summaries, never rows.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExtractionEndedData {
    pub extraction_id: String,
    pub url: Option<String>,
    /// delivered, abstained, error or stopped.
    #[schema(value_type = String)]
    pub status: &'static str,
    pub records: u64,
    /// complete or partial, once the page was read.
    pub claim: Option<String>,
    pub receipt_id: Option<String>,
    #[schema(value_type = f64)]
    pub spend_usd: Usd,
    /// Why it was not delivered; extraction.failed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// POST /extractions/{id}/refresh (preview: refresh).
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtractionRefresh {
    /// Serve the latest delivery of the URL when it is younger than this many seconds ($0, no fetch).
    #[schema(minimum = 0)]
    pub max_age_s: Option<u64>,
    /// Default: the refreshed extraction's cap.
    #[schema(value_type = Option<f64>, minimum = 0.000001)]
    pub max_spend_usd: Option<Micros>,
}

/// POST /extractions (preview: extractions): exactly one of `url` and `urls`.
#[derive(Debug, ToSchema)]
pub struct ExtractionCreate {
    /// The catalog page (an absolute http or https URL).
    #[schema(format = "uri", max_length = 2048)]
    pub url: Option<String>,
    /// The batch form: 1 to 50 pages, each extracted on its own.
    #[schema(max_items = 50, min_items = 1)]
    pub urls: Option<Vec<String>>,
    /// What one row is ("product", "lamp", ...).
    #[schema(min_length = 1, max_length = 200)]
    pub entity: String,
    /// Steering text handed to the extractor as data, never as instructions.
    #[schema(max_length = 2000)]
    pub guidance: Option<String>,
    /// The spend cap of each page, reserved per URL.
    #[schema(value_type = f64, minimum = 0.000001)]
    pub max_spend_usd: Micros,
    /// An https URL notified of each extraction's end.
    #[schema(format = "uri", max_length = 2048)]
    pub webhook_url: Option<String>,
    /// At most 50 string values, returned on the extraction.
    #[schema(value_type = Option<HashMap<String, String>>)]
    pub metadata: Option<Map<String, Value>>,
    /// Whether the page is rendered in a browser: "off", "auto" (when its
    /// plain read is a script shell) or "always". Default: the node's
    /// `fetch.render`. A node that renders nothing refuses "always" (400).
    pub render: Option<RenderMode>,
}

super::requests::or_empty_body!(ExtractionRefreshBody, ExtractionRefresh);

/// When pages are rendered.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RenderMode {
    /// Never: a page that needs a browser ends `needs_rendering`.
    Off,
    /// A page whose plain read came back as a script shell is rendered.
    Auto,
    /// Every HTML page of a live run is rendered.
    Always,
}

impl RenderMode {
    pub fn as_str(self) -> &'static str {
        match self {
            RenderMode::Off => "off",
            RenderMode::Auto => "auto",
            RenderMode::Always => "always",
        }
    }
}

/// The most URLs of one batch (SPEC §8).
pub const MAX_BATCH: usize = 50;
/// The longest `entity` accepted.
pub const MAX_ENTITY_CHARS: usize = 200;
