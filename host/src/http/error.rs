//! The error envelope: one enum for every error code of the API.
//!
//! A handler returns `ApiError`; the client receives the stable envelope
//! `{error: {type, code, message, doc_url, request_id, ...context}}` and the
//! details of internal faults go to the log, never to the client.

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::money::Micros;
use crate::wire::{ErrorBody, ErrorContext, ErrorEnvelope};

/// Every error the API returns. Each variant is one `code` of SPEC §7.2.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{message}")]
    InvalidParam { param: String, message: String },
    #[error("the API key is missing, malformed or unknown")]
    InvalidKey,
    #[error("the API key was revoked")]
    KeyRevoked { revoked_at: String },
    #[error("the API key lacks the scope {required_scope}")]
    MissingScope { required_scope: &'static str },
    #[error("max_spend_usd exceeds this key's per-session cap")]
    SessionCapExceeded { cap: Micros, requested: Micros },
    #[error("this request would exceed the account's monthly spend cap")]
    MonthlyCapExceeded { cap: Micros, spent: Micros },
    #[error("the available balance cannot cover the reservation")]
    InsufficientCredit {
        balance: Micros,
        open_reserves: Micros,
        top_up_url: String,
    },
    #[error("no such resource")]
    NotFound,
    #[error("this turn needs confirmation: send the proposal id back to run it")]
    ProposalRequired { proposal: crate::wire::Proposal },
    #[error(
        "this Idempotency-Key was used with a different request, or that request is still running"
    )]
    IdempotencyConflict { original_request_id: String },
    #[error("the session is {status}: it cannot take this request")]
    SessionTerminal { status: String },
    #[error("the session is still running")]
    SessionBusy { status: String },
    #[error("too many requests for this key")]
    RateLimited { retry_after_s: u64 },
    #[error("too many runs in flight for this account")]
    ConcurrencyCap {
        retry_after_s: u64,
        limit: u64,
        in_flight: u64,
    },
    #[error("internal error; safe to retry with the same Idempotency-Key")]
    Internal(#[source] anyhow::Error),
    #[error("a dependency of the service is unavailable; nothing was billed, retry with backoff")]
    EngineUnavailable,
    #[error("{surface} is planned and not served yet")]
    NotImplemented { surface: &'static str },
}

impl ApiError {
    pub fn invalid(param: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError::InvalidParam {
            param: param.into(),
            message: message.into(),
        }
    }

    pub fn missing(param: &str) -> ApiError {
        ApiError::invalid(param, format!("{param} is required"))
    }

    pub fn internal(err: impl Into<anyhow::Error>) -> ApiError {
        ApiError::Internal(err.into())
    }

    /// The stable code clients program against.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::InvalidParam { .. } => "invalid_param",
            ApiError::InvalidKey => "invalid_key",
            ApiError::KeyRevoked { .. } => "key_revoked",
            ApiError::MissingScope { .. } => "missing_scope",
            ApiError::SessionCapExceeded { .. } => "session_cap_exceeded",
            ApiError::MonthlyCapExceeded { .. } => "monthly_cap_exceeded",
            ApiError::InsufficientCredit { .. } => "insufficient_credit",
            ApiError::NotFound => "not_found",
            ApiError::ProposalRequired { .. } => "proposal_required",
            ApiError::IdempotencyConflict { .. } => "idempotency_conflict",
            ApiError::SessionTerminal { .. } => "session_terminal",
            ApiError::SessionBusy { .. } => "session_busy",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::ConcurrencyCap { .. } => "concurrency_cap",
            ApiError::Internal(_) => "internal",
            ApiError::EngineUnavailable => "engine_unavailable",
            ApiError::NotImplemented { .. } => "not_implemented",
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::InvalidParam { .. } => StatusCode::BAD_REQUEST,
            ApiError::InvalidKey | ApiError::KeyRevoked { .. } => StatusCode::UNAUTHORIZED,
            ApiError::MissingScope { .. }
            | ApiError::SessionCapExceeded { .. }
            | ApiError::MonthlyCapExceeded { .. } => StatusCode::FORBIDDEN,
            ApiError::InsufficientCredit { .. } => StatusCode::PAYMENT_REQUIRED,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::ProposalRequired { .. }
            | ApiError::IdempotencyConflict { .. }
            | ApiError::SessionTerminal { .. }
            | ApiError::SessionBusy { .. } => StatusCode::CONFLICT,
            ApiError::RateLimited { .. } | ApiError::ConcurrencyCap { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::EngineUnavailable => StatusCode::BAD_GATEWAY,
            ApiError::NotImplemented { .. } => StatusCode::NOT_IMPLEMENTED,
        }
    }

    /// The error type of SPEC §7.1, derived from the code.
    pub fn error_type(&self) -> &'static str {
        type_of_code(self.code())
    }

    /// The code-specific members of the envelope (SPEC §7.2).
    fn context(&self) -> Option<ErrorContext> {
        use crate::wire as w;
        Some(match self {
            ApiError::InvalidParam { param, .. } => ErrorContext::Param(w::ParamContext {
                param: param.clone(),
            }),
            ApiError::KeyRevoked { revoked_at } => ErrorContext::KeyRevoked(w::KeyRevokedContext {
                revoked_at: revoked_at.clone(),
            }),
            ApiError::MissingScope { required_scope } => {
                ErrorContext::MissingScope(w::MissingScopeContext {
                    required_scope: required_scope.to_string(),
                })
            }
            ApiError::SessionCapExceeded { cap, requested } => {
                ErrorContext::SessionCap(w::SessionCapContext {
                    cap_usd: (*cap).into(),
                    requested_usd: (*requested).into(),
                })
            }
            ApiError::MonthlyCapExceeded { cap, spent } => {
                ErrorContext::MonthlyCap(w::MonthlyCapContext {
                    cap_usd: (*cap).into(),
                    spent_usd: (*spent).into(),
                })
            }
            ApiError::InsufficientCredit {
                balance,
                open_reserves,
                top_up_url,
            } => ErrorContext::InsufficientCredit(w::InsufficientCreditContext {
                balance_usd: (*balance).into(),
                open_reserves_usd: (*open_reserves).into(),
                top_up_url: top_up_url.clone(),
            }),
            ApiError::ProposalRequired { proposal } => ErrorContext::Proposal(w::ProposalContext {
                proposal: proposal.clone(),
            }),
            ApiError::IdempotencyConflict {
                original_request_id,
            } => ErrorContext::IdempotencyConflict(w::IdempotencyConflictContext {
                original_request_id: original_request_id.clone(),
            }),
            ApiError::SessionTerminal { status } | ApiError::SessionBusy { status } => {
                ErrorContext::Status(w::StatusContext {
                    status: status.clone(),
                })
            }
            ApiError::RateLimited { retry_after_s } => {
                ErrorContext::RateLimited(w::RateLimitedContext {
                    retry_after_s: *retry_after_s,
                })
            }
            ApiError::ConcurrencyCap {
                retry_after_s,
                limit,
                in_flight,
            } => ErrorContext::ConcurrencyCap(w::ConcurrencyCapContext {
                retry_after_s: *retry_after_s,
                limit: *limit,
                in_flight: *in_flight,
            }),
            ApiError::NotImplemented { surface } => ErrorContext::Surface(w::SurfaceContext {
                surface: surface.to_string(),
            }),
            ApiError::InvalidKey
            | ApiError::NotFound
            | ApiError::Internal(_)
            | ApiError::EngineUnavailable => return None,
        })
    }

    fn retry_after(&self) -> Option<u64> {
        match self {
            ApiError::RateLimited { retry_after_s }
            | ApiError::ConcurrencyCap { retry_after_s, .. } => Some(*retry_after_s),
            _ => None,
        }
    }

    /// The envelope as JSON, its members in name order: what a response
    /// carries and what an Idempotency-Key replays, byte for byte.
    pub fn envelope_json(&self, request_id: &str, docs_url: &str) -> serde_json::Value {
        serde_json::to_value(self.envelope(request_id, docs_url))
            .expect("an envelope is plain JSON")
    }

    /// The envelope body, given the request id and the docs base URL.
    pub fn envelope(&self, request_id: &str, docs_url: &str) -> ErrorEnvelope {
        ErrorEnvelope {
            error: ErrorBody {
                error_type: self.error_type(),
                code: self.code(),
                message: self.to_string(),
                doc_url: format!("{}/errors/{}", docs_url.trim_end_matches('/'), self.code()),
                request_id: request_id.to_string(),
                context: self.context(),
            },
        }
    }
}

/// SPEC §7.1: each code's type.
pub fn type_of_code(code: &str) -> &'static str {
    match code {
        "invalid_param" => "invalid_request",
        "invalid_key" | "key_revoked" => "authentication",
        "missing_scope" | "session_cap_exceeded" | "monthly_cap_exceeded" => "permission",
        "insufficient_credit" => "payment",
        "not_found" => "not_found",
        "proposal_required" => "proposal",
        "idempotency_conflict" | "session_terminal" | "session_busy" => "conflict",
        "declined_to_spend" => "declined",
        "rate_limited" | "concurrency_cap" => "rate_limit",
        _ => "api_error",
    }
}

/// An error waiting for the request-id middleware to render it, which
/// knows the request id and the docs URL.
#[derive(Clone)]
pub struct PendingError(pub std::sync::Arc<ApiError>);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(err) = &self {
            tracing::error!(error = ?err, "internal error");
        }
        let mut response = self.status().into_response();
        if let Some(secs) = self.retry_after() {
            response
                .headers_mut()
                .insert("retry-after", HeaderValue::from(secs));
        }
        response
            .extensions_mut()
            .insert(PendingError(std::sync::Arc::new(self)));
        response
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(err: anyhow::Error) -> ApiError {
        ApiError::Internal(err)
    }
}

/// Every code with a one-paragraph explanation, for the `doc_url` pages.
pub const CODE_DOCS: &[(&str, &str)] = &[
    ("invalid_param", "A body member, query parameter or header is missing or malformed; `param` names it. A body that is not JSON, or is over 1 MB, is treated as empty, so the first required member is named."),
    ("invalid_key", "The Authorization header is missing, is not `Bearer <key>`, or names a key this service does not know."),
    ("key_revoked", "The key was revoked at `revoked_at`. Create a new key; a revoked key never works again."),
    ("missing_scope", "The key lacks the scope `required_scope` that this operation needs."),
    ("session_cap_exceeded", "The requested max_spend_usd (`requested_usd`) is above this key's per-session cap (`cap_usd`). Caps are permissions, not rates."),
    ("monthly_cap_exceeded", "The account's monthly cap (`cap_usd`) would be exceeded; `spent_usd` is this month's spend so far."),
    ("insufficient_credit", "The available balance (balance minus open reserves) cannot cover the reservation. Top up at `top_up_url`."),
    ("not_found", "The path is unknown, the method is wrong for it, or the id is unknown or belongs to another account or mode. These cases are indistinguishable on purpose."),
    ("proposal_required", "Not a failure: the follow-up turn was priced first. Send `proposal.id` back as `proposal` to confirm and run it before `proposal.expires_at`."),
    ("idempotency_conflict", "The Idempotency-Key was first used with a different request (`original_request_id`), or that request is still in flight."),
    ("session_terminal", "The session is in a status where this request cannot apply: a stop once it has ended, a turn once it abstained, failed, was redacted or used its last turn. `status` names its status."),
    ("session_busy", "The session is still running; wait for its terminal event."),
    ("declined_to_spend", "Reserved and never emitted: declines are not synchronous errors. A declined query gets 201 and ends abstained at $0."),
    ("rate_limited", "Too many requests for this key. Retry after `retry_after_s` seconds (also in the Retry-After header)."),
    ("concurrency_cap", "The account has `in_flight` runs of `limit` allowed. Retry after `retry_after_s` seconds."),
    ("internal", "An unclassified fault. Safe to retry with the same Idempotency-Key: a retry never bills twice."),
    ("engine_unavailable", "A dependency of the service is unavailable. Nothing was billed; retry with backoff."),
    ("not_implemented", "The route belongs to a planned surface (`surface`) that is specified but not served yet."),
];
