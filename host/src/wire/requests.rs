//! Request bodies. Each is read from the request's JSON object by its
//! `parse` (SPEC §7.3.1: a body that does not parse, or is over 1 MB, is
//! empty, so the first missing required member is named; an unknown member
//! is refused), and stated in the document by its schema. What needs the
//! server's state (the target wall, caps, the session's turn) is checked by
//! the handler after.

use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::extractions::{MAX_BATCH, MAX_ENTITY_CHARS};
use crate::http::{ApiError, Body};
use crate::money::Micros;
use crate::monitors::{MAX_CADENCE_S, MAX_WATCH_URLS, MIN_CADENCE_S};

/// The longest query or follow-up (SPEC §8).
pub const MAX_QUERY_CHARS: usize = 2000;
/// The longest `guidance` (SPEC §8).
pub const MAX_GUIDANCE_CHARS: usize = 2000;
/// The longest URL a body may name.
pub const MAX_URL_CHARS: usize = 2048;

/// A required query of at most `MAX_QUERY_CHARS`.
fn query_of(body: &Body) -> Result<String, ApiError> {
    let query = body.required_str("query")?;
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(ApiError::invalid(
            "query",
            format!("query must be at most {MAX_QUERY_CHARS} characters"),
        ));
    }
    Ok(query)
}

/// PATCH /keys/{id}.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyRename {
    /// The new name: not blank, at most 100 characters.
    #[schema(min_length = 1, max_length = 100, pattern = r"\S")]
    pub name: String,
}

impl KeyRename {
    pub fn parse(body: &Body) -> Result<KeyRename, ApiError> {
        let name = body.required_str("name")?;
        if name.chars().count() > 100 {
            return Err(ApiError::invalid(
                "name",
                "name must be at most 100 characters",
            ));
        }
        body.only(&["name"])?;
        Ok(KeyRename { name })
    }
}

/// POST /sessions/estimate.
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

impl EstimateRequest {
    pub fn parse(body: &Body) -> Result<EstimateRequest, ApiError> {
        Ok(EstimateRequest {
            query: query_of(body)?,
        })
    }
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

impl SessionCreate {
    pub fn parse(body: &Body) -> Result<SessionCreate, ApiError> {
        let query = query_of(body)?;
        body.only(&[
            "query",
            "max_spend_usd",
            "guidance",
            "webhook_url",
            "metadata",
        ])?;
        Ok(SessionCreate {
            query,
            max_spend_usd: body.optional_usd("max_spend_usd")?,
            guidance: body.optional_str("guidance", MAX_GUIDANCE_CHARS)?,
            metadata: body.optional_metadata("metadata")?,
            webhook_url: body.optional_str("webhook_url", MAX_URL_CHARS)?,
        })
    }
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

impl TurnCreate {
    pub fn parse(body: &Body) -> Result<TurnCreate, ApiError> {
        let query = body.required_str("query")?;
        body.only(&["query", "proposal", "max_spend_usd"])?;
        Ok(TurnCreate {
            query,
            proposal: body.optional_str("proposal", 64)?,
            max_spend_usd: body.optional_usd("max_spend_usd")?,
        })
    }
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

impl SessionRefresh {
    pub fn parse(body: &Body) -> Result<SessionRefresh, ApiError> {
        body.only(&["proposal", "max_spend_usd"])?;
        Ok(SessionRefresh {
            proposal: body.optional_str("proposal", 64)?,
            max_spend_usd: body.optional_usd("max_spend_usd")?,
        })
    }
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

impl ExtractionRefresh {
    pub fn parse(body: &Body) -> Result<ExtractionRefresh, ApiError> {
        body.only(&["max_age_s", "max_spend_usd"])?;
        let max_age_s = match body.get("max_age_s") {
            None => None,
            Some(v) => Some(v.as_u64().ok_or_else(|| {
                ApiError::invalid(
                    "max_age_s",
                    "max_age_s must be a whole number of seconds, 0 or more",
                )
            })?),
        };
        Ok(ExtractionRefresh {
            max_age_s,
            max_spend_usd: body.optional_usd("max_spend_usd")?,
        })
    }
}

/// An absolute http(s) URL of at most 2048 characters, or 400 naming `param`.
pub fn check_url(param: &str, url: &str) -> Result<(), ApiError> {
    let ok = url.chars().count() <= MAX_URL_CHARS
        && url::Url::parse(url)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
    if ok {
        Ok(())
    } else {
        Err(ApiError::invalid(
            param,
            format!("{param} must be an absolute http or https URL of at most 2048 characters"),
        ))
    }
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

impl MonitorWatch {
    /// `watch`: `{urls: [...], entity, guidance?}` or `{query, guidance?}`.
    pub fn parse(body: &Body) -> Result<MonitorWatch, ApiError> {
        let invalid = |msg: &str| ApiError::invalid("watch", msg.to_string());
        let Some(Value::Object(w)) = body.get("watch") else {
            return Err(match body.get("watch") {
                None => ApiError::missing("watch"),
                Some(_) => invalid("watch must be an object: {urls, entity} or {query}"),
            });
        };
        let w = Body(w.clone());
        w.only(&["urls", "entity", "guidance", "query"])
            .map_err(|_| invalid("watch holds urls, entity and guidance, or query"))?;
        let guidance = w
            .optional_str("guidance", MAX_GUIDANCE_CHARS)
            .map_err(|_| invalid("watch.guidance must be a string of at most 2000 characters"))?;
        match (w.get("urls"), w.get("query")) {
            (Some(_), Some(_)) | (None, None) => Err(invalid(
                "watch needs exactly one of urls (catalog URLs) and query",
            )),
            (Some(_), None) => {
                let urls = w
                    .optional_strings("urls")
                    .map_err(|_| invalid("watch.urls must be an array of URLs"))?
                    .unwrap_or_default();
                if urls.is_empty() || urls.len() > MAX_WATCH_URLS {
                    return Err(invalid(&format!(
                        "watch.urls must hold 1 to {MAX_WATCH_URLS} URLs"
                    )));
                }
                for (i, url) in urls.iter().enumerate() {
                    check_url(&format!("watch.urls[{i}]"), url)?;
                }
                let entity = match w.get("entity") {
                    None => return Err(ApiError::missing("watch.entity")),
                    Some(Value::String(e))
                        if !e.trim().is_empty() && e.chars().count() <= MAX_NAME_CHARS =>
                    {
                        e.clone()
                    }
                    Some(_) => {
                        return Err(ApiError::invalid(
                            "watch.entity",
                            "watch.entity must be a non-empty string of at most 200 characters",
                        ))
                    }
                };
                Ok(MonitorWatch {
                    urls: Some(urls),
                    entity: Some(entity),
                    guidance,
                    query: None,
                })
            }
            (None, Some(_)) => {
                if w.get("entity").is_some() {
                    return Err(invalid("watch.entity goes with urls, not with query"));
                }
                match w.get("query") {
                    Some(Value::String(q))
                        if !q.trim().is_empty() && q.chars().count() <= MAX_QUERY_CHARS =>
                    {
                        Ok(MonitorWatch {
                            urls: None,
                            entity: None,
                            guidance,
                            query: Some(q.clone()),
                        })
                    }
                    _ => Err(ApiError::invalid(
                        "watch.query",
                        "watch.query must be a non-empty string of at most 2000 characters",
                    )),
                }
            }
        }
    }
}

/// `cadence_s`, when present.
fn cadence_of(body: &Body) -> Result<Option<u64>, ApiError> {
    match body.get("cadence_s") {
        None => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (MIN_CADENCE_S..=MAX_CADENCE_S).contains(&n) => Ok(Some(n)),
            _ => Err(ApiError::invalid(
                "cadence_s",
                format!("cadence_s must be a whole number of seconds from {MIN_CADENCE_S} to {MAX_CADENCE_S}"),
            )),
        },
    }
}

/// `webhook_url`: absent (`None`), null (`Some(None)`, which clears it),
/// or a URL.
fn webhook_url_of(body: &Body) -> Result<Option<Option<String>>, ApiError> {
    if !body.0.contains_key("webhook_url") {
        return Ok(None);
    }
    Ok(Some(body.optional_str("webhook_url", MAX_URL_CHARS)?))
}

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
}

impl MonitorCreate {
    pub fn parse(body: &Body) -> Result<MonitorCreate, ApiError> {
        let watch = MonitorWatch::parse(body)?;
        let cadence_s = cadence_of(body)?.ok_or_else(|| ApiError::missing("cadence_s"))?;
        let max_spend_usd_per_run = body
            .optional_usd("max_spend_usd_per_run")?
            .ok_or_else(|| ApiError::missing("max_spend_usd_per_run"))?;
        let name = body.optional_str("name", MAX_NAME_CHARS)?;
        body.only(&[
            "watch",
            "name",
            "cadence_s",
            "max_spend_usd_per_run",
            "webhook_url",
        ])?;
        Ok(MonitorCreate {
            watch,
            cadence_s,
            max_spend_usd_per_run,
            name,
            webhook_url: webhook_url_of(body)?.flatten(),
        })
    }
}

/// PATCH /monitors/{id} (preview: monitors): at least one member.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(min_properties = 1)]
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
}

impl MonitorUpdate {
    pub fn parse(body: &Body) -> Result<MonitorUpdate, ApiError> {
        let paused = body.optional_bool("paused")?;
        let cadence_s = cadence_of(body)?;
        let max_spend_usd_per_run = body.optional_usd("max_spend_usd_per_run")?;
        let name = body.optional_str("name", MAX_NAME_CHARS)?;
        body.only(&[
            "paused",
            "cadence_s",
            "max_spend_usd_per_run",
            "webhook_url",
            "name",
        ])?;
        if body.0.is_empty() {
            // Nothing to change (also a body that does not parse, which counts as empty).
            return Err(ApiError::invalid(
                "paused",
                "send at least one of paused, cadence_s, max_spend_usd_per_run, webhook_url and name",
            ));
        }
        Ok(MonitorUpdate {
            paused,
            cadence_s,
            max_spend_usd_per_run,
            webhook_url: webhook_url_of(body)?,
            name,
        })
    }
}

/// POST /discover (preview: discover).
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscoverRequest {
    /// The site's page to start from (usually its home page): absolute http(s), at most 2048 characters.
    #[schema(format = "uri", max_length = 2048)]
    pub url: String,
}

impl DiscoverRequest {
    pub fn parse(body: &Body) -> Result<DiscoverRequest, ApiError> {
        let url = body.required_str("url")?;
        body.only(&["url"])?;
        check_url("url", &url)?;
        Ok(DiscoverRequest { url })
    }
}

/// The longest endpoint description.
pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// Event types: at least one, each a known type.
fn events_of(events: Vec<String>) -> Result<Vec<String>, ApiError> {
    use crate::webhooks::{is_known_event, EMITTED_EVENTS, PLANNED_EVENTS};
    if events.is_empty() {
        return Err(ApiError::invalid(
            "events",
            "events must name at least one event type",
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(events.len());
    for e in events {
        if !is_known_event(&e) {
            let known: Vec<&str> = EMITTED_EVENTS
                .iter()
                .chain(PLANNED_EVENTS)
                .copied()
                .collect();
            return Err(ApiError::invalid(
                "events",
                format!(
                    "unknown event type {e:?}; known types: {}",
                    known.join(", ")
                ),
            ));
        }
        if !out.contains(&e) {
            out.push(e);
        }
    }
    Ok(out)
}

/// POST /webhooks.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookEndpointCreate {
    /// A public https URL (no private, loopback, link-local or metadata addresses).
    #[schema(format = "uri", max_length = 2048)]
    pub url: String,
    /// Event types to deliver: at least one, each a known type.
    #[schema(min_items = 1)]
    pub events: Vec<String>,
    #[schema(max_length = 500)]
    pub description: Option<String>,
}

impl WebhookEndpointCreate {
    pub fn parse(body: &Body) -> Result<WebhookEndpointCreate, ApiError> {
        body.only(&["url", "events", "description"])?;
        let url = body.required_str("url")?;
        let events = events_of(
            body.optional_strings("events")?
                .ok_or_else(|| ApiError::missing("events"))?,
        )?;
        let description = body.optional_str("description", MAX_DESCRIPTION_CHARS)?;
        Ok(WebhookEndpointCreate {
            url,
            events,
            description,
        })
    }
}

/// PATCH /webhooks/{id}: every member optional.
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

impl WebhookEndpointUpdate {
    pub fn parse(body: &Body) -> Result<WebhookEndpointUpdate, ApiError> {
        body.only(&["url", "events", "disabled", "fn_version", "description"])?;
        let url = match body.get("url") {
            Some(_) => Some(body.required_str("url")?),
            None => None,
        };
        let events = body
            .optional_strings("events")?
            .map(events_of)
            .transpose()?;
        Ok(WebhookEndpointUpdate {
            url,
            events,
            disabled: body.optional_bool("disabled")?,
            fn_version: body.optional_str("fn_version", 32)?,
            description: body.optional_str("description", MAX_DESCRIPTION_CHARS)?,
        })
    }
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
}

impl ExtractionCreate {
    pub fn parse(body: &Body) -> Result<ExtractionCreate, ApiError> {
        let (url, urls) = match (body.get("url"), body.get("urls")) {
            (Some(_), Some(_)) => {
                return Err(ApiError::invalid(
                    "url",
                    "send exactly one of url and urls, not both",
                ))
            }
            (None, None) => {
                return Err(ApiError::invalid(
                    "url",
                    "url is required (or urls, for a batch)",
                ))
            }
            (Some(_), None) => {
                let url = body.required_str("url")?;
                check_url("url", &url)?;
                (Some(url), None)
            }
            (None, Some(_)) => {
                let urls = body.optional_strings("urls")?.unwrap_or_default();
                if urls.is_empty() || urls.len() > MAX_BATCH {
                    return Err(ApiError::invalid(
                        "urls",
                        format!("urls must hold 1 to {MAX_BATCH} URLs"),
                    ));
                }
                for (i, url) in urls.iter().enumerate() {
                    check_url(&format!("urls[{i}]"), url)?;
                }
                (None, Some(urls))
            }
        };
        let entity = body.required_str("entity")?;
        if entity.chars().count() > MAX_ENTITY_CHARS {
            return Err(ApiError::invalid(
                "entity",
                format!("entity must be at most {MAX_ENTITY_CHARS} characters"),
            ));
        }
        body.only(&[
            "url",
            "urls",
            "entity",
            "guidance",
            "max_spend_usd",
            "webhook_url",
            "metadata",
        ])?;
        let max_spend_usd = body
            .optional_usd("max_spend_usd")?
            .ok_or_else(|| ApiError::missing("max_spend_usd"))?;
        Ok(ExtractionCreate {
            url,
            urls,
            entity,
            guidance: body.optional_str("guidance", MAX_GUIDANCE_CHARS)?,
            max_spend_usd,
            metadata: body.optional_metadata("metadata")?,
            webhook_url: body.optional_str("webhook_url", MAX_URL_CHARS)?,
        })
    }

    /// The pages to read, and whether this is the batch form.
    pub fn pages(&self) -> (Vec<String>, bool) {
        match (&self.url, &self.urls) {
            (Some(url), _) => (vec![url.clone()], false),
            (None, urls) => (urls.clone().unwrap_or_default(), true),
        }
    }
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
