//! The outermost layer of every request: a request id, the effective
//! version, one log line, and the rendering of errors into the envelope.

use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::{ApiError, PendingError};
use crate::accounts::CURRENT_VERSION;
use crate::state::AppState;

/// The request id of the request being served, for handlers that need it.
#[derive(Clone, Debug)]
pub struct RequestId(pub String);

pub async fn conventions(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let started = Instant::now();
    let request_id = crate::ids::new_id("req");
    req.extensions_mut().insert(RequestId(request_id.clone()));
    let version = req
        .headers()
        .get("fn-version")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| CURRENT_VERSION.to_string());
    let method = req.method().clone();
    let path = req.uri().path().to_string();

    let mut response = next.run(req).await;

    // A known path with a wrong method is answered like an unknown path.
    if response.status() == StatusCode::METHOD_NOT_ALLOWED {
        response = ApiError::NotFound.into_response();
    }
    // An error a layer beneath the handlers answered in plain text (a path
    // segment that does not decode, the tool-protocol transport) still gets
    // the envelope on the API's routes; a client error takes its type's
    // status (invalid_request is 400, not the transport's 406 or 415), a
    // server error keeps its own.
    let api = path == "/v1" || path.starts_with("/v1/");
    let mut kept_status = None;
    if api && response.extensions().get::<PendingError>().is_none() && is_plain_error(&response) {
        kept_status = Some(response.status()).filter(|s| s.is_server_error());
        response = plain_error(response).await.into_response();
    }
    if let Some(PendingError(err)) = response.extensions_mut().remove::<PendingError>() {
        let body = err.envelope_json(&request_id, &state.config.docs_url());
        let status = kept_status.unwrap_or_else(|| err.status());
        let mut rendered = (status, axum::Json(body)).into_response();
        for name in ["retry-after"] {
            if let Some(v) = response.headers().get(name) {
                rendered.headers_mut().insert(name, v.clone());
            }
        }
        response = rendered;
    }
    let headers = response.headers_mut();
    // A replayed idempotent response keeps the id of the request it answers.
    if !headers.contains_key("fn-request-id") {
        headers.insert(
            "fn-request-id",
            HeaderValue::from_str(&request_id).expect("ids are ascii"),
        );
    }
    if let Ok(v) = HeaderValue::from_str(&version) {
        headers.insert("fn-version", v);
    }
    tracing::info!(
        request_id = %request_id,
        method = %method,
        path = %path,
        status = response.status().as_u16(),
        ms = started.elapsed().as_secs_f64() * 1e3,
        "request"
    );
    response
}

/// Whether a response is an error whose body is not already JSON (nor a
/// stream of events).
fn is_plain_error(response: &Response) -> bool {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return false;
    }
    let kind = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    !(kind.starts_with("application/json") || kind.starts_with("text/event-stream"))
}

/// The envelope's error for a plain-text error answer: `not_found` for a
/// 404 and for a path segment that cannot be read, a service fault for a
/// 5xx, else `invalid_param` naming what the text names (the header a 406
/// or 415 is about, the tool protocol's session header).
async fn plain_error(response: Response) -> ApiError {
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 4096)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).trim().to_string();
    // A path segment that cannot be read (not UTF-8) names no resource
    // there is: unknown, 404 (SPEC §5).
    if status == StatusCode::NOT_FOUND || text.starts_with("Invalid URL") {
        return ApiError::NotFound;
    }
    if status.is_server_error() {
        return ApiError::Internal(anyhow::anyhow!("{status}: {text}"));
    }
    let param = match status {
        StatusCode::NOT_ACCEPTABLE => "Accept".to_string(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "Content-Type".to_string(),
        _ => text
            .split('`')
            .nth(1)
            .filter(|p| !p.is_empty() && p.len() <= 64)
            .map(str::to_string)
            .or_else(|| {
                text.contains("Session ID")
                    .then(|| "Mcp-Session-Id".to_string())
            })
            .unwrap_or_else(|| "request".to_string()),
    };
    let message = if text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("bad request")
            .to_string()
    } else {
        text.chars().take(500).collect()
    };
    ApiError::invalid(param, message)
}

/// The fallback for unknown paths.
pub async fn not_found() -> Response {
    ApiError::NotFound.into_response()
}

/// A request that may change state runs in a task of its own, which the
/// connection does not own: when the client hangs up, hyper drops the
/// request's future, but the task goes on, so whatever the request commits
/// is followed through (the run it starts, its end, its events and
/// webhooks). Reads are not detached: nothing they do outlives them, and a
/// long poll or a stream should end with its client. A panic in a handler
/// is answered 500 `internal` and never reaches the connection.
pub async fn detach(req: Request, next: Next) -> Response {
    if req.method().is_safe() {
        return next.run(req).await;
    }
    match tokio::spawn(next.run(req)).await {
        Ok(response) => response,
        Err(e) => {
            if e.is_panic() {
                let panic = e.into_panic();
                tracing::error!(
                    panic = crate::supervise::panic_text(&*panic),
                    "a request handler panicked"
                );
            }
            ApiError::Internal(anyhow::anyhow!("the request handler failed")).into_response()
        }
    }
}
