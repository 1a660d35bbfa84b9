//! The error envelope of every code, as schemas, and which codes each
//! operation can answer.

use serde_json::{json, Map, Value};

use crate::http::error::{type_of_code, CODE_DOCS};

/// The code-specific members of each code's envelope (SPEC §7.2), as JSON
/// Schema properties and their required names, stated by the context types
/// of `wire::errors`. A unit test renders every `ApiError` and checks its
/// members against these.
pub fn context_members(code: &str) -> (Map<String, Value>, Vec<Value>) {
    use crate::wire as w;
    use utoipa::PartialSchema;
    let schema = match code {
        "invalid_param" => w::ParamContext::schema(),
        "key_revoked" => w::KeyRevokedContext::schema(),
        "missing_scope" => w::MissingScopeContext::schema(),
        "session_cap_exceeded" => w::SessionCapContext::schema(),
        "monthly_cap_exceeded" => w::MonthlyCapContext::schema(),
        "insufficient_credit" => w::InsufficientCreditContext::schema(),
        "proposal_required" => w::ProposalContext::schema(),
        "idempotency_conflict" => w::IdempotencyConflictContext::schema(),
        "session_terminal" | "session_busy" => w::StatusContext::schema(),
        "declined_to_spend" => w::DeclinedContext::schema(),
        "rate_limited" => w::RateLimitedContext::schema(),
        "concurrency_cap" => w::ConcurrencyCapContext::schema(),
        "not_implemented" => w::SurfaceContext::schema(),
        _ => return (Map::new(), Vec::new()),
    };
    let mut schema = serde_json::to_value(schema).expect("a schema is plain JSON");
    let properties = match schema.get_mut("properties").map(Value::take) {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let required = match schema.get_mut("required").map(Value::take) {
        Some(Value::Array(r)) => r,
        _ => Vec::new(),
    };
    (properties, required)
}

/// The HTTP status a code is answered with (SPEC §7.1).
pub fn status_of_code(code: &str) -> u16 {
    match (type_of_code(code), code) {
        (_, "engine_unavailable") => 502,
        (_, "not_implemented") => 501,
        ("invalid_request", _) => 400,
        ("authentication", _) => 401,
        ("payment", _) => 402,
        ("permission", _) => 403,
        ("not_found", _) => 404,
        ("proposal" | "conflict", _) => 409,
        ("declined", _) => 422,
        ("rate_limit", _) => 429,
        _ => 500,
    }
}

/// The name of a code's envelope schema under components/schemas.
pub fn schema_name(code: &str) -> String {
    format!("Error_{code}")
}

/// One envelope schema per code.
pub fn schemas() -> Map<String, Value> {
    let mut out = Map::new();
    for (code, doc) in CODE_DOCS {
        let (context, context_required) = context_members(code);
        let mut properties = Map::new();
        properties.insert("type".into(), json!({ "const": type_of_code(code) }));
        properties.insert("code".into(), json!({ "const": code }));
        properties.insert("message".into(), json!({ "type": "string" }));
        properties.insert(
            "doc_url".into(),
            json!({ "type": "string", "format": "uri" }),
        );
        properties.insert(
            "request_id".into(),
            json!({ "type": "string", "description": "Equals the fn-request-id header." }),
        );
        let mut required: Vec<Value> = ["type", "code", "message", "doc_url", "request_id"]
            .iter()
            .map(|s| json!(s))
            .collect();
        properties.extend(context);
        required.extend(context_required);
        out.insert(
            schema_name(code),
            json!({
                "type": "object",
                "description": doc,
                "required": ["error"],
                "properties": {
                    "error": { "type": "object", "required": required, "properties": properties }
                },
            }),
        );
    }
    out
}

/// The codes an operation can answer besides its success, from what it
/// takes: every keyed operation can meet a bad key, a missing scope, the
/// rate limit and an internal fault; an id in the path can be unknown; a
/// body or query can be invalid. `extra` names what is particular to it.
pub fn codes_for(keyed: bool, has_path_id: bool, has_input: bool, extra: &[&str]) -> Vec<String> {
    let mut codes: Vec<&str> = Vec::new();
    if keyed {
        codes.extend([
            "invalid_key",
            "key_revoked",
            "missing_scope",
            "rate_limited",
        ]);
    }
    if has_path_id {
        codes.push("not_found");
    }
    if has_input {
        codes.push("invalid_param");
    }
    codes.extend_from_slice(extra);
    codes.push("internal");
    codes.into_iter().map(String::from).collect()
}

/// Codes particular to an operation, by operation id.
pub fn particular_codes(operation_id: &str) -> &'static [&'static str] {
    const SPENDING: &[&str] = &[
        "insufficient_credit",
        "session_cap_exceeded",
        "monthly_cap_exceeded",
        "idempotency_conflict",
        "concurrency_cap",
    ];
    const TURNS: &[&str] = &[
        "insufficient_credit",
        "session_cap_exceeded",
        "monthly_cap_exceeded",
        "idempotency_conflict",
        "concurrency_cap",
        "proposal_required",
        "session_busy",
        "session_terminal",
    ];
    match operation_id {
        "createSession" => SPENDING,
        "createTurn" | "refreshSession" => TURNS,
        "createExtraction" => SPENDING,
        "refreshExtraction" => &[
            "insufficient_credit",
            "session_cap_exceeded",
            "monthly_cap_exceeded",
            "idempotency_conflict",
            "concurrency_cap",
            "session_terminal",
        ],
        "redactSession" | "redactExtraction" => &["session_busy"],
        "createMonitor" => &[
            "session_cap_exceeded",
            "monthly_cap_exceeded",
            "idempotency_conflict",
        ],
        "updateMonitor" => &["session_cap_exceeded", "monthly_cap_exceeded"],
        "stopSession" => &["session_terminal"],
        "estimateSession" => &["engine_unavailable"],
        "createWebhookEndpoint" => &["idempotency_conflict"],
        // A disabled endpoint is not tested: 400 naming `id`.
        "testWebhookEndpoint" => &["invalid_param"],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::ApiError;
    use crate::money::Micros;

    /// Every error the API can return, once.
    fn every_error() -> Vec<ApiError> {
        vec![
            ApiError::invalid("query", "query is required"),
            ApiError::InvalidKey,
            ApiError::KeyRevoked {
                revoked_at: "2026-01-01T00:00:00Z".into(),
            },
            ApiError::MissingScope {
                required_scope: "sessions:write",
            },
            ApiError::SessionCapExceeded {
                cap: Micros::from_usd(1),
                requested: Micros::from_usd(2),
            },
            ApiError::MonthlyCapExceeded {
                cap: Micros::from_usd(1),
                spent: Micros::from_usd(2),
            },
            ApiError::InsufficientCredit {
                balance: Micros::from_usd(1),
                open_reserves: Micros::ZERO,
                top_up_url: "http://x/dashboard".into(),
            },
            ApiError::NotFound,
            ApiError::ProposalRequired {
                proposal: crate::wire::Proposal {
                    id: "prop_1".into(),
                    estimated_usd: crate::wire::Usd(Micros(50_000)),
                    passes: 2,
                    expires_at: "2026-01-01T00:15:00Z".into(),
                },
            },
            ApiError::IdempotencyConflict {
                original_request_id: "req_1".into(),
            },
            ApiError::SessionTerminal {
                status: "error".into(),
            },
            ApiError::SessionBusy {
                status: "running".into(),
            },
            ApiError::RateLimited { retry_after_s: 1 },
            ApiError::ConcurrencyCap {
                retry_after_s: 1,
                limit: 4,
                in_flight: 4,
            },
            ApiError::internal(anyhow::anyhow!("boom")),
            ApiError::EngineUnavailable,
            ApiError::NotImplemented {
                surface: "monitors",
            },
        ]
    }

    #[test]
    fn every_envelope_has_exactly_the_documented_members_and_status() {
        let schemas = schemas();
        for e in every_error() {
            let code = e.code();
            let body = serde_json::to_value(e.envelope("req_x", "http://h/docs")).unwrap();
            let members: Vec<&String> = body["error"].as_object().unwrap().keys().collect();
            let schema = &schemas[&schema_name(code)]["properties"]["error"];
            let mut required: Vec<&str> = schema["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            required.sort();
            let mut documented: Vec<&String> =
                schema["properties"].as_object().unwrap().keys().collect();
            let mut members = members;
            members.sort();
            documented.sort();
            assert_eq!(members, documented, "members of {code}");
            assert_eq!(
                required,
                members.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
                "every member of {code} is required"
            );
            assert_eq!(
                e.status().as_u16(),
                status_of_code(code),
                "status of {code}"
            );
        }
    }

    #[test]
    fn every_code_has_a_schema() {
        let schemas = schemas();
        for e in every_error() {
            assert!(schemas.contains_key(&schema_name(e.code())), "{}", e.code());
        }
        // declined_to_spend is reserved: documented, never emitted.
        assert!(schemas.contains_key("Error_declined_to_spend"));
    }
}
