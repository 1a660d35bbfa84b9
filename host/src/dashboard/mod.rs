//! The dashboard: server-rendered pages at /dashboard for a customer
//! signed in with an API key. It reads the host's own modules (ledger,
//! sessions, keys, webhooks), never the HTTP API, and needs no network:
//! its stylesheet and script are embedded in the binary.
//!
//! - `auth`: sign-in, sign-out, the session cookie, CSRF, scopes.
//! - `html`: escaping and the page frame.
//! - `balance`: balance, open reserves, the spend chart.
//! - `sessions`: the sessions and the extractions; one run's rows, events (live) and receipts.
//! - `monitors`: the monitors; one monitor's runs, changes and price history.
//! - `keys`: the keys of the signed-in mode; rename and revoke.
//! - `webhooks`: endpoints, their attempts, the account default secret.
//!
//! docs/DASHBOARD.md describes what it shows and its security model.

pub mod auth;
pub mod balance;
pub mod frame;
pub mod html;
pub mod keys;
pub mod monitors;
pub mod sessions;
pub mod webhooks;

use axum::http::header;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};

use crate::state::AppState;

const STYLE: &str = include_str!("assets/style.css");
const SCRIPT: &str = include_str!("assets/app.js");

/// Every dashboard route; merged at the top level of the router.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/dashboard", get(home))
        .route("/dashboard/", get(home))
        .route("/dashboard/login", get(auth::login_form).post(auth::login))
        .route("/dashboard/logout", post(auth::logout))
        .route("/dashboard/balance", get(balance::page))
        .route("/dashboard/monitors", get(monitors::list))
        .route("/dashboard/monitors/{id}", get(monitors::detail))
        .route("/dashboard/keys", get(keys::page))
        .route("/dashboard/keys/{id}/rename", post(keys::rename))
        .route("/dashboard/keys/{id}/revoke", post(keys::revoke))
        .route("/dashboard/webhooks", get(webhooks::endpoints))
        .route("/dashboard/webhooks/{id}", get(webhooks::attempts))
        .route("/dashboard/webhook-secret", get(webhooks::secret))
        .route("/dashboard/webhook-secret/reveal", post(webhooks::reveal))
        .route("/dashboard/webhook-secret/rotate", post(webhooks::rotate))
        .route(
            "/dashboard/assets/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE) }),
        )
        .route(
            "/dashboard/assets/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }),
        )
        .merge(run_pages(sessions::SESSIONS))
        .merge(run_pages(sessions::EXTRACTIONS))
        .layer(Extension(auth::Sessions::default()))
}

/// The pages of one kind of run (sessions, extractions): the list, and one
/// run's rows, events (live) and receipts.
fn run_pages(of: sessions::Of) -> Router<AppState> {
    let one = format!("{}/{{id}}", of.base);
    Router::new()
        .route(of.base, get(move |s, d, q| sessions::list(of, s, d, q)))
        .route(
            &one,
            get(move |s, d, id, q| sessions::rows(of, s, d, id, q)),
        )
        .route(
            &format!("{one}/events"),
            get(move |s, d, id| sessions::events(of, s, d, id)),
        )
        .route(
            &format!("{one}/events.json"),
            get(move |s, d, id, q| sessions::events_json(of, s, d, id, q)),
        )
        .route(
            &format!("{one}/receipts"),
            get(move |s, d, id| sessions::receipts(of, s, d, id)),
        )
}

async fn home(_: auth::Dash) -> Response {
    html::secure(Redirect::to("/dashboard/balance").into_response())
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    html::secure(([(header::CONTENT_TYPE, content_type)], body).into_response())
}
