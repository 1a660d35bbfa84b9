//! Request bodies. Each is read from the request's JSON object (SPEC
//! §7.3.1: a body that does not parse, or is over 1 MB, is empty, so the
//! first missing required member is named) by its `parse`, and stated in
//! the document by its schema.

#![allow(dead_code)]

use serde_json::Value;
use utoipa::ToSchema;

/// PATCH /keys/{id}.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyRename {
    /// The new name: not blank, at most 100 characters.
    #[schema(min_length = 1, max_length = 100, pattern = r"\S")]
    name: String,
}

/// POST /sessions/estimate.
#[derive(ToSchema)]
pub struct EstimateRequest {
    /// The natural-language query: not blank, at most 2000 characters.
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = r"\S",
        examples("tents under $200 from outdoor-gear.example")
    )]
    query: String,
}

/// POST /sessions.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionCreate {
    /// The natural-language query: not blank, at most 2000 characters.
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = r"\S",
        examples("tents under $200 from outdoor-gear.example")
    )]
    query: String,
    /// The most this turn may spend; reserved up front (default set by the operator).
    #[schema(minimum = 0.000001)]
    max_spend_usd: Option<f64>,
    /// Steering text handed to the extractor as data, never as instructions.
    #[schema(max_length = 2000)]
    guidance: Option<String>,
    /// An https URL notified of this session's end, signed with the account default secret.
    #[schema(format = "uri", max_length = 2048)]
    webhook_url: Option<String>,
    /// At most 50 string values, returned on the session.
    #[schema(value_type = Option<HashMap<String, String>>)]
    metadata: Option<Value>,
}

/// POST /sessions/{id}/turns.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnCreate {
    /// The follow-up query: not blank, at most 2000 characters.
    #[schema(min_length = 1, max_length = 2000, pattern = r"\S")]
    query: String,
    /// The id of the proposal this request confirms; without it the turn is only priced.
    proposal: Option<String>,
    #[schema(minimum = 0.000001)]
    max_spend_usd: Option<f64>,
}

/// POST /sessions/{id}/refresh (preview: refresh).
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRefresh {
    /// The id of the refresh proposal this request confirms; without it the refresh is only priced.
    proposal: Option<String>,
    #[schema(minimum = 0.000001)]
    max_spend_usd: Option<f64>,
}

/// POST /extractions/{id}/refresh (preview: refresh).
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractionRefresh {
    /// Serve the latest delivery of the URL when it is younger than this many seconds ($0, no fetch).
    #[schema(minimum = 0)]
    max_age_s: Option<u64>,
    /// Default: the refreshed extraction's cap.
    #[schema(minimum = 0.000001)]
    max_spend_usd: Option<f64>,
}

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

/// POST /monitors (preview: monitors).
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonitorCreate {
    watch: MonitorWatch,
    /// Seconds between runs, 60 to 2592000.
    #[schema(minimum = 60, maximum = 2592000)]
    cadence_s: u64,
    /// Reserved by each run; runs settle only their receipts.
    #[schema(minimum = 0.000001)]
    max_spend_usd_per_run: f64,
    #[schema(max_length = 200)]
    name: Option<String>,
    /// Receives monitor.changed and monitor.failed (https, public).
    #[schema(format = "uri", max_length = 2048)]
    webhook_url: Option<String>,
}

/// PATCH /monitors/{id} (preview: monitors): at least one member.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[schema(min_properties = 1)]
pub struct MonitorUpdate {
    paused: Option<bool>,
    #[schema(minimum = 60, maximum = 2592000)]
    cadence_s: Option<u64>,
    #[schema(minimum = 0.000001)]
    max_spend_usd_per_run: Option<f64>,
    #[schema(format = "uri", max_length = 2048)]
    webhook_url: Option<String>,
    #[schema(max_length = 200)]
    name: Option<String>,
}

/// POST /discover (preview: discover).
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscoverRequest {
    /// The site's page to start from (usually its home page): absolute http(s), at most 2048 characters.
    #[schema(format = "uri", max_length = 2048)]
    url: String,
}

/// POST /webhooks.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookEndpointCreate {
    /// A public https URL (no private, loopback, link-local or metadata addresses).
    #[schema(format = "uri", max_length = 2048)]
    url: String,
    /// Event types to deliver: at least one, each a known type.
    #[schema(min_items = 1)]
    events: Vec<String>,
    #[schema(max_length = 500)]
    description: Option<String>,
}

/// PATCH /webhooks/{id}: every member optional.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookEndpointUpdate {
    #[schema(format = "uri", max_length = 2048)]
    url: Option<String>,
    events: Option<Vec<String>>,
    disabled: Option<bool>,
    /// A dated version to serialize payloads under from now on.
    fn_version: Option<String>,
    #[schema(max_length = 500)]
    description: Option<String>,
}

/// POST /extractions (preview: extractions): exactly one of `url` and `urls`.
#[derive(ToSchema)]
pub struct ExtractionCreate {
    /// The catalog page (an absolute http or https URL).
    #[schema(format = "uri", max_length = 2048)]
    url: Option<String>,
    /// The batch form: 1 to 50 pages, each extracted on its own.
    #[schema(max_items = 50, min_items = 1)]
    urls: Option<Vec<String>>,
    /// What one row is ("product", "lamp", ...).
    #[schema(min_length = 1, max_length = 200)]
    entity: String,
    /// Steering text handed to the extractor as data, never as instructions.
    #[schema(max_length = 2000)]
    guidance: Option<String>,
    /// The spend cap of each page, reserved per URL.
    #[schema(minimum = 0.000001)]
    max_spend_usd: f64,
    /// An https URL notified of each extraction's end.
    #[schema(format = "uri", max_length = 2048)]
    webhook_url: Option<String>,
    /// At most 50 string values, returned on the extraction.
    #[schema(value_type = Option<HashMap<String, String>>)]
    metadata: Option<Value>,
}

/// `T`'s object, or any body that is not a JSON object, which counts as
/// empty (SPEC §7.3.1): the schema of a body whose members are all optional.
fn or_empty<T: ToSchema>() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, SchemaType, Type};
    let not_object = ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([
            Type::Array,
            Type::String,
            Type::Number,
            Type::Boolean,
            Type::Null,
        ]))
        .description(Some("not an object: counts as an empty body"));
    AnyOfBuilder::new()
        .item(utoipa::openapi::Ref::from_schema_name(T::name()))
        .item(not_object)
        .into()
}

/// Declares `$body` as the body `$object` or any non-object (counted as empty).
macro_rules! or_empty_body {
    ($body:ident, $object:ident) => {
        pub struct $body;
        impl utoipa::PartialSchema for $body {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                or_empty::<$object>()
            }
        }
        impl ToSchema for $body {
            fn schemas(
                out: &mut Vec<(
                    String,
                    utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
                )>,
            ) {
                use utoipa::PartialSchema;
                out.push(($object::name().into_owned(), $object::schema()));
            }
        }
    };
}

or_empty_body!(SessionRefreshBody, SessionRefresh);
or_empty_body!(ExtractionRefreshBody, ExtractionRefresh);
