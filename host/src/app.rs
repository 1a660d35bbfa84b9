//! The router: every route of the API under /v1, the error pages, and the
//! conventions layer around them all.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::Value;
use std::sync::OnceLock;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::error::{type_of_code, CODE_DOCS};
use crate::http::middleware;
use crate::state::AppState;

/// Every route under /v1, each with its OpenAPI description: the live
/// ones, the preview surfaces `open` names, and 501 for the other planned
/// ones.
pub fn api(open: &[String]) -> OpenApiRouter<AppState> {
    let preview = |switch: &str| open.iter().any(|o| o == switch);
    let mut api = OpenApiRouter::new()
        .routes(routes!(openapi_json))
        .merge(crate::platform::routes())
        .merge(crate::sessions::api::routes(
            preview("redaction"),
            preview("refresh"),
        ))
        .merge(crate::receipts::routes())
        .merge(crate::webhooks::routes())
        .merge(crate::planned::routes(open));
    if preview("extractions") {
        api = api.merge(crate::extractions::api::routes(
            preview("redaction"),
            preview("refresh"),
        ));
    }
    if preview("refresh") && !preview("extractions") {
        // Extraction refresh needs the extractions surface itself.
        api = api.route(
            "/extractions/{id}/refresh",
            crate::planned::handler("extractions"),
        );
    }
    if preview("receipts") {
        api = api.merge(crate::receipts::lookup_routes());
    }
    if preview("monitors") {
        api = api.merge(crate::monitors::api::routes());
    }
    if preview("discover") {
        api = api.merge(crate::discover::routes());
    }
    if preview("webhook_test") {
        api = api.merge(crate::webhooks::testing::routes());
    }
    api
}

/// The OpenAPI document of a server with the preview surfaces `open`
/// opened, generated from the same annotated routes it serves.
pub fn document_of(open: &[String]) -> serde_json::Value {
    crate::openapi::build(api(open), open)
}

/// The document, built once.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| document_of(&[]))
}

/// The document as the committed file holds it: pretty JSON and a newline.
pub fn document_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = serde_json::to_string_pretty(document()).expect("a JSON value serializes");
        text.push('\n');
        text
    })
}

/// This document.
#[utoipa::path(
    get,
    path = "/openapi.json",
    operation_id = "getOpenApi",
    tag = "meta",
    security(()),
    responses((status = 200, description = "The OpenAPI 3.1 document of this API", content_type = "application/json", body = Object))
)]
pub async fn openapi_json(
    axum::extract::State(state): axum::extract::State<crate::state::AppState>,
) -> impl IntoResponse {
    let text = if state.config.preview.is_empty() {
        document_text()
    } else {
        // The preview surfaces the operator opened are described too.
        static OPEN: OnceLock<String> = OnceLock::new();
        OPEN.get_or_init(|| {
            let mut text = serde_json::to_string_pretty(&document_of(&state.config.preview))
                .expect("a JSON value serializes");
            text.push('\n');
            text
        })
    };
    ([(header::CONTENT_TYPE, "application/json")], text)
}

/// The whole application, ready to serve.
pub fn app(state: AppState) -> Router {
    let rest = application(state.clone(), None);
    if !state.config.preview.iter().any(|p| p == "mcp") {
        return rest;
    }
    // The tool-protocol server calls the REST API in-process.
    let mcp = crate::mcp::routes(state.clone(), rest);
    application(state, Some(mcp))
}

/// The application, with the tool-protocol server's routes when given.
fn application(state: AppState, mcp: Option<Router<()>>) -> Router {
    let (mut api, _) = api(&state.config.preview).split_for_parts();
    if let Some(mcp) = mcp {
        api = api.nest_service("/mcp", mcp);
    }
    Router::new()
        .nest("/v1", api)
        .merge(crate::dashboard::routes())
        .route("/docs/errors/{code}", get(error_page))
        .route("/healthz", get(|| async { "ok" }))
        .fallback(middleware::not_found)
        .layer(axum::middleware::from_fn(middleware::detach))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::conventions,
        ))
        .with_state(state)
}

/// A short human page about one error code: the target of every `doc_url`.
async fn error_page(Path(code): Path<String>) -> Response {
    let Some((_, text)) = CODE_DOCS.iter().find(|(c, _)| *c == code) else {
        return (StatusCode::NOT_FOUND, "unknown error code").into_response();
    };
    let ty = type_of_code(&code);
    let page = format!(
        "<!doctype html><html lang=en><meta charset=utf-8><title>{code}</title>\
         <body style=\"font-family:sans-serif;max-width:40em;margin:2em auto\">\
         <h1><code>{code}</code></h1><p>Type: <code>{ty}</code></p><p>{text}</p>\
         <p>Program against <code>code</code>; handle unknown codes by <code>type</code>.</p></body></html>"
    );
    (
        [(header::CACHE_CONTROL, "public, max-age=3600")],
        Html(page),
    )
        .into_response()
}
