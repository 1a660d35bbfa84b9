//! The shapes of the API's request and response bodies, as the OpenAPI
//! document states them. Handlers build their JSON with `serde_json`; these
//! types only describe it, and the conformance checks (the document test
//! and the fuzzer, which validates every response against the document)
//! keep the two in step.
//!
//! Money is a JSON number of US dollars with at most six decimals;
//! timestamps are ISO 8601 date-time strings in UTC.

#![allow(dead_code)]

use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// `limit` and `starting_after`: how every list pages.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// How many items, from 1 to 100 (default 20).
    #[param(value_type = u32, required = false, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The last id of the previous page; the page starts after it.
    #[param(value_type = String, required = false)]
    starting_after: Option<String>,
}

/// The header that makes a create operation safe to retry.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
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
pub struct SessionId {
    /// The session id (`ses_…`).
    id: String,
}

/// A webhook endpoint id in the path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct EndpointId {
    /// The endpoint id (`whep_…`).
    id: String,
}

/// A key id in the path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct KeyId {
    /// The key id (`key_…`).
    id: String,
}

// ---- platform plane ----

/// The key a request was made with, as /me shows it.
#[derive(ToSchema)]
pub struct CallerKey {
    id: String,
    name: String,
    scopes: Vec<String>,
}

/// The caller's account.
#[derive(ToSchema)]
pub struct Account {
    /// `account`
    object: String,
    id: String,
    name: String,
    created_at: String,
    livemode: bool,
    /// The account's pinned API version.
    fn_version: String,
    /// The monthly cap on settled plus reserved spend, per mode; null when none.
    monthly_cap_usd: Option<f64>,
    key: CallerKey,
}

/// Automatic recharge; it needs a payment provider and is reported disabled.
#[derive(ToSchema)]
pub struct AutoRecharge {
    enabled: bool,
    amount_usd: f64,
}

/// The balance of the caller's account in the caller's mode.
#[derive(ToSchema)]
pub struct Balance {
    /// `balance`
    object: String,
    livemode: bool,
    balance_usd: f64,
    /// Held by running sessions.
    open_reserves_usd: f64,
    /// balance_usd − open_reserves_usd, never below zero.
    available_usd: f64,
    low_balance_threshold_usd: f64,
    auto_recharge: AutoRecharge,
}

/// Settled spend of one UTC day.
#[derive(ToSchema)]
pub struct UsageDay {
    /// YYYY-MM-DD
    date: String,
    spend_usd: f64,
}

/// Settled spend per UTC day over a period.
#[derive(ToSchema)]
pub struct Usage {
    /// `usage`
    object: String,
    livemode: bool,
    from: String,
    to: String,
    total_usd: f64,
    by_day: Vec<UsageDay>,
}

/// The period of GET /usage.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UsageParams {
    /// First day, YYYY-MM-DD (default: 29 days before `to`).
    #[param(value_type = String, required = false, format = Date)]
    from: Option<String>,
    /// Last day, YYYY-MM-DD (default: today, UTC). At most 366 days after `from`.
    #[param(value_type = String, required = false, format = Date)]
    to: Option<String>,
}

/// An API key; never its secret text.
#[derive(ToSchema)]
pub struct Key {
    id: String,
    /// `key`
    object: String,
    name: String,
    /// The first characters of the key text, to recognize it.
    prefix: String,
    livemode: bool,
    scopes: Vec<String>,
    /// The most one session may reserve with this key; null when none.
    session_cap_usd: Option<f64>,
    created_at: String,
    revoked_at: Option<String>,
}

/// A page of keys, newest first.
#[derive(ToSchema)]
pub struct KeyList {
    /// `list`
    object: String,
    data: Vec<Key>,
    has_more: bool,
}

/// PATCH /keys/{id}.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyRename {
    /// The new name: not blank, at most 100 characters.
    #[schema(min_length = 1, max_length = 100, pattern = r"\S")]
    name: String,
}

// ---- sessions ----

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

/// What the planner made of a query, and what running it would cost.
#[derive(ToSchema)]
pub struct Estimate {
    /// `estimate`
    object: String,
    livemode: bool,
    /// Whether spending could honestly deliver; when false, a created
    /// session abstains at $0.
    would_run: bool,
    /// The parsed intent: entity, constraints, sources.
    #[schema(value_type = Object)]
    parsed: Value,
    /// What the query lacks to run (for example `source`).
    missing: Vec<String>,
    reason: String,
    estimated_usd: f64,
    /// Pages the run expects to read.
    passes: u32,
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

/// Why a run ended in error.
#[derive(ToSchema)]
pub struct SessionError {
    /// A stream code: model_unavailable, provider_unavailable, parse_failed, aborted, internal (open enum).
    code: String,
    message: String,
}

/// A session: a query answered with rows, each backed by a signed receipt.
#[derive(ToSchema)]
pub struct Session {
    id: String,
    /// `session`
    object: String,
    livemode: bool,
    /// running, answered, abstained, error or stopped (open enum).
    status: String,
    /// spend-budget, query-budget or stopped; only when status is stopped.
    stop: Option<String>,
    error: Option<SessionError>,
    /// Why the run ended as it did.
    reason: Option<String>,
    /// The current turn, from 1.
    turn: u32,
    query: String,
    /// The parsed intent of the current turn (null when the planner could not read it).
    #[schema(value_type = Option<Object>)]
    parsed: Value,
    guidance: Option<String>,
    #[schema(value_type = Option<HashMap<String, String>>)]
    metadata: Option<Value>,
    webhook_url: Option<String>,
    max_spend_usd: f64,
    /// Held now: the turn's max_spend_usd while running, else 0.
    reserved_usd: f64,
    /// Settled plus the signed spend of the running turn.
    spend_usd: f64,
    settled_usd: f64,
    released_usd: f64,
    records: u64,
    qualified: u64,
    unchecked: u64,
    sources: u64,
    receipts_signed: u64,
    #[schema(format = "uri")]
    result_url: String,
    created_at: String,
    updated_at: String,
    ended_at: Option<String>,
    /// After a refresh turn (preview): rows added, removed and changed
    /// against the turn before.
    #[schema(value_type = Option<Object>)]
    diff: Option<Value>,
    /// True once redacted (preview).
    redacted: Option<bool>,
}

/// A page of sessions, newest first.
#[derive(ToSchema)]
pub struct SessionList {
    /// `list`
    object: String,
    data: Vec<Session>,
    has_more: bool,
}

/// One entry of a run's event log.
#[derive(ToSchema)]
pub struct SessionEvent {
    /// Increasing from 1 within the session; the SSE `id`.
    seq: u64,
    /// started, parsed, source, fetch_failed, extract_failed, skipped,
    /// proposal, and the terminal answered, abstain, error, stopped (open enum).
    phase: String,
    at: String,
    #[schema(value_type = Object)]
    data: Value,
}

/// One server-sent event of a run's stream.
#[derive(ToSchema)]
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
#[derive(ToSchema)]
pub struct SessionEventList {
    /// `list`
    object: String,
    data: Vec<SessionEvent>,
    has_more: bool,
    /// The `after` that reads the next page.
    next_after: u64,
}

/// The event log's paging.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsParams {
    /// Entries after this seq (default 0).
    #[param(value_type = i64, required = false, minimum = 0)]
    after: Option<String>,
    /// How many entries, from 1 to 100 (default 20).
    #[param(value_type = u32, required = false, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

/// The stream's resume point.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct StreamHeaders {
    /// Resume after this seq.
    #[param(rename = "Last-Event-ID", value_type = i64, required = false, minimum = 0)]
    last_event_id: Option<String>,
}

/// How long to wait for a result, and in what form.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ResultParams {
    /// Seconds to wait for the run to end, from 0 to 600 (default 0).
    #[param(value_type = u32, required = false, minimum = 0, maximum = 600)]
    wait: Option<String>,
    /// json (default) or ndjson: one row per line, then the summary line.
    #[param(value_type = String, required = false, pattern = "^(json|ndjson)$")]
    format: Option<String>,
}

/// Where a row was read.
#[derive(ToSchema)]
pub struct RowSource {
    domain: String,
    url: String,
    receipt_id: String,
}

/// One row: a record, where it came from, and how it meets the query.
#[derive(ToSchema)]
pub struct Row {
    /// `row_<n>`, in the order rows were first seen.
    id: String,
    turn: u32,
    source: RowSource,
    /// The extracted record: name, price, currency, sku, availability, brand, url, …
    #[schema(value_type = Object)]
    record: Value,
    /// Each constraint of the query (entity, price_min, price_max, brand,
    /// keywords, condition, in_stock) with true or false.
    #[schema(value_type = HashMap<String, bool>)]
    fulfillment: Value,
    qualified: bool,
    /// Why the row could not be checked; only on unchecked rows.
    unchecked: Option<String>,
}

/// A page of rows.
#[derive(ToSchema)]
pub struct RowList {
    /// `list`
    object: String,
    data: Vec<Row>,
    has_more: bool,
}

/// A run's result, once it has ended.
#[derive(ToSchema)]
pub struct SessionResult {
    /// `result`
    object: String,
    session_id: String,
    status: String,
    stop: Option<String>,
    qualified: u64,
    records: u64,
    spend_usd: f64,
    /// The session's receipt ids.
    receipts: Vec<String>,
    /// Checked rows.
    rows: Vec<Row>,
    /// Rows that could not be checked against the query.
    unchecked: Vec<Row>,
}

/// A receipt's signature.
#[derive(ToSchema)]
pub struct ReceiptSignature {
    /// `ed25519`
    alg: String,
    /// The id of the signing key (GET /signing-keys).
    key_id: String,
    /// Base64 of the signature over the receipt without `signature`,
    /// serialized with sorted keys and no whitespace.
    value: String,
}

/// A signed statement of one page read: what was fetched, what it cost.
#[derive(ToSchema)]
pub struct Receipt {
    id: String,
    /// `receipt`
    object: String,
    livemode: bool,
    /// The session that read the page (a session's receipt).
    session_id: Option<String>,
    /// The session's turn (a session's receipt).
    turn: Option<u32>,
    /// The extraction that read the page (an extraction's receipt).
    extraction_id: Option<String>,
    url: String,
    fetched_at: String,
    http_status: u16,
    content_sha256: String,
    bytes: u64,
    records: u64,
    /// complete or partial.
    claim: String,
    cost_usd: f64,
    /// The extractor plugin that read the page.
    extractor: String,
    /// fetch or replay.
    source: String,
    issued_at: String,
    signature: ReceiptSignature,
}

/// A page of receipts.
#[derive(ToSchema)]
pub struct ReceiptList {
    /// `list`
    object: String,
    data: Vec<Receipt>,
    has_more: bool,
}

/// A public key that verifies receipts.
#[derive(ToSchema)]
pub struct SigningKey {
    id: String,
    /// `signing_key`
    object: String,
    /// `ed25519`
    alg: String,
    /// Base64 of the 32-byte Ed25519 public key.
    public_key: String,
    created_at: String,
}

/// The keys that verify receipts.
#[derive(ToSchema)]
pub struct SigningKeyList {
    /// `list`
    object: String,
    data: Vec<SigningKey>,
    has_more: bool,
}

/// A priced follow-up turn, waiting for confirmation.
#[derive(ToSchema)]
pub struct Proposal {
    /// Send it back as `proposal` to run the turn.
    id: String,
    estimated_usd: f64,
    passes: u32,
    expires_at: String,
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

// ---- monitors ----

/// A monitor's id.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct MonitorId {
    /// `mon_...`
    id: String,
}

/// What a monitor watches: `urls` with `entity`, or `query`.
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonitorWatch {
    /// 1 to 20 catalog URLs, each read as an extraction (with `entity`).
    #[schema(min_items = 1, max_items = 20)]
    urls: Option<Vec<String>>,
    /// What the URLs' records are (with `urls`), at most 200 characters.
    #[schema(min_length = 1, max_length = 200)]
    entity: Option<String>,
    /// A natural-language query run as a session (instead of `urls`).
    #[schema(min_length = 1, max_length = 2000)]
    query: Option<String>,
    /// Handed to the extractor as data, at most 2000 characters.
    #[schema(max_length = 2000)]
    guidance: Option<String>,
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

/// One run of a monitor.
#[derive(ToSchema)]
pub struct MonitorRun {
    /// `run_...`
    id: String,
    /// `monitor_run`
    object: String,
    monitor_id: String,
    /// running, changed, unchanged or failed (open enum).
    outcome: String,
    started_at: String,
    /// When it ended.
    fired_at: Option<String>,
    rows: u64,
    added: u64,
    removed: u64,
    changed: u64,
    price_moves: u64,
    cost_usd: f64,
    receipt_id: Option<String>,
    /// The extractions it ran (a URL watch).
    extraction_ids: Vec<String>,
    /// The session it ran (a query watch).
    session_id: Option<String>,
    /// Why it failed.
    reason: Option<String>,
    /// The event type it sent, if any.
    webhook: Option<String>,
}

/// A monitor (SPEC §2.5).
#[derive(ToSchema)]
pub struct Monitor {
    /// `mon_...`
    id: String,
    /// `monitor`
    object: String,
    livemode: bool,
    /// active, failing or paused (open enum).
    status: String,
    name: String,
    #[schema(value_type = Object)]
    watch: Value,
    cadence_s: u64,
    max_spend_usd_per_run: f64,
    /// Runs in 30 days at the cadence × the per-run cap.
    worst_case_monthly_usd: f64,
    webhook_url: Option<String>,
    last_run: Option<MonitorRun>,
    /// The run in flight (`run_...`), if any.
    running: Option<String>,
    /// Null while paused.
    next_run_at: Option<String>,
    consecutive_failures: u32,
    lifetime_spend_usd: f64,
    /// How many runs it has started.
    runs: u64,
    created_at: String,
    updated_at: String,
}

#[derive(ToSchema)]
pub struct MonitorList {
    /// `list`
    object: String,
    data: Vec<Monitor>,
    has_more: bool,
}

#[derive(ToSchema)]
pub struct MonitorRunList {
    /// `list`
    object: String,
    data: Vec<MonitorRun>,
    has_more: bool,
}

#[derive(ToSchema)]
pub struct MonitorDeleted {
    id: String,
    /// `monitor`
    object: String,
    deleted: bool,
}

// ---- discover ----

/// POST /discover (preview: discover).
#[derive(ToSchema, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscoverRequest {
    /// The site's page to start from (usually its home page): absolute http(s), at most 2048 characters.
    #[schema(format = "uri", max_length = 2048)]
    url: String,
}

/// A catalog page found by discover.
#[derive(ToSchema)]
pub struct DiscoverCandidate {
    url: String,
    /// listing, sitemap or product (open enum).
    kind: String,
    /// Why: home, nav-link, sitemap, sitemap:category, sitemap:index, robots.txt, jsonld:ItemList, structured-data, embedded-state, repeated-cards, pagination, products-on-page:N.
    signals: Vec<String>,
}

/// Discover's answer: at most 50 candidates, best first.
#[derive(ToSchema)]
pub struct DiscoverList {
    /// `list`
    object: String,
    data: Vec<DiscoverCandidate>,
}

// ---- webhooks ----

/// The latest delivery attempt to an endpoint.
#[derive(ToSchema)]
pub struct LastDelivery {
    msg_id: String,
    at: String,
    /// The receiver's HTTP status, when it answered.
    status: Option<u16>,
    ok: bool,
}

/// Where the account's events are delivered.
#[derive(ToSchema)]
pub struct WebhookEndpoint {
    id: String,
    /// `webhook_endpoint`
    object: String,
    url: String,
    events: Vec<String>,
    description: Option<String>,
    /// The version payloads are serialized under; PATCH advances it.
    fn_version: String,
    disabled: bool,
    livemode: bool,
    created_at: String,
    last_delivery: Option<LastDelivery>,
}

/// The creation response: the endpoint with its secret, this once.
pub struct WebhookEndpointCreated;

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

/// A page of endpoints.
#[derive(ToSchema)]
pub struct WebhookEndpointList {
    /// `list`
    object: String,
    data: Vec<WebhookEndpoint>,
    has_more: bool,
}

/// What DELETE /webhooks/{id} answers.
#[derive(ToSchema)]
pub struct WebhookEndpointDeleted {
    id: String,
    /// `webhook_endpoint`
    object: String,
    deleted: bool,
}

/// One delivery attempt, or the record of a message dropped unsent.
#[derive(ToSchema)]
pub struct WebhookAttempt {
    id: String,
    /// `webhook_attempt`
    object: String,
    /// The message id, equal to the `webhook-id` header.
    msg_id: String,
    /// The event type.
    #[schema(rename = "type")]
    event_type: String,
    /// 1 for the first attempt; 0 on a drop record.
    attempt: u32,
    at: String,
    url: Option<String>,
    duration_ms: u64,
    status: Option<u16>,
    error: Option<String>,
    ok: bool,
    next_attempt_at: Option<String>,
    dead_lettered: bool,
    dropped: bool,
}

/// A page of attempts, newest first.
#[derive(ToSchema)]
pub struct WebhookAttemptList {
    /// `list`
    object: String,
    data: Vec<WebhookAttempt>,
    has_more: bool,
}

/// The account default secret: signs deliveries to a session's own webhook_url.
#[derive(ToSchema)]
pub struct WebhookSecret {
    /// `webhook_secret`
    object: String,
    /// `whsec_…`
    secret: String,
    created_at: String,
}

// ---- webhook payloads (the `data` of each event type) ----

/// session.answered
#[derive(ToSchema)]
pub struct SessionAnsweredData {
    session_id: String,
    /// `answered`
    status: String,
    turn: u32,
    qualified: u64,
    records: u64,
    sources: u64,
    receipts_signed: u64,
    spend_usd: f64,
    #[schema(format = "uri")]
    result_url: String,
}

/// session.abstained, session.error and session.stopped
#[derive(ToSchema)]
pub struct SessionEndedData {
    session_id: String,
    /// abstained, error or stopped.
    status: String,
    reason: String,
    settled_usd: f64,
    released_usd: f64,
    records: u64,
    /// spend-budget, query-budget or stopped; session.stopped only.
    stop: Option<String>,
}

/// session.proposal
#[derive(ToSchema)]
pub struct SessionProposalData {
    session_id: String,
    turn: u32,
    proposal: Proposal,
}

/// balance.low: the available balance crossed below the account's threshold.
#[derive(ToSchema)]
pub struct BalanceLowData {
    balance_usd: f64,
    available_usd: f64,
    threshold_usd: f64,
    open_reserves_usd: f64,
    auto_recharge: AutoRecharge,
}

/// An extraction's id.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ExtractionId {
    /// `ext_...`
    id: String,
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

/// An extraction: one page read once, every record of it a row.
#[derive(ToSchema)]
pub struct Extraction {
    id: String,
    /// `extraction`
    object: String,
    livemode: bool,
    /// running, delivered, abstained, error or stopped (open enum).
    status: String,
    url: String,
    /// What was asked for; null once redacted.
    entity: Option<String>,
    /// complete or partial: the receipt's stated claim, once read.
    claim: Option<String>,
    records: u64,
    qualified: u64,
    spend_usd: f64,
    max_spend_usd: f64,
    reserved_usd: f64,
    settled_usd: f64,
    released_usd: f64,
    receipt_id: Option<String>,
    /// Set when created by a refresh.
    refresh_of: Option<String>,
    /// `record` when a refresh was served from the last delivery at $0.
    served_from: Option<String>,
    /// Refreshes: rows added, removed, changed (and price_moves) against the refreshed-from delivery.
    #[schema(value_type = Option<Object>)]
    diff: Option<Value>,
    redacted: Option<bool>,
    /// spend-budget or stopped; only when status is stopped.
    stop: Option<String>,
    error: Option<SessionError>,
    reason: Option<String>,
    guidance: Option<String>,
    #[schema(value_type = Option<HashMap<String, String>>)]
    metadata: Option<Value>,
    webhook_url: Option<String>,
    #[schema(format = "uri")]
    result_url: String,
    created_at: String,
    updated_at: String,
    ended_at: Option<String>,
}

/// A create's answer: the extraction for `url`, the batch for `urls`.
pub struct ExtractionCreated;

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
#[derive(ToSchema)]
pub struct ExtractionBatch {
    /// `extraction_batch`
    object: String,
    data: Vec<Extraction>,
    /// N × max_spend_usd, the stated worst case.
    total_reserved_usd: f64,
}

/// A page of extractions, newest first.
#[derive(ToSchema)]
pub struct ExtractionList {
    /// `list`
    object: String,
    data: Vec<Extraction>,
    has_more: bool,
}

/// An extraction's result, once it has ended.
#[derive(ToSchema)]
pub struct ExtractionResult {
    /// `result`
    object: String,
    extraction_id: String,
    status: String,
    claim: Option<String>,
    qualified: u64,
    records: u64,
    spend_usd: f64,
    receipts: Vec<String>,
    rows: Vec<Row>,
    unchecked: Vec<Row>,
}
