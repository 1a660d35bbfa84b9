//! Webhook endpoints, their delivery attempts, the account default secret,
//! and the payloads of the account-level events.

use serde::Serialize;
use utoipa::ToSchema;

use super::{list_of, AutoRecharge, Usd};

/// The latest delivery attempt to an endpoint.
#[derive(Debug, Clone, Serialize, serde::Deserialize, ToSchema)]
pub struct LastDelivery {
    pub msg_id: String,
    pub at: String,
    /// The receiver's HTTP status, when it answered.
    pub status: Option<u16>,
    pub ok: bool,
}

/// Where the account's events are delivered.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookEndpoint {
    pub id: String,
    /// `webhook_endpoint`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    /// The version payloads are serialized under; PATCH advances it.
    pub fn_version: String,
    pub disabled: bool,
    pub livemode: bool,
    pub created_at: String,
    /// The last attempt's outcome; left out until the first attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub last_delivery: Option<LastDelivery>,
}

/// The creation response: the endpoint with its secret, this once.
#[derive(Debug, Serialize)]
pub struct WebhookEndpointCreated {
    #[serde(flatten)]
    pub endpoint: WebhookEndpoint,
    pub secret: String,
}

impl utoipa::PartialSchema for WebhookEndpointCreated {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, Type};
        let secret = ObjectBuilder::new()
            .property(
                "secret",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some(
                        "`whsec_…`: verifies this endpoint's deliveries. It cannot be read back.",
                    )),
            )
            .required("secret");
        AllOfBuilder::new()
            .item(utoipa::openapi::Ref::from_schema_name("WebhookEndpoint"))
            .item(secret)
            .into()
    }
}

impl ToSchema for WebhookEndpointCreated {}

list_of!(
    /// A page of endpoints.
    WebhookEndpointList,
    WebhookEndpoint
);

/// What DELETE /webhooks/{id} answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookEndpointDeleted {
    pub id: String,
    /// `webhook_endpoint`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub deleted: bool,
}

// Stored as written here (records of earlier versions have no `object` and
// name the type `event_type`).
/// One delivery attempt, or the record of a message dropped unsent.
#[derive(Debug, Clone, Serialize, serde::Deserialize, ToSchema)]
pub struct WebhookAttempt {
    pub id: String,
    /// `webhook_attempt`
    #[schema(value_type = String)]
    #[serde(skip_deserializing, default = "attempt_object")]
    pub object: &'static str,
    /// The message id, equal to the `webhook-id` header.
    pub msg_id: String,
    /// The event type.
    #[serde(rename = "type", alias = "event_type")]
    #[schema(rename = "type")]
    pub event_type: String,
    /// 1 for the first attempt; 0 on a drop record.
    pub attempt: u32,
    pub at: String,
    pub url: Option<String>,
    pub duration_ms: u64,
    pub status: Option<u16>,
    pub error: Option<String>,
    pub ok: bool,
    pub next_attempt_at: Option<String>,
    pub dead_lettered: bool,
    pub dropped: bool,
}

list_of!(
    /// A page of attempts, newest first.
    WebhookAttemptList,
    WebhookAttempt
);

/// The account default secret: signs deliveries to a session's own webhook_url.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookSecret {
    /// `webhook_secret`
    #[schema(value_type = String)]
    pub object: &'static str,
    /// `whsec_…`
    pub secret: String,
    pub created_at: String,
}

/// balance.low: the available balance crossed below the account's threshold.
#[derive(Debug, Serialize, ToSchema)]
pub struct BalanceLowData {
    #[schema(value_type = f64)]
    pub balance_usd: Usd,
    #[schema(value_type = f64)]
    pub available_usd: Usd,
    #[schema(value_type = f64)]
    pub threshold_usd: Usd,
    #[schema(value_type = f64)]
    pub open_reserves_usd: Usd,
    pub auto_recharge: AutoRecharge,
}

/// A queued test message (preview: webhook_test).
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookTestMessage {
    pub msg_id: String,
    /// The event type its sample data is shaped as.
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub event_type: String,
}

/// What POST /webhooks/{id}/test answers: one sample message per
/// subscribed event type, queued with `test: true`.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookTest {
    /// `webhook_test`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub endpoint_id: String,
    pub test: bool,
    pub messages: Vec<WebhookTestMessage>,
}

/// What POST /webhooks/{id}/attempts/{msg}/redeliver answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookRedelivery {
    /// `webhook_redelivery`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub endpoint_id: String,
    pub msg_id: String,
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub event_type: String,
}

/// The longest endpoint description.
pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// POST /webhooks.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookEndpointCreate {
    /// A public https URL (no private, loopback, link-local or metadata addresses).
    #[schema(format = "uri", max_length = 2048)]
    pub url: String,
    /// Event types to deliver: at least one, each a known type. Without it,
    /// every type except `monitor.unchanged` (opt-in).
    #[schema(min_items = 1, required = false)]
    pub events: Vec<String>,
    #[schema(max_length = 500)]
    pub description: Option<String>,
}

/// The events an endpoint created without `events` subscribes to: every
/// type, except the unchanged-monitor deliveries, which are opt-in.
pub fn default_events() -> Vec<String> {
    EMITTED_EVENTS
        .iter()
        .chain(PLANNED_EVENTS)
        .filter(|e| **e != "monitor.unchanged")
        .map(|e| e.to_string())
        .collect()
}

/// PATCH /webhooks/{id}: every member optional, at least one given.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookEndpointUpdate {
    #[schema(format = "uri", max_length = 2048)]
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub disabled: Option<bool>,
    /// A dated version to serialize payloads under from now on.
    pub fn_version: Option<String>,
    #[schema(max_length = 500)]
    pub description: Option<String>,
}

/// Event types emitted today.
pub const EMITTED_EVENTS: &[&str] = &[
    "session.answered",
    "session.abstained",
    "session.error",
    "session.stopped",
    "session.proposal",
    "balance.low",
];

/// Event types an endpoint may subscribe to before they are emitted: they
/// belong to the planned extractions and monitors surfaces.
pub const PLANNED_EVENTS: &[&str] = &[
    "extraction.delivered",
    "extraction.failed",
    "monitor.changed",
    "monitor.unchanged",
    "monitor.failed",
];

/// Dated versions a payload can be serialized under.
pub const KNOWN_VERSIONS: &[&str] = &[CURRENT_VERSION];

pub fn is_known_event(name: &str) -> bool {
    EMITTED_EVENTS.contains(&name) || PLANNED_EVENTS.contains(&name)
}

/// The only dated API version, and so every account's pin.
pub const CURRENT_VERSION: &str = "2026-08-26";

fn attempt_object() -> &'static str {
    "webhook_attempt"
}
