//! Reading the extractions request bodies: their JSON read into the wire
//! types, then checked once.

use super::common::*;
use crate::http::{ApiError, Body};
use crate::wire::*;

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
            "render",
        ])?;
        let render = match body.optional_str("render", 16)?.as_deref() {
            None => None,
            Some("off") => Some(RenderMode::Off),
            Some("auto") => Some(RenderMode::Auto),
            Some("always") => Some(RenderMode::Always),
            Some(_) => {
                return Err(ApiError::invalid(
                    "render",
                    "render must be one of off, auto, always",
                ))
            }
        };
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
            render,
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
