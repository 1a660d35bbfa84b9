//! The parameters of paths, queries and headers. Query parameters are
//! read into these types (as text, so that a bad number is a named
//! invalid_param from the handler, not a rejection); path and header
//! parameters are read by axum's extractors and only stated here.

use serde::Deserialize;
use utoipa::IntoParams;

/// `limit` and `starting_after`: how every list pages.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// How many items, from 1 to 100 (default 20).
    #[param(value_type = u32, required = false, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// The last id of the previous page; the page starts after it.
    #[param(value_type = String, required = false)]
    pub starting_after: Option<String>,
}

/// The header that makes a create operation safe to retry.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub struct IdempotencyHeader {
    /// At most 255 characters. The first response (2xx or 4xx) is replayed
    /// for 24 hours with `idempotent-replayed: true`; the same key with
    /// another body is 409 idempotency_conflict.
    #[param(rename = "Idempotency-Key", value_type = String, required = false, max_length = 255)]
    idempotency_key: Option<String>,
}

/// A session id in the path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct SessionId {
    /// The session id (`ses_…`).
    id: String,
}

/// A webhook endpoint id in the path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct EndpointId {
    /// The endpoint id (`whep_…`).
    id: String,
}

/// A key id in the path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct KeyId {
    /// The key id (`key_…`).
    id: String,
}

/// The period of GET /usage.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UsageParams {
    /// First day, YYYY-MM-DD (default: 29 days before `to`).
    #[param(value_type = String, required = false, format = Date)]
    pub from: Option<String>,
    /// Last day, YYYY-MM-DD (default: today, UTC). At most 366 days after `from`.
    #[param(value_type = String, required = false, format = Date)]
    pub to: Option<String>,
}

/// The event log's paging.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsParams {
    /// Entries after this seq (default 0).
    #[param(value_type = i64, required = false, minimum = 0)]
    pub after: Option<String>,
    /// How many entries, from 1 to 100 (default 20).
    #[param(value_type = u32, required = false, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
}

/// The stream's resume point.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub struct StreamHeaders {
    /// Resume after this seq.
    #[param(rename = "Last-Event-ID", value_type = i64, required = false, minimum = 0)]
    last_event_id: Option<String>,
}

/// How long to wait for a result, and in what form.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ResultParams {
    /// Seconds to wait for the run to end, from 0 to 600 (default 0).
    #[param(value_type = u32, required = false, minimum = 0, maximum = 600)]
    pub wait: Option<String>,
    /// json (default) or ndjson: one row per line, then the summary line.
    #[param(value_type = String, required = false, pattern = "^(json|ndjson)$")]
    pub format: Option<String>,
}

/// The longest a result may be waited for (SPEC §8).
pub const MAX_WAIT_S: u64 = 600;

/// A monitor's id.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct MonitorId {
    /// `mon_...`
    id: String,
}

/// An extraction's id.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct ExtractionId {
    /// `ext_...`
    id: String,
}
