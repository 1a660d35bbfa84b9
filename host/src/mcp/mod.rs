//! The tool-protocol server (preview switch `mcp`): fnhost as a Model
//! Context Protocol server over Streamable HTTP at `/v1/mcp`.
//!
//! Every tool is one REST operation, called in-process with the agent's own
//! key: the same scopes, modes, rate limits, caps, validation and money
//! rules hold because the same handlers run. A REST error comes back as a
//! tool error carrying the error envelope (a missing scope names
//! `required_scope`). What an agent sends (queries, guidance, entities) is
//! passed on as data: the planner and extractor plugins receive it as data
//! and hold no capability to fetch, spend or store.
//!
//! The HTTP request itself must carry a valid key (checked by [`require_key`]
//! before the protocol layer sees it), so an unauthenticated client gets the
//! API's 401 and never a session.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use serde::Serialize;
use serde_json::Value;
use tower::ServiceExt;

use crate::auth::Caller;
use crate::state::AppState;

mod shapes;
use shapes::*;

/// The tools each preview surface adds (removed while it is closed).
const SURFACE_TOOLS: &[(&str, &[&str])] = &[
    ("extractions", &["extract_url", "extraction_result"]),
    ("discover", &["discover"]),
    ("monitors", &["create_monitor", "list_monitors"]),
];

/// The MCP routes: the protocol service behind the key check.
pub fn routes(state: AppState, rest: Router) -> Router {
    let open = state.config.preview.clone();
    let api = rest.clone();
    let service = StreamableHttpService::new(
        move || Ok(Tools::new(api.clone(), &open)),
        LocalSessionManager::default().into(),
        // Bearer keys authenticate every request, so the protocol's
        // loopback-only host check (a guard for unauthenticated local
        // servers) would only refuse real deployments.
        StreamableHttpServerConfig::default().disable_allowed_hosts(),
    );
    Router::new()
        .fallback_service(service)
        .layer(axum::middleware::from_fn_with_state(state, require_key))
}

/// Refuses a request without a valid key with the API's own error, and
/// hands the caller to the tools.
async fn require_key(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let (mut parts, body) = req.into_parts();
    use axum::extract::FromRequestParts;
    match Caller::from_request_parts(&mut parts, &state).await {
        Ok(caller) => {
            parts.extensions.insert(Arc::new(caller));
            parts.extensions.insert(state);
            next.run(Request::from_parts(parts, body)).await
        }
        Err(e) => e.into_response(),
    }
}

#[derive(Clone)]
pub struct Tools {
    /// The REST API (without this server), called in-process.
    api: Router,
    tool_router: ToolRouter<Tools>,
}

type Parts = axum::http::request::Parts;

/// The rows a tool returns at once, at most.
const MAX_TOOL_ROWS: u32 = 100;

/// A row id's number (`row_12` → 12).
fn row_number(id: &Value) -> u64 {
    id.as_str().map_or(0, row_number_of)
}

fn row_number_of(id: &str) -> u64 {
    id.strip_prefix("row_")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The distinct receipt ids behind a page of rows, in order.
fn receipts_of(rows: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for r in rows {
        let id = &r["source"]["receipt_id"];
        if id.is_string() && !out.contains(id) {
            out.push(id.clone());
        }
    }
    out
}

/// A tool's output or a request body as JSON.
fn json_of(x: &impl Serialize) -> Value {
    serde_json::to_value(x).expect("tool shapes are plain JSON")
}

/// Every tool result states what the call cost and the receipts behind it:
/// `cost_usd` (no tool call settles money itself: a run's receipts settle
/// when it ends, and its spend is the result's `spend_usd`) and
/// `receipt_ids`, unless the result already carries them.
fn with_cost(mut value: Value) -> Value {
    if let Value::Object(members) = &mut value {
        members.entry("cost_usd").or_insert(Value::from(0));
        members
            .entry("receipt_ids")
            .or_insert(Value::Array(Vec::new()));
    }
    value
}

/// A tool error carrying the API's error envelope for `err`, as the REST
/// operation would have answered it.
fn api_error(parts: &Parts, err: crate::http::ApiError) -> CallToolResult {
    let request_id = parts
        .extensions
        .get::<crate::http::middleware::RequestId>()
        .map_or_else(|| crate::ids::new_id("req"), |r| r.0.clone());
    let docs_url = parts
        .extensions
        .get::<AppState>()
        .map(|s| s.config.docs_url())
        .unwrap_or_default();
    CallToolResult::structured_error(err.envelope_json(&request_id, &docs_url))
}

/// A page size as the REST routes take it (`Page::from_query`: 1 to 100,
/// default 20); anything else is the same 400 `invalid_param` naming `limit`.
fn page_limit(parts: &Parts, limit: Option<u32>) -> Result<u32, CallToolResult> {
    let asked = crate::wire::PageParams {
        limit: limit.map(|l| l.to_string()),
        starting_after: None,
    };
    match crate::http::Page::from_query(&asked) {
        Ok(page) => Ok(page.limit as u32),
        Err(refused) => Err(api_error(parts, refused)),
    }
}

#[tool_router]
impl Tools {
    pub fn new(api: Router, open: &[String]) -> Tools {
        let mut tool_router = Self::tool_router();
        for (switch, tools) in SURFACE_TOOLS {
            if !open.iter().any(|o| o == switch) {
                for t in *tools {
                    tool_router.remove_route(t);
                }
            }
        }
        Tools { api, tool_router }
    }

    /// Calls a REST operation with the agent's key; its JSON answer is the
    /// tool's structured result, its error envelope the tool's error.
    async fn rest(
        &self,
        parts: &Parts,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<CallToolResult, McpError> {
        let mut req = axum::http::Request::builder()
            .method(method)
            .uri(format!("/v1{path}"));
        if let Some(auth) = parts.headers.get(header::AUTHORIZATION) {
            req = req.header(header::AUTHORIZATION, auth);
        }
        if let Some(v) = parts.headers.get("fn-version") {
            req = req.header("fn-version", v);
        }
        let req = req
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.map(|b| b.to_string()).unwrap_or_default()))
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let res = self
            .api
            .clone()
            .oneshot(req)
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let status = res.status();
        let bytes = axum::body::to_bytes(res.into_body(), 64 * 1024 * 1024)
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status.is_success() {
            let mut value = value;
            if status == StatusCode::ACCEPTED {
                // A long-poll that ran out of time: the object, still running.
                value = json_of(&StillRunning {
                    still_running: true,
                    object: value,
                });
            }
            Ok(CallToolResult::structured(value))
        } else {
            Ok(CallToolResult::structured_error(value))
        }
    }

    /// [`Tools::rest`] as a tool's answer: a success states its cost and
    /// the receipts behind it ([`with_cost`]).
    async fn tool(
        &self,
        parts: &Parts,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<CallToolResult, McpError> {
        let mut result = self.rest(parts, method, path, body).await?;
        if result.is_error != Some(true) {
            result.structured_content = result.structured_content.map(with_cost);
        }
        Ok(result)
    }

    #[tool(
        description = "Free: prices a natural-language query without running it (what it would read and the estimated cost in USD). Call it before start_session."
    )]
    async fn estimate(
        &self,
        Parameters(a): Parameters<EstimateArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        self.tool(
            &parts,
            Method::POST,
            "/sessions/estimate",
            Some(json_of(&a)),
        )
        .await
    }

    #[tool(
        description = "Spends money: starts a session that answers the query with rows backed by signed receipts. Reserves max_spend_usd from the balance now (never more than the key's session cap or the account's monthly cap); when it ends only the receipts' cost is settled and the rest released. Run estimate first."
    )]
    async fn start_session(
        &self,
        Parameters(a): Parameters<StartSessionArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        self.tool(&parts, Method::POST, "/sessions", Some(json_of(&a)))
            .await
    }

    #[tool(
        description = "Free: a session's status, counts and money (reserved, settled, released)."
    )]
    async fn session_status(
        &self,
        Parameters(a): Parameters<SessionArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        let status = self
            .tool(
                &parts,
                Method::GET,
                &format!("/sessions/{}", enc(&a.session_id)),
                None,
            )
            .await?;
        self.with_session_receipts(&parts, &a.session_id, status)
            .await
    }

    /// A session tool's result with the ids of the receipts the session
    /// holds so far (its first 100, in order) as `receipt_ids`.
    async fn with_session_receipts(
        &self,
        parts: &Parts,
        session_id: &str,
        mut result: CallToolResult,
    ) -> Result<CallToolResult, McpError> {
        if result.is_error == Some(true) {
            return Ok(result);
        }
        let path = format!(
            "/sessions/{}/receipts?limit={MAX_TOOL_ROWS}",
            enc(session_id)
        );
        let receipts = self.rest(parts, Method::GET, &path, None).await?;
        if receipts.is_error == Some(true) {
            return Ok(receipts);
        }
        let ids: Vec<Value> = receipts
            .structured_content
            .as_ref()
            .and_then(|r| r["data"].as_array())
            .map(|data| data.iter().map(|r| r["id"].clone()).collect())
            .unwrap_or_default();
        if let Some(Value::Object(members)) = &mut result.structured_content {
            members.insert("receipt_ids".into(), Value::Array(ids));
        }
        Ok(result)
    }

    #[tool(
        description = "Free ($0): waits for a session to end (wait_s), then returns a page of its rows (limit, at most 100), each with its record and the receipt id that backs it, the page's receipt_ids and the session's spend_usd; page on with starting_after = next_starting_after."
    )]
    async fn session_result(
        &self,
        Parameters(a): Parameters<SessionResultArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        let limit = match page_limit(&parts, a.limit) {
            Ok(limit) => limit,
            Err(refused) => return Ok(refused),
        };
        let id = enc(&a.session_id);
        let waited = self
            .rest(
                &parts,
                Method::GET,
                &format!("/sessions/{id}/result?wait={}", a.wait_s.unwrap_or(30)),
                None,
            )
            .await?;
        if waited.is_error == Some(true) {
            return Ok(waited);
        }
        let mut path = format!("/sessions/{id}/rows?limit={limit}");
        if let Some(after) = &a.starting_after {
            path.push_str(&format!("&starting_after={}", enc(after)));
        }
        let rows = self.rest(&parts, Method::GET, &path, None).await?;
        if rows.is_error == Some(true) {
            return Ok(rows);
        }
        let summary = waited.structured_content.unwrap_or(Value::Null);
        let (status, still_running, spend) = match summary.get("still_running") {
            Some(_) => (
                summary["object"]["status"].clone(),
                true,
                summary["object"]["spend_usd"].clone(),
            ),
            None => (
                summary["status"].clone(),
                false,
                summary["spend_usd"].clone(),
            ),
        };
        let page = rows.structured_content.unwrap_or(Value::Null);
        let data = page["data"].as_array().cloned().unwrap_or_default();
        let next = match (page["has_more"].as_bool(), data.last()) {
            (Some(true), Some(last)) => last["id"].clone(),
            _ => Value::Null,
        };
        Ok(CallToolResult::structured(json_of(&SessionResultPage {
            session_id: a.session_id,
            status,
            still_running,
            receipt_ids: receipts_of(&data),
            rows: data,
            has_more: page["has_more"].clone(),
            next_starting_after: next,
            spend_usd: spend,
            cost_usd: 0,
        })))
    }

    #[tool(
        description = "Stops a running session: committed receipts settle, the rest of the reservation is released."
    )]
    async fn stop_session(
        &self,
        Parameters(a): Parameters<SessionArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        let stopped = self
            .tool(
                &parts,
                Method::POST,
                &format!("/sessions/{}/stop", enc(&a.session_id)),
                Some(Value::Object(Default::default())),
            )
            .await?;
        self.with_session_receipts(&parts, &a.session_id, stopped)
            .await
    }

    #[tool(description = "Free: the balance in USD, the open reservations and what is available.")]
    async fn balance(
        &self,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        self.tool(&parts, Method::GET, "/balance", None).await
    }

    #[tool(
        description = "Spends money: reads one page (a listing yields every product it shows) into rows with a signed receipt. Reserves max_spend_usd now; only the receipt's cost settles."
    )]
    async fn extract_url(
        &self,
        Parameters(a): Parameters<ExtractArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        self.tool(&parts, Method::POST, "/extractions", Some(json_of(&a)))
            .await
    }

    #[tool(
        description = "Free ($0): waits for an extraction to end (wait_s), then returns a page of its rows (limit, at most 100), its receipt_ids, spend_usd and page outcome; page on with starting_after = next_starting_after."
    )]
    async fn extraction_result(
        &self,
        Parameters(a): Parameters<ExtractionResultArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        let limit = match page_limit(&parts, a.limit) {
            Ok(limit) => limit as usize,
            Err(refused) => return Ok(refused),
        };
        let path = format!(
            "/extractions/{}/result?wait={}",
            enc(&a.extraction_id),
            a.wait_s.unwrap_or(30)
        );
        let waited = self.rest(&parts, Method::GET, &path, None).await?;
        if waited.is_error == Some(true) {
            return Ok(waited);
        }
        let result = waited.structured_content.unwrap_or(Value::Null);
        if result.get("still_running").is_some() {
            return Ok(CallToolResult::structured(with_cost(result)));
        }
        // A bounded page of its rows (checked, then unchecked), in order.
        let mut all: Vec<Value> = result["rows"].as_array().cloned().unwrap_or_default();
        all.extend(result["unchecked"].as_array().cloned().unwrap_or_default());
        all.sort_by_key(|r| row_number(&r["id"]));
        let after = a.starting_after.as_deref().map_or(0, row_number_of);
        let rest: Vec<Value> = all
            .into_iter()
            .filter(|r| row_number(&r["id"]) > after)
            .collect();
        let has_more = rest.len() > limit;
        let data: Vec<Value> = rest.into_iter().take(limit).collect();
        let next = if has_more {
            data.last().map(|r| r["id"].clone())
        } else {
            None
        };
        Ok(CallToolResult::structured(json_of(&ExtractionResultPage {
            extraction_id: a.extraction_id,
            status: result["status"].clone(),
            still_running: false,
            claim: result["claim"].clone(),
            outcome: result["outcome"].clone(),
            records: result["records"].clone(),
            rows: data,
            has_more,
            next_starting_after: next,
            receipt_ids: result["receipts"].clone(),
            spend_usd: result["spend_usd"].clone(),
            cost_usd: 0,
        })))
    }

    #[tool(
        description = "Free ($0): finds a site's catalog pages (listings, sitemaps, product pages), best first, with the signals that say why."
    )]
    async fn discover(
        &self,
        Parameters(a): Parameters<DiscoverArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        self.tool(&parts, Method::POST, "/discover", Some(json_of(&a)))
            .await
    }

    #[tool(
        description = "Creates a monitor that re-reads catalogs on a cadence and reports what changed. Creating it is free; each run reserves max_spend_usd_per_run and settles only its receipts. The answer states worst_case_monthly_usd, which must fit the monthly cap."
    )]
    async fn create_monitor(
        &self,
        Parameters(a): Parameters<CreateMonitorArgs>,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        let body = MonitorBody {
            watch: MonitorWatchBody {
                urls: a.urls.as_deref(),
                entity: a.entity.as_deref(),
                query: a.query.as_deref(),
            },
            cadence_s: a.cadence_s,
            max_spend_usd_per_run: a.max_spend_usd_per_run,
            name: a.name.as_deref(),
        };
        self.tool(&parts, Method::POST, "/monitors", Some(json_of(&body)))
            .await
    }

    #[tool(description = "Free: the account's monitors, newest first.")]
    async fn list_monitors(
        &self,
        Extension(parts): Extension<Parts>,
    ) -> Result<CallToolResult, McpError> {
        self.tool(&parts, Method::GET, "/monitors?limit=100", None)
            .await
    }
}

/// The data of a resource error: the URI asked for.
fn uri_data(uri: &str) -> Value {
    #[derive(Serialize)]
    struct Uri<'a> {
        uri: &'a str,
    }
    json_of(&Uri { uri })
}

/// A path segment, percent-encoded.
fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_tools()
                .build(),
        )
        .with_server_info(Implementation::new("fnhost", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "fnhost turns web pages into catalog rows, each backed by a signed receipt, paid from a prepaid USD balance. \
             Price a query with `estimate` (free), start it with `start_session` (reserves its cap), read rows with \
             `session_result`. Everything you send is treated as data.",
        )
    }

    async fn list_resource_templates(
        &self,
        _r: Option<PaginatedRequestParams>,
        _c: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("fnhost://sessions/{id}/result", "session-result")
                .with_mime_type("application/json")
                .with_description(
                    "A session's result: status, counts, spend, rows and receipt ids",
                ),
            ResourceTemplate::new("fnhost://receipts/{id}", "receipt")
                .with_mime_type("application/json")
                .with_description("A signed receipt of the caller's account and mode"),
        ]))
    }

    async fn list_resources(
        &self,
        _r: Option<PaginatedRequestParams>,
        _c: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(vec![]))
    }

    async fn read_resource(
        &self,
        req: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = req.uri;
        let parts = ctx
            .extensions
            .get::<Parts>()
            .ok_or_else(|| McpError::internal_error("no request", None))?;
        let not_found = || McpError::resource_not_found("resource_not_found", Some(uri_data(&uri)));
        let path = if let Some(id) = uri
            .strip_prefix("fnhost://sessions/")
            .and_then(|s| s.strip_suffix("/result"))
        {
            format!("/sessions/{}/result", enc(id))
        } else if let Some(id) = uri.strip_prefix("fnhost://receipts/") {
            // Read directly: the receipts lookup route may be closed.
            let caller = parts
                .extensions
                .get::<Arc<Caller>>()
                .ok_or_else(|| McpError::internal_error("no caller", None))?;
            let state = parts
                .extensions
                .get::<AppState>()
                .ok_or_else(|| McpError::internal_error("no state", None))?;
            let receipt = crate::receipts::find(state, caller, id).map_err(|_| not_found())?;
            return Ok(ReadResourceResult::new(vec![ResourceContents::text(
                receipt.to_string(),
                uri.clone(),
            )
            .with_mime_type("application/json")])
            .into());
        } else {
            return Err(not_found());
        };
        let got = self.rest(parts, Method::GET, &path, None).await?;
        if got.is_error == Some(true) {
            return Err(not_found());
        }
        let body = got.structured_content.unwrap_or(Value::Null);
        Ok(
            ReadResourceResult::new(vec![ResourceContents::text(body.to_string(), uri.clone())
                .with_mime_type("application/json")])
            .into(),
        )
    }
}
