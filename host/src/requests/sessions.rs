//! Reading the sessions request bodies: their JSON read into the wire
//! types, then checked once.

use super::common::*;
use crate::http::{ApiError, Body};
use crate::wire::*;

/// The members of a session's creation, which an estimate also takes (the
/// same body may be sent to both); an estimate reads only the query.
const SESSION_CREATE_MEMBERS: [&str; 5] = [
    "query",
    "max_spend_usd",
    "guidance",
    "webhook_url",
    "metadata",
];

impl EstimateRequest {
    pub fn parse(body: &Body) -> Result<EstimateRequest, ApiError> {
        let query = query_of(body)?;
        body.only(&SESSION_CREATE_MEMBERS)?;
        Ok(EstimateRequest { query })
    }
}

impl SessionCreate {
    pub fn parse(body: &Body) -> Result<SessionCreate, ApiError> {
        let query = query_of(body)?;
        body.only(&SESSION_CREATE_MEMBERS)?;
        Ok(SessionCreate {
            query,
            max_spend_usd: body.optional_usd("max_spend_usd")?,
            guidance: body.optional_str("guidance", MAX_GUIDANCE_CHARS)?,
            metadata: body.optional_metadata("metadata")?,
            webhook_url: body.optional_str("webhook_url", MAX_URL_CHARS)?,
        })
    }
}

impl TurnCreate {
    pub fn parse(body: &Body) -> Result<TurnCreate, ApiError> {
        let query = query_of(body)?;
        body.only(&["query", "proposal", "max_spend_usd"])?;
        Ok(TurnCreate {
            query,
            proposal: body.optional_str("proposal", 64)?,
            max_spend_usd: body.optional_usd("max_spend_usd")?,
        })
    }
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
