//! Reading the webhooks request bodies: their JSON read into the wire
//! types, then checked once.

use crate::http::{ApiError, Body};

use crate::wire::*;

/// Event types: at least one, each a known type.
pub(crate) fn events_of(events: Vec<String>) -> Result<Vec<String>, ApiError> {
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

/// An endpoint URL that passes the hard wall (https, public unicast
/// addresses), or 400 invalid_param `url` with the reason.
async fn endpoint_url(url: String, wall: &crate::targets::Policy) -> Result<String, ApiError> {
    if url.len() > MAX_URL_CHARS {
        return Err(ApiError::invalid(
            "url",
            format!("url must be at most {MAX_URL_CHARS} characters"),
        ));
    }
    crate::webhooks::check_target(wall, &url)
        .await
        .map_err(|e| ApiError::invalid("url", e.to_string()))?;
    Ok(url)
}

/// A dated version this service knows, or 400 naming `param`.
pub fn known_version(param: &str, v: &str) -> Result<String, ApiError> {
    if KNOWN_VERSIONS.contains(&v) {
        Ok(v.to_string())
    } else {
        Err(ApiError::invalid(
            param,
            format!(
                "{param} must be a dated version this service knows: {}",
                KNOWN_VERSIONS.join(", ")
            ),
        ))
    }
}

impl WebhookEndpointCreate {
    /// The body, its URL checked against the hard wall `wall`.
    pub async fn parse(
        body: &Body,
        wall: &crate::targets::Policy,
    ) -> Result<WebhookEndpointCreate, ApiError> {
        body.only(&["url", "events", "description"])?;
        let url = endpoint_url(body.required_str("url")?, wall).await?;
        // Without `events`, every type but the opt-in monitor.unchanged.
        let events = match body.optional_strings("events")? {
            Some(events) => events_of(events)?,
            None => default_events(),
        };
        let description = body.optional_str("description", MAX_DESCRIPTION_CHARS)?;
        Ok(WebhookEndpointCreate {
            url,
            events,
            description,
        })
    }
}

impl WebhookEndpointUpdate {
    /// The body, its URL checked against the hard wall `wall`, and its
    /// version only ever advancing from the endpoint's `pinned` one.
    pub async fn parse(
        body: &Body,
        wall: &crate::targets::Policy,
        pinned: &str,
    ) -> Result<WebhookEndpointUpdate, ApiError> {
        body.only(&["url", "events", "disabled", "fn_version", "description"])?;
        if body.changes_nothing(&[]) {
            // Nothing to change (`{}`, only nulls), as with a body that does
            // not parse or is over the cap (SPEC §7.3.1: treated as empty,
            // 400), the same answer as a monitor's PATCH.
            return Err(ApiError::invalid(
                "url",
                "send at least one of url, events, disabled, fn_version and description",
            ));
        }
        let url = match body.get("url") {
            Some(_) => Some(endpoint_url(body.required_str("url")?, wall).await?),
            None => None,
        };
        let events = body
            .optional_strings("events")?
            .map(events_of)
            .transpose()?;
        let disabled = body.optional_bool("disabled")?;
        let fn_version = match body.optional_str("fn_version", 32)? {
            Some(v) => {
                let v = known_version("fn_version", &v)?;
                // Dated versions sort as text: a pin only moves forward.
                if v.as_str() < pinned {
                    return Err(ApiError::invalid(
                        "fn_version",
                        format!("fn_version can only advance; the endpoint is pinned to {pinned}"),
                    ));
                }
                Some(v)
            }
            None => None,
        };
        Ok(WebhookEndpointUpdate {
            url,
            events,
            disabled,
            fn_version,
            description: body.optional_str("description", MAX_DESCRIPTION_CHARS)?,
        })
    }
}
