//! The OpenAPI 3.1 document, generated from the code: the routes come from
//! the same annotated handlers the router serves (utoipa-axum), the shapes
//! from `wire`, the error envelopes from `errors`. A finishing pass adds
//! what every operation shares (the version and request-id headers, the
//! error responses, the rate limit's Retry-After), the planned routes from
//! their one table, and the webhook payloads.
//!
//! Served at GET /v1/openapi.json without a key; committed as
//! docs/openapi.json, which a test keeps equal to this.

mod errors;

use serde_json::{json, Map, Value};
use utoipa::OpenApi;

use crate::accounts::CURRENT_VERSION;
use crate::wire;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "fnhost",
        description = "Turns pages of the open web into live catalogs: rows of structured records, \
each backed by a signed receipt, paid for from a prepaid USD balance.\n\n\
Money is a JSON number of US dollars (at most six decimals). Timestamps are ISO 8601 date-time strings \
in UTC. Errors are `{error: {type, code, message, doc_url, request_id, ...context}}`; program against \
`code` and handle unknown codes by `type`. A wrong method on a known path is 404 not_found. A body that \
does not parse, or is over 1 MB, is treated as empty. Planned routes answer 501 not_implemented with \
`surface` on every method.",
        license(name = "Apache-2.0")
    ),
    servers((url = "/v1", description = "The API, relative to the server's address")),
    security(("bearer" = [])),
    components(schemas(
        wire::Account, wire::CallerKey, wire::Balance, wire::AutoRecharge,
        wire::Usage, wire::UsageDay, wire::Key, wire::KeyList, wire::KeyRename,
        wire::EstimateRequest, wire::Estimate, wire::SessionCreate, wire::Session,
        wire::SessionError, wire::SessionList, wire::SessionEvent,
        wire::SessionEventList, wire::SseEvent, wire::Row, wire::RowSource, wire::RowList,
        wire::SessionResult, wire::Receipt, wire::ReceiptSignature, wire::ReceiptList,
        wire::SigningKey, wire::SigningKeyList, wire::Proposal, wire::TurnCreate,
        wire::WebhookEndpoint, wire::WebhookEndpointCreated, wire::WebhookEndpointCreate,
        wire::WebhookEndpointUpdate, wire::WebhookEndpointList,
        wire::WebhookEndpointDeleted, wire::WebhookAttempt, wire::WebhookAttemptList,
        wire::WebhookSecret, wire::LastDelivery, wire::SessionAnsweredData,
        wire::SessionEndedData, wire::SessionProposalData, wire::BalanceLowData,
        wire::ExtractionEndedData, wire::MonitorRunData,
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "platform", description = "The account, its balance, usage and keys"),
        (name = "sessions", description = "Natural-language queries answered with rows and signed receipts"),
        (name = "webhooks", description = "Endpoints that receive signed event deliveries"),
        (name = "extractions", description = "Preview (switch `extractions`): known catalog URLs read once into rows with signed receipts"),
        (name = "monitors", description = "Preview (switch `monitors`): catalogs watched on a cadence, each run capped, told only what changed"),
        (name = "discover", description = "Preview (switch `discover`): a site's catalog pages, found for $0"),
        (name = "meta", description = "This document"),
        (name = "planned", description = "Specified, not served yet: 501 not_implemented on every method"),
    )
)]
struct Base;

/// `Authorization: Bearer fn_live_…` or `fn_test_…`.
struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let scheme = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "An API key: `fn_live_…` (live mode) or `fn_test_…` (test mode, recorded replays).",
            ))
            .build();
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme("bearer", SecurityScheme::Http(scheme));
        }
    }
}

/// The document of the routes `api` (a server's, with the preview surfaces
/// `open` opened; the committed `docs/openapi.json` has none open).
pub fn build(
    api: utoipa_axum::router::OpenApiRouter<crate::state::AppState>,
    open: &[String],
) -> Value {
    let router = utoipa_axum::router::OpenApiRouter::with_openapi(Base::openapi()).merge(api);
    let mut doc = serde_json::to_value(router.into_openapi()).expect("the document serializes");
    doc["openapi"] = json!("3.1.0");
    doc["info"]["version"] = json!(CURRENT_VERSION);
    add_error_schemas(&mut doc);
    complete_schemas(&mut doc);
    add_common_header_components(&mut doc);
    add_planned(&mut doc, open);
    if open.iter().any(|o| o == "mcp") {
        add_mcp(&mut doc);
    }
    finish_operations(&mut doc);
    add_links(&mut doc);
    doc["webhooks"] = webhooks(open);
    doc
}

/// What the derive leaves out of two schemas, written here: a webhook
/// endpoint's update body takes at least one member (`{}` is 400; the
/// derive's `min_properties` writes a `maxProperties`), a monitor's takes
/// none or any (every member is optional, SPEC §4.3: nothing to change
/// answers the monitor as it is, and so does no body), and an attempt names
/// its `object` (a member the derive skips because it is never read back).
fn complete_schemas(doc: &mut Value) {
    if let Some(schema) = doc["components"]["schemas"]["WebhookEndpointUpdate"].as_object_mut() {
        schema.remove("maxProperties");
        schema.insert("minProperties".into(), json!(1));
    }
    if let Some(body) = doc
        .pointer_mut("/paths/~1monitors~1{id}/patch/requestBody")
        .and_then(Value::as_object_mut)
    {
        body.insert("required".into(), json!(false));
    }
    let attempt = &mut doc["components"]["schemas"]["WebhookAttempt"];
    if attempt.is_object() {
        attempt["properties"]["object"] = json!({ "type": "string", "enum": ["webhook_attempt"] });
        if let Some(required) = attempt["required"].as_array_mut() {
            required.push(json!("object"));
        }
    }
}

fn add_error_schemas(doc: &mut Value) {
    let schemas = doc["components"]["schemas"]
        .as_object_mut()
        .expect("the base declares schemas");
    schemas.extend(errors::schemas());
}

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The planned routes (one table, `crate::planned`): each planned method
/// answers 501 with `surface`.
fn add_planned(doc: &mut Value, open: &[String]) {
    for p in crate::planned::PLANNED {
        if crate::planned::is_open(p, open) {
            continue;
        }
        let methods: Vec<String> = match p.methods {
            Some(ms) => ms.iter().map(|m| m.to_ascii_lowercase()).collect(),
            None => ["get", "post", "put", "patch", "delete"]
                .iter()
                .map(|m| m.to_string())
                .collect(),
        };
        // A trailing wildcard (`{*rest}`) is one path parameter in OpenAPI.
        let path = p.path.replace("{*", "{");
        let item = doc["paths"]
            .as_object_mut()
            .expect("paths is an object")
            .entry(path.clone())
            .or_insert_with(|| json!({}));
        for m in methods {
            let params: Vec<Value> = path_params(&path)
                .into_iter()
                .map(|name| json!({ "name": name, "in": "path", "required": true, "schema": { "type": "string" } }))
                .collect();
            item[&m] = json!({
                "tags": ["planned"],
                "summary": format!("Planned: {}", p.surface),
                "description": format!("Specified, not served yet: answers 501 not_implemented with surface \"{}\" on this method.", p.surface),
                // (A path with its trailing slash, `/mcp/`, is told from `/mcp`.)
                "operationId": format!(
                    "planned_{}_{}{}",
                    m,
                    path.replace(['/', '{', '}'], "_").trim_matches('_'),
                    if path.ends_with('/') { "_slash" } else { "" }
                ),
                "parameters": params,
                "responses": {},
                "x-fnhost-planned": true,
            });
        }
    }
}

/// The tool-protocol server, once its switch opens it (MCP.md): one path
/// of the Model Context Protocol's Streamable HTTP transport, whose
/// messages are JSON-RPC; the protocol defines their shapes.
fn add_mcp(doc: &mut Value) {
    let session = json!({
        "name": "Mcp-Session-Id", "in": "header", "required": false,
        "description": "The session the server assigned in its answer to `initialize`; required after it.",
        "schema": { "type": "string" },
    });
    let message = json!({ "type": "object", "description": "A JSON-RPC 2.0 message of the Model Context Protocol (2025-11-25)." });
    doc["paths"]["/mcp"] = json!({
        "post": {
            "tags": ["mcp"],
            "summary": "Send a protocol message",
            "description": "Preview (switch `mcp`). One JSON-RPC request, notification or response. `Accept` must list both application/json and text/event-stream. Every tool is one REST operation run with this request's key: its scopes, caps and money rules hold (MCP.md).",
            "operationId": "mcpPost",
            "parameters": [session.clone()],
            "requestBody": { "required": true, "content": { "application/json": { "schema": message.clone() } } },
            "responses": {
                "200": { "description": "The answer to a request", "content": {
                    "application/json": { "schema": message.clone() },
                    "text/event-stream": { "schema": { "type": "string" } },
                } },
                "202": { "description": "A notification or response, accepted" },
                "404": { "description": "No session has this Mcp-Session-Id (it ended, or never was): start again with initialize" },
            },
        },
        "get": {
            "tags": ["mcp"],
            "summary": "Open the server's message stream",
            "description": "Preview (switch `mcp`). Server-sent events carrying the server's messages to the session.",
            "operationId": "mcpStream",
            "parameters": [session.clone()],
            "responses": {
                "200": { "description": "The session's stream", "content": { "text/event-stream": { "schema": { "type": "string" } } } },
                "404": { "description": "No session has this Mcp-Session-Id" },
            },
        },
        "delete": {
            "tags": ["mcp"],
            "summary": "End the session",
            "description": "Preview (switch `mcp`).",
            "operationId": "mcpEnd",
            "parameters": [session],
            "responses": { "202": { "description": "The session ended (or had already)" } },
        },
    });
    if let Some(tags) = doc["tags"].as_array_mut() {
        tags.push(
            json!({ "name": "mcp", "description": "The tool-protocol server (preview: mcp)" }),
        );
    }
}

fn path_params(path: &str) -> Vec<String> {
    path.split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .map(String::from)
        .collect()
}

/// What every operation shares: fn-version in and out, fn-request-id on
/// every response, and the error responses it can meet.
fn finish_operations(doc: &mut Value) {
    let mut shared = Map::new();
    let paths = doc["paths"].as_object_mut().expect("paths is an object");
    for (path, item) in paths.iter_mut() {
        let item = item.as_object_mut().expect("a path item is an object");
        for (method, op) in item.iter_mut() {
            if !METHODS.contains(&method.as_str()) {
                continue;
            }
            let op = op.as_object_mut().expect("an operation is an object");
            let planned = op.remove("x-fnhost-planned").is_some();
            let keyed = !op
                .get("security")
                .and_then(Value::as_array)
                .is_some_and(|s| s.iter().all(|r| r.as_object().is_some_and(Map::is_empty)));
            let params = op.entry("parameters").or_insert_with(|| json!([]));
            // A query parameter or a header of its own can be malformed.
            let has_params = params
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p["in"] == "query" || p["in"] == "header"));
            let idempotent = params
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p["name"] == "Idempotency-Key"));
            if keyed {
                params
                    .as_array_mut()
                    .expect("parameters is an array")
                    .push(json!({
                        "name": "fn-version",
                        "in": "header",
                        "required": false,
                        "description": "A dated API version; echoed back as the effective version. Absent: the account pin.",
                        "schema": { "type": "string", "examples": [CURRENT_VERSION] },
                    }));
            }
            let has_input = op.contains_key("requestBody") || has_params;
            let codes: Vec<String> = if planned {
                vec!["not_implemented".to_string()]
            } else {
                let id = op.get("operationId").and_then(Value::as_str).unwrap_or("");
                errors::codes_for(
                    keyed,
                    path.contains('{'),
                    has_input,
                    errors::particular_codes(id),
                )
            };
            let responses = op
                .entry("responses")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("responses is an object");
            for (status, response) in responses.iter_mut() {
                add_common_headers(response);
                if idempotent && status.starts_with('2') {
                    response["headers"]["idempotent-replayed"] = json!({
                        "description": "`true` when this is the stored first response to the same Idempotency-Key.",
                        "schema": { "type": "string", "enum": ["true"] },
                    });
                }
            }
            add_error_responses(responses, &codes, &mut shared);
        }
    }
    doc["components"]["responses"] = Value::Object(shared);
}

/// Adds a response for each status the codes are answered with, as a
/// reference to a shared response under components/responses (one per set
/// of codes), which `shared` collects.
fn add_error_responses(
    responses: &mut Map<String, Value>,
    codes: &[String],
    shared: &mut Map<String, Value>,
) {
    let mut by_status: std::collections::BTreeMap<u16, Vec<&String>> = Default::default();
    for code in codes {
        by_status
            .entry(errors::status_of_code(code))
            .or_default()
            .push(code);
    }
    for (status, codes) in by_status {
        let names: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
        let name = names.join("_or_");
        shared.entry(name.clone()).or_insert_with(|| {
            let refs: Vec<Value> = codes
                .iter()
                .map(|c| json!({ "$ref": format!("#/components/schemas/{}", errors::schema_name(c)) }))
                .collect();
            let schema = if refs.len() == 1 {
                refs[0].clone()
            } else {
                json!({ "oneOf": refs })
            };
            let mut response = json!({
                "description": format!("Error: {}", names.join(", ")),
                "content": { "application/json": { "schema": schema } },
            });
            if status == 429 {
                response["headers"] = json!({
                    "Retry-After": {
                        "description": "Seconds to wait before retrying.",
                        "schema": { "type": "integer" },
                    }
                });
            }
            add_common_headers(&mut response);
            response
        });
        responses.insert(
            status.to_string(),
            json!({ "$ref": format!("#/components/responses/{name}") }),
        );
    }
}

fn add_common_headers(response: &mut Value) {
    let headers = response
        .as_object_mut()
        .expect("a response is an object")
        .entry("headers")
        .or_insert_with(|| json!({}));
    headers["fn-request-id"] = json!({ "$ref": "#/components/headers/RequestId" });
    headers["fn-version"] = json!({ "$ref": "#/components/headers/Version" });
}

/// The headers every response carries, referenced from each response.
fn add_common_header_components(doc: &mut Value) {
    doc["components"]["headers"] = json!({
        "RequestId": {
            "description": "This request's id (`req_…`); an error's request_id equals it.",
            "required": true,
            "schema": { "type": "string" },
        },
        "Version": {
            "description": "The effective API version.",
            "schema": { "type": "string" },
        },
    });
}

/// Links from a created object to the operations on it: a client (or the
/// fuzzer) can follow them from a response to the next request.
fn add_links(doc: &mut Value) {
    const FOLLOW: &[(&str, &str, &str, &[&str])] = &[
        (
            "/sessions",
            "post",
            "201",
            &[
                "getSession",
                "listSessionEvents",
                "streamSession",
                "getSessionResult",
                "listSessionRows",
                "listSessionReceipts",
                "createTurn",
                "stopSession",
            ],
        ),
        (
            "/webhooks",
            "post",
            "201",
            &[
                "getWebhookEndpoint",
                "updateWebhookEndpoint",
                "listWebhookAttempts",
                "deleteWebhookEndpoint",
            ],
        ),
    ];
    for (path, method, status, targets) in FOLLOW {
        let links: Map<String, Value> = targets
            .iter()
            .map(|op| {
                (
                    op.to_string(),
                    json!({ "operationId": op, "parameters": { "id": "$response.body#/id" } }),
                )
            })
            .collect();
        doc["paths"][*path][*method]["responses"][*status]["links"] = Value::Object(links);
    }
}

/// The webhook payloads (OpenAPI 3.1 `webhooks`): what a registered
/// endpoint, or a session's webhook_url, receives, signed per Standard
/// Webhooks.
/// The webhook payloads: those emitted today, and those of the preview
/// surfaces the operator opened.
fn webhooks(open: &[String]) -> Value {
    let mut out = Map::new();
    for (event, data, summary, surface) in [
        (
            "session.answered",
            "SessionAnsweredData",
            "A session ended answered",
            None,
        ),
        (
            "session.abstained",
            "SessionEndedData",
            "A session ended abstained ($0 settled)",
            None,
        ),
        (
            "session.error",
            "SessionEndedData",
            "A session's run failed",
            None,
        ),
        (
            "session.stopped",
            "SessionEndedData",
            "A session was stopped (spend-budget, query-budget or stopped)",
            None,
        ),
        (
            "session.proposal",
            "SessionProposalData",
            "A follow-up turn was priced and waits for confirmation",
            None,
        ),
        (
            "extraction.delivered",
            "ExtractionEndedData",
            "An extraction read its page (preview: extractions)",
            Some("extractions"),
        ),
        (
            "extraction.failed",
            "ExtractionEndedData",
            "An extraction ended without its page (preview: extractions)",
            Some("extractions"),
        ),
        (
            "monitor.changed",
            "MonitorRunData",
            "A monitor run found rows added, removed or changed (preview: monitors)",
            Some("monitors"),
        ),
        (
            "monitor.unchanged",
            "MonitorRunData",
            "A monitor run found nothing changed; only to endpoints subscribed to it (preview: monitors)",
            Some("monitors"),
        ),
        (
            "monitor.failed",
            "MonitorRunData",
            "A monitor run failed; the third in a row pauses the monitor (preview: monitors)",
            Some("monitors"),
        ),
        (
            "balance.low",
            "BalanceLowData",
            "The available balance crossed below the account's threshold",
            None,
        ),
    ] {
        if surface.is_some_and(|surface| !open.iter().any(|o| o == surface)) {
            continue;
        }
        let envelope = json!({
            "type": "object",
            "required": ["id", "type", "created", "data"],
            "properties": {
                "id": { "type": "string", "description": "`msg_…`; equals the webhook-id header; the dedupe key." },
                "type": { "const": event },
                "created": { "type": "string", "format": "date-time" },
                "data": { "$ref": format!("#/components/schemas/{data}") },
                "test": { "type": "boolean", "description": "True on test deliveries (planned)." },
            },
        });
        let header = |name: &str, description: &str| json!({ "name": name, "in": "header", "required": true, "description": description, "schema": { "type": "string" } });
        out.insert(
            event.to_string(),
            json!({
                "post": {
                    "summary": summary,
                    "operationId": format!("webhook_{}", event.replace('.', "_")),
                    "description": "Verify the signature against the raw body before parsing it, and reject timestamps older than 5 minutes. Answer 2xx within 10 s; otherwise the message is retried after 1 min, 5 min, 15 min, 1 h, 6 h and 24 h, then dead-lettered. Delivery is at least once: deduplicate on `id`.",
                    "security": [],
                    "parameters": [
                        header("webhook-id", "The message id (`msg_…`), equal to the envelope's id."),
                        header("webhook-timestamp", "Unix seconds when the attempt was signed."),
                        header("webhook-signature", "`v1,<base64 HMAC-SHA256 of \"{webhook-id}.{webhook-timestamp}.{body}\">` keyed with the secret's bytes after `whsec_`."),
                    ],
                    "requestBody": { "required": true, "content": { "application/json": { "schema": envelope } } },
                    "responses": { "2XX": { "description": "Received; any other answer, or none within 10 s, is retried." } },
                }
            }),
        );
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_name_existing_operations() {
        let doc = crate::app::document();
        let mut ids = std::collections::HashSet::new();
        for item in doc["paths"].as_object().unwrap().values() {
            for op in item.as_object().unwrap().values() {
                if let Some(id) = op["operationId"].as_str() {
                    ids.insert(id.to_string());
                }
            }
        }
        let links = doc["paths"]["/sessions"]["post"]["responses"]["201"]["links"]
            .as_object()
            .unwrap();
        assert!(!links.is_empty());
        for link in links.values() {
            assert!(
                ids.contains(link["operationId"].as_str().unwrap()),
                "{link}"
            );
        }
    }

    #[test]
    fn every_emitted_event_type_has_a_documented_payload() {
        let doc = crate::app::document();
        for event in crate::webhooks::EMITTED_EVENTS {
            assert!(doc["webhooks"][*event]["post"].is_object(), "{event}");
        }
        assert_eq!(
            doc["webhooks"].as_object().unwrap().len(),
            crate::webhooks::EMITTED_EVENTS.len()
        );
    }

    #[test]
    fn opened_surfaces_document_their_event_payloads() {
        let doc = crate::app::document_of(&["extractions".into(), "monitors".into()]);
        for event in crate::webhooks::PLANNED_EVENTS {
            let data = &doc["webhooks"][*event]["post"]["requestBody"]["content"]
                ["application/json"]["schema"]["properties"]["data"]["$ref"];
            let name = data.as_str().unwrap().rsplit('/').next().unwrap();
            assert!(doc["components"]["schemas"][name].is_object(), "{event}");
        }
    }

    #[test]
    fn an_attempt_names_its_object() {
        let schema = &crate::app::document()["components"]["schemas"]["WebhookAttempt"];
        assert_eq!(schema["properties"]["object"]["enum"][0], "webhook_attempt");
        assert!(schema["required"]
            .as_array()
            .unwrap()
            .contains(&json!("object")));
    }

    #[test]
    fn a_webhook_update_takes_a_member_and_a_monitor_update_any() {
        let doc = crate::app::document_of(&["monitors".into()]);
        let schema = &doc["components"]["schemas"]["WebhookEndpointUpdate"];
        assert_eq!(schema["minProperties"], 1);
        assert!(schema["maxProperties"].is_null());
        let schema = &doc["components"]["schemas"]["MonitorUpdate"];
        assert!(schema.is_object());
        assert!(schema["minProperties"].is_null() && schema["maxProperties"].is_null());
        let body = &doc["paths"]["/monitors/{id}"]["patch"]["requestBody"];
        assert_eq!(body["required"], false, "{body}");
        // The closed document names no monitor schema it does not use.
        assert!(crate::app::document()["components"]["schemas"]
            .get("MonitorUpdate")
            .is_none());
    }

    #[test]
    fn the_opened_tool_server_is_documented() {
        let doc = crate::app::document_of(&["mcp".into()]);
        for method in ["post", "get", "delete"] {
            let op = &doc["paths"]["/mcp"][method];
            assert_eq!(op["tags"][0], "mcp", "{method}");
            assert!(
                op["responses"]["401"].is_object(),
                "{method}: the key is checked"
            );
        }
        assert!(doc["paths"]["/mcp/{rest}"].is_null(), "only /mcp is served");
        assert!(crate::app::document()["paths"]["/mcp"]["post"]["responses"]["501"].is_object());
    }

    #[test]
    fn every_planned_route_is_documented_as_501() {
        let doc = crate::app::document();
        for p in crate::planned::PLANNED {
            let item = &doc["paths"][p.path.replace("{*", "{")];
            assert!(item.is_object(), "{} missing", p.path);
            let method = p
                .methods
                .map_or("get".to_string(), |m| m[0].to_ascii_lowercase());
            assert!(
                item[&method]["responses"]["501"].is_object(),
                "{} {method}",
                p.path
            );
        }
    }

    #[test]
    fn operations_have_unique_ids_and_request_id_headers() {
        let doc = crate::app::document();
        let mut ids = std::collections::HashSet::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                if !METHODS.contains(&method.as_str()) {
                    continue;
                }
                let id = op["operationId"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{method} {path} has no id"));
                assert!(ids.insert(id.to_string()), "duplicate operationId {id}");
                for (status, r) in op["responses"].as_object().unwrap() {
                    let r = match r["$ref"].as_str() {
                        Some(name) => {
                            &doc["components"]["responses"]
                                [name.trim_start_matches("#/components/responses/")]
                        }
                        None => r,
                    };
                    assert!(
                        r["headers"]["fn-request-id"]["$ref"] == "#/components/headers/RequestId",
                        "{method} {path} {status}"
                    );
                }
            }
        }
    }

    /// docs/openapi.json is the document the code generates. To refresh it:
    /// `FNHOST_WRITE_OPENAPI=1 cargo test -p fnhost --lib openapi`.
    #[test]
    fn committed_document_matches_the_code() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json");
        if std::env::var_os("FNHOST_WRITE_OPENAPI").is_some() {
            std::fs::write(&path, crate::app::document_text()).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == crate::app::document_text(),
            "docs/openapi.json differs from the document the code generates; \
             refresh it with FNHOST_WRITE_OPENAPI=1 cargo test -p fnhost --lib openapi"
        );
    }
}
