//! Reading the monitors request bodies: their JSON read into the wire
//! types, then checked once.

use super::common::*;
use crate::http::{ApiError, Body};
use crate::wire::*;
use serde_json::Value;

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
        let w = Body(w.clone(), false);
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
pub(crate) fn cadence_of(body: &Body) -> Result<Option<u64>, ApiError> {
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

/// `notify_on`, when present: the defaults for members left out.
pub(crate) fn notify_on_of(body: &Body) -> Result<Option<NotifyOn>, ApiError> {
    let Some(v) = body.get("notify_on") else {
        return Ok(None);
    };
    let n: NotifyOn = serde_json::from_value(v.clone())
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
pub(crate) fn channels_of(body: &Body) -> Result<Option<Vec<MonitorChannel>>, ApiError> {
    let Some(v) = body.get("channels") else {
        return Ok(None);
    };
    let invalid = |m: &str| ApiError::invalid("channels", m.to_string());
    let list: Vec<MonitorChannel> = serde_json::from_value(v.clone())
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
pub(crate) fn webhook_url_of(body: &Body) -> Result<Option<Option<String>>, ApiError> {
    if !body.0.contains_key("webhook_url") {
        return Ok(None);
    }
    Ok(Some(body.optional_str("webhook_url", MAX_URL_CHARS)?))
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
        // Every member is optional (SPEC §4.3): no body, `{}` or only nulls
        // (but a null webhook_url clears it) change nothing, and the answer
        // is the monitor as it is (`MonitorUpdate::changes_nothing`); so
        // does a body that does not parse or is over the cap, treated as
        // empty (§7.3.1). A body that is JSON but no object is no request to
        // change nothing: 400 naming the first member.
        if body.not_an_object() {
            return Err(ApiError::invalid(
                "paused",
                "the body must be a JSON object with any of paused, cadence_s, max_spend_usd_per_run, webhook_url, name, notify_on and channels",
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
