//! The error envelope (SPEC §7): `{error: {type, code, message, doc_url,
//! request_id, ...context}}`, where the context members depend on the code.
//! `http::ApiError` builds one per answer; the OpenAPI document states one
//! schema per code from the context types below.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::{Proposal, Usd};

/// Every error answer's body.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
}

/// The members every error has, and the code's own.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorBody {
    /// The error type of SPEC §7.1, derived from the code.
    #[serde(rename = "type")]
    pub error_type: &'static str,
    pub code: &'static str,
    pub message: String,
    pub doc_url: String,
    /// Equals the fn-request-id header.
    pub request_id: String,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub context: Option<ErrorContext>,
}

/// The code-specific members (SPEC §7.2), one type per set of members.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ErrorContext {
    Param(ParamContext),
    KeyRevoked(KeyRevokedContext),
    MissingScope(MissingScopeContext),
    SessionCap(SessionCapContext),
    MonthlyCap(MonthlyCapContext),
    InsufficientCredit(InsufficientCreditContext),
    Proposal(ProposalContext),
    IdempotencyConflict(IdempotencyConflictContext),
    Status(StatusContext),
    Declined(DeclinedContext),
    RateLimited(RateLimitedContext),
    ConcurrencyCap(ConcurrencyCapContext),
    Surface(SurfaceContext),
}

/// invalid_param
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ParamContext {
    /// The body member, query parameter or header at fault.
    pub param: String,
}

/// key_revoked
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct KeyRevokedContext {
    #[schema(format = DateTime)]
    pub revoked_at: String,
}

/// missing_scope
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MissingScopeContext {
    pub required_scope: String,
}

/// session_cap_exceeded
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionCapContext {
    #[schema(value_type = f64)]
    pub cap_usd: Usd,
    #[schema(value_type = f64)]
    pub requested_usd: Usd,
}

/// monthly_cap_exceeded
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MonthlyCapContext {
    #[schema(value_type = f64)]
    pub cap_usd: Usd,
    #[schema(value_type = f64)]
    pub spent_usd: Usd,
}

/// insufficient_credit
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct InsufficientCreditContext {
    #[schema(value_type = f64)]
    pub balance_usd: Usd,
    #[schema(value_type = f64)]
    pub open_reserves_usd: Usd,
    pub top_up_url: String,
}

/// proposal_required
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ProposalContext {
    pub proposal: Proposal,
}

/// idempotency_conflict
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct IdempotencyConflictContext {
    pub original_request_id: String,
}

/// session_terminal, session_busy
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StatusContext {
    /// The session's status.
    pub status: String,
}

/// declined_to_spend (reserved: never emitted)
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeclinedContext {
    /// The planner's reading of the query.
    #[schema(value_type = Object)]
    pub parsed: Value,
}

/// rate_limited
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RateLimitedContext {
    /// Also in the Retry-After header.
    pub retry_after_s: u64,
}

/// concurrency_cap
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ConcurrencyCapContext {
    pub retry_after_s: u64,
    pub limit: u64,
    pub in_flight: u64,
}

/// not_implemented
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SurfaceContext {
    /// The planned surface the route belongs to.
    pub surface: String,
}
