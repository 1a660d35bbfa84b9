//! Monitors (preview: monitors) and their runs.

use serde::Serialize;
use utoipa::ToSchema;

use super::money::Micros;
use super::requests::{check_url, MAX_GUIDANCE_CHARS, MAX_QUERY_CHARS, MAX_URL_CHARS};
use super::{list_of, Usd};
use crate::http::{ApiError, Body};
use serde_json::Value;

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
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
    pub price_moves: u64,
    /// Changes `notify_on` selected (GET /monitors/{id}/runs/{run_id}/changes lists them all).
    pub notified: u64,
    /// True for a monitor's first good run: the baseline, which notifies nothing.
    pub baseline: bool,
    #[schema(value_type = f64)]
    pub cost_usd: Usd,
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
    pub last_run: Option<MonitorRun>,
    /// The run in flight (`run_...`), if any.
    pub running: Option<String>,
    /// Null while paused.
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
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
    pub price_moves: u64,
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

/// The most chat channels one monitor posts to.
pub const MAX_CHANNELS: usize = 5;

/// `notify_on`, when present: the defaults for members left out.
fn notify_on_of(body: &Body) -> Result<Option<super::NotifyOn>, ApiError> {
    let Some(v) = body.get("notify_on") else {
        return Ok(None);
    };
    let n: super::NotifyOn = serde_json::from_value(v.clone())
        .map_err(|e| ApiError::invalid("notify_on", format!("notify_on: {e}")))?;
    let thresholds = [
        n.price_down_percent,
        n.price_down_amount,
        n.price_up_percent,
        n.price_up_amount,
    ];
    if thresholds
        .iter()
        .flatten()
        .any(|t| !t.is_finite() || *t < 0.0)
    {
        return Err(ApiError::invalid(
            "notify_on",
            "notify_on thresholds are numbers of 0 or more, or null",
        ));
    }
    Ok(Some(n))
}

/// `channels`, when present: at most 5 `{kind: slack|discord|teams, url}`.
fn channels_of(body: &Body) -> Result<Option<Vec<super::MonitorChannel>>, ApiError> {
    let Some(v) = body.get("channels") else {
        return Ok(None);
    };
    let invalid = |m: &str| ApiError::invalid("channels", m.to_string());
    let list: Vec<super::MonitorChannel> = serde_json::from_value(v.clone())
        .map_err(|_| invalid("channels is an array of {kind, url}"))?;
    if list.len() > MAX_CHANNELS {
        return Err(invalid("a monitor posts to at most 5 channels"));
    }
    for (i, c) in list.iter().enumerate() {
        if !matches!(c.kind.as_str(), "slack" | "discord" | "teams") {
            return Err(invalid("channels[].kind is slack, discord or teams"));
        }
        check_url(&format!("channels[{i}].url"), &c.url)?;
    }
    Ok(Some(list))
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
    /// What is worth telling; members left out take their defaults.
    pub notify_on: Option<super::NotifyOn>,
    /// Chat channels told of notified changes.
    #[schema(max_items = 5)]
    pub channels: Option<Vec<super::MonitorChannel>>,
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
            "notify_on",
            "channels",
        ])?;
        Ok(MonitorCreate {
            watch,
            cadence_s,
            max_spend_usd_per_run,
            name,
            webhook_url: webhook_url_of(body)?.flatten(),
            notify_on: notify_on_of(body)?,
            channels: channels_of(body)?,
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
    pub notify_on: Option<super::NotifyOn>,
    #[schema(max_items = 5)]
    pub channels: Option<Vec<super::MonitorChannel>>,
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
            "notify_on",
            "channels",
        ])?;
        if body.0.is_empty() {
            // Nothing to change (also a body that does not parse, which counts as empty).
            return Err(ApiError::invalid(
                "paused",
                "send at least one of paused, cadence_s, max_spend_usd_per_run, webhook_url, name, notify_on and channels",
            ));
        }
        Ok(MonitorUpdate {
            paused,
            cadence_s,
            max_spend_usd_per_run,
            webhook_url: webhook_url_of(body)?,
            name,
            notify_on: notify_on_of(body)?,
            channels: channels_of(body)?,
        })
    }
}

/// The shortest and longest cadence, in seconds.
pub const MIN_CADENCE_S: u64 = 60;
pub const MAX_CADENCE_S: u64 = 30 * 86_400;
/// The most URLs one monitor watches.
pub const MAX_WATCH_URLS: usize = 20;
