//! Reading the discover request bodies: their JSON read into the wire
//! types, then checked once.

use super::common::*;
use crate::http::{ApiError, Body};
use crate::wire::*;

impl DiscoverRequest {
    pub fn parse(body: &Body) -> Result<DiscoverRequest, ApiError> {
        let url = body.required_str("url")?;
        body.only(&["url"])?;
        check_url("url", &url)?;
        Ok(DiscoverRequest { url })
    }
}
