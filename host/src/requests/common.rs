//! Reading the common request bodies: their JSON read into the wire
//! types, then checked once.

use crate::http::{ApiError, Body};
use crate::wire::*;

/// A required query of at most `MAX_QUERY_CHARS`.
pub(crate) fn query_of(body: &Body) -> Result<String, ApiError> {
    let query = body.required_str("query")?;
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(ApiError::invalid(
            "query",
            format!("query must be at most {MAX_QUERY_CHARS} characters"),
        ));
    }
    Ok(query)
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
