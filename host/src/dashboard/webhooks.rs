//! Webhook endpoints and their attempts log, and the account default
//! secret (reveal with webhooks:read, rotate with webhooks:write).
//!
//! The secret is never in a GET response: it is shown only in the answer to
//! a POST (reveal), and rotation redirects back to the masked page.

use std::fmt::Write as _;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use serde::Deserialize;

use super::auth::{CsrfForm, Dash};
use super::frame::{self, csrf_field, Nav};
use super::html::{self, esc, pill, when, when_opt, E};
use crate::http::ApiError;
use crate::state::AppState;
use crate::webhooks::{self, Attempt, DefaultSecret, Endpoint};
use crate::wire::KeyScope;

/// Attempts shown on an endpoint's page.
const ATTEMPTS_SHOWN: usize = 100;

fn internal(e: impl Into<anyhow::Error>) -> Response {
    ApiError::internal(e).into_response()
}

pub async fn endpoints(State(state): State<AppState>, dash: Dash) -> Response {
    if !dash.can(KeyScope::WebhooksRead) {
        return frame::page(
            &dash,
            Nav::Webhooks,
            "Webhooks",
            &html::missing_scope(KeyScope::WebhooksRead),
        );
    }
    let (account, mode) = (dash.account.id.clone(), dash.key.mode);
    let mut list = match state
        .store
        .read_async(move |tx| webhooks::endpoints_of(tx, &account, mode))
        .await
    {
        Ok(l) => l,
        Err(e) => return internal(e),
    };
    list.reverse();
    let mut main = String::from(
        "<p>Endpoints receive signed events (Standard Webhooks). They are made and changed with <code>/v1/webhooks</code>; \
         here you see them and every delivery attempt. Runs that name their own <code>webhook_url</code> are signed with \
         the <a href=\"/dashboard/webhook-secret\">account default secret</a>.</p>",
    );
    if list.is_empty() {
        main.push_str("<p class=\"empty\">No webhook endpoints in this mode.</p>");
    } else {
        main.push_str(
            "<table id=\"webhooks\"><thead><tr><th>Endpoint</th><th>URL</th><th>Events</th><th>Status</th><th>Last delivery</th>\
             <th>Version</th><th>Created</th></tr></thead><tbody>",
        );
        for ep in &list {
            let last = match &ep.last_delivery {
                Some(d) => format!(
                    "{} {} <span class=\"small\">{}</span>",
                    pill(if d.ok { "ok" } else { "failed" }),
                    d.status.map(|s| s.to_string()).unwrap_or_default(),
                    when(&d.at)
                ),
                None => "—".into(),
            };
            let events = ep
                .events
                .iter()
                .map(|e| format!("<code>{}</code>", E(e)))
                .collect::<Vec<_>>()
                .join(" ");
            let description = ep
                .description
                .as_deref()
                .map(|d| format!("<br><span class=\"small\">{}</span>", E(d)))
                .unwrap_or_default();
            let _ = write!(
                main,
                "<tr><td><a href=\"/dashboard/webhooks/{id}\"><code>{id}</code></a>{description}</td><td class=\"url\">{url}</td><td>{events}</td>\
                 <td>{status}</td><td>{last}</td><td>{version}</td><td>{created}</td></tr>",
                id = E(&ep.id),
                url = E(&ep.url),
                status = pill(if ep.disabled { "disabled" } else { "enabled" }),
                version = E(&ep.fn_version),
                created = when(&ep.created_at),
            );
        }
        main.push_str("</tbody></table>");
    }
    frame::page(&dash, Nav::Webhooks, "Webhooks", &main)
}

/// Attempts logged for `log_target`, newest first.
async fn attempts_of(
    state: &AppState,
    log_target: String,
    limit: usize,
) -> anyhow::Result<Vec<Attempt>> {
    state
        .store
        .read_async(move |tx| crate::webhooks::attempts_of(tx, &log_target, limit))
        .await
}

fn attempts_table(list: &[Attempt]) -> String {
    if list.is_empty() {
        return "<p class=\"empty\">No delivery attempts yet.</p>".into();
    }
    let mut out = String::from(
        "<table id=\"attempts\"><thead><tr><th>At</th><th>Event</th><th>Message</th><th class=\"num\">Attempt</th><th>Outcome</th>\
         <th>HTTP</th><th class=\"num\">ms</th><th>Error</th><th>Next attempt</th></tr></thead><tbody>",
    );
    for a in list {
        let outcome = if a.dropped {
            pill("dropped")
        } else if a.ok {
            pill("ok")
        } else if a.dead_lettered {
            pill("dead-lettered")
        } else {
            pill("failed")
        };
        let _ = write!(
            out,
            "<tr><td>{at}</td><td><code>{ty}</code></td><td><code>{msg}</code></td><td class=\"num\">{n}</td><td>{outcome}</td>\
             <td>{status}</td><td class=\"num\">{ms}</td><td>{error}</td><td>{next}</td></tr>",
            at = when(&a.at),
            ty = E(&a.event_type),
            msg = E(&a.msg_id),
            n = a.attempt,
            status = a.status.map(|s| s.to_string()).unwrap_or_else(|| "—".into()),
            ms = a.duration_ms,
            error = esc(a.error.as_deref().unwrap_or("")),
            next = when_opt(a.next_attempt_at.as_deref()),
        );
    }
    out.push_str("</tbody></table>");
    out
}

pub async fn attempts(
    State(state): State<AppState>,
    dash: Dash,
    Path(id): Path<String>,
) -> Response {
    if !dash.can(KeyScope::WebhooksRead) {
        return frame::page(
            &dash,
            Nav::Webhooks,
            "Webhook endpoint",
            &html::missing_scope(KeyScope::WebhooksRead),
        );
    }
    let eid = id.clone();
    let ep: Option<Endpoint> = match state
        .store
        .read_async(move |tx| crate::webhooks::endpoint(tx, &eid))
        .await
    {
        Ok(e) => e,
        Err(e) => return internal(e),
    };
    let Some(ep) = ep.filter(|e| e.account == dash.account.id && e.mode == dash.key.mode) else {
        return frame::page_with_status(
            &dash,
            Nav::Webhooks,
            "Webhook endpoint not found",
            &html::notice(
                "error",
                "No webhook endpoint with this id in this account and mode.",
            ),
            StatusCode::NOT_FOUND,
        );
    };
    let list = match attempts_of(&state, ep.id.clone(), ATTEMPTS_SHOWN).await {
        Ok(l) => l,
        Err(e) => return internal(e),
    };
    let mut main = String::new();
    let _ = write!(
        main,
        "<dl class=\"summary\"><dt>Id</dt><dd><code>{id}</code></dd><dt>URL</dt><dd class=\"url\">{url}</dd>\
         <dt>Events</dt><dd>{events}</dd><dt>Status</dt><dd>{status}</dd><dt>Version</dt><dd>{version}</dd>\
         <dt>Description</dt><dd>{description}</dd><dt>Created</dt><dd>{created}</dd></dl>\
         <h2>Attempts</h2><p class=\"small\">The latest {ATTEMPTS_SHOWN}, newest first. All of them: <code>GET /v1/webhooks/{id}/attempts</code>.</p>",
        id = E(&ep.id),
        url = E(&ep.url),
        events = E(&ep.events.join(", ")),
        status = pill(if ep.disabled { "disabled" } else { "enabled" }),
        version = E(&ep.fn_version),
        description = E(ep.description.as_deref().unwrap_or("—")),
        created = when(&ep.created_at),
    );
    main.push_str(&attempts_table(&list));
    frame::page(&dash, Nav::Webhooks, "Webhook endpoint", &main)
}

#[derive(Deserialize)]
pub struct Done {
    done: Option<String>,
}

/// The secret page; `revealed` shows the secret itself.
async fn secret_page(
    state: &AppState,
    dash: &Dash,
    revealed: bool,
    message: Option<String>,
) -> Response {
    let (account, mode) = (dash.account.id.clone(), dash.key.mode);
    let existing = match state
        .store
        .read_async(move |tx| webhooks::read_default_secret(tx, &account, mode))
        .await
    {
        Ok(s) => s,
        Err(e) => return internal(e),
    };
    let secret: DefaultSecret = match existing {
        Some(s) => s,
        None => {
            // Created on first use, as GET /v1/webhook-secret does.
            let (account, mode) = (dash.account.id.clone(), dash.key.mode);
            match state
                .store
                .write_async(move |tx| webhooks::default_secret(tx, &account, mode))
                .await
            {
                Ok(s) => s,
                Err(e) => return internal(e),
            }
        }
    };
    let run_log = webhooks::run_log_target(&dash.account.id, dash.key.mode);
    let runs = match attempts_of(state, run_log, 20).await {
        Ok(l) => l,
        Err(e) => return internal(e),
    };
    let mut main = message.unwrap_or_default();
    main.push_str(
        "<p>The account default secret signs deliveries to a run's own <code>webhook_url</code>. Each endpoint has its own \
         secret, shown once when it is made.</p>",
    );
    let shown = if revealed {
        format!(
            "<code id=\"secret-value\" class=\"secret\">{}</code>",
            E(&secret.secret)
        )
    } else {
        let tail: String = secret
            .secret
            .chars()
            .rev()
            .take(4)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!(
            "<code id=\"secret-masked\" class=\"secret\">whsec_••••••••••••{}</code>",
            E(&tail)
        )
    };
    let overlap = match (&secret.previous, &secret.previous_until) {
        (Some(_), Some(until)) => format!(
            "<dt>Previous secret</dt><dd>still signs alongside until {} (receivers can switch without losing messages)</dd>",
            when(until)
        ),
        _ => String::new(),
    };
    let _ = write!(
        main,
        "<dl class=\"summary\"><dt>Secret</dt><dd>{shown}</dd><dt>Created</dt><dd>{}</dd>{overlap}</dl>",
        when(&secret.created_at)
    );
    main.push_str("<div class=\"actions\">");
    if !revealed {
        let _ = write!(
            main,
            "<form method=\"post\" action=\"/dashboard/webhook-secret/reveal\" class=\"inline\">{}<button type=\"submit\" id=\"reveal\">Reveal</button></form> ",
            csrf_field(dash)
        );
    }
    if dash.can(KeyScope::WebhooksWrite) {
        let _ = write!(
            main,
            "<form method=\"post\" action=\"/dashboard/webhook-secret/rotate\" class=\"inline\" \
             data-confirm=\"Rotate the default secret? The current one keeps signing alongside for 24 hours.\">{}\
             <button type=\"submit\" class=\"danger\" id=\"rotate\">Rotate</button></form>",
            csrf_field(dash)
        );
    } else {
        main.push_str(&html::notice("info", "This key lacks the <code>webhooks:write</code> scope: the secret can be revealed, not rotated."));
    }
    main.push_str("</div><h2>Deliveries to runs' own webhook_url</h2>");
    main.push_str(&attempts_table(&runs));
    frame::page(dash, Nav::Secret, "Webhook secret", &main)
}

pub async fn secret(State(state): State<AppState>, dash: Dash, Query(q): Query<Done>) -> Response {
    if !dash.can(KeyScope::WebhooksRead) {
        return frame::page(
            &dash,
            Nav::Secret,
            "Webhook secret",
            &html::missing_scope(KeyScope::WebhooksRead),
        );
    }
    let message = match q.done.as_deref() {
        Some("rotated") => Some(html::notice(
            "ok",
            "The secret was rotated. The previous one keeps signing alongside for 24 hours. Reveal the new one to copy it.",
        )),
        _ => None,
    };
    secret_page(&state, &dash, false, message).await
}

pub async fn reveal(
    State(state): State<AppState>,
    dash: Dash,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    if let Err(r) = dash.check_csrf(&headers, &form.csrf) {
        return r;
    }
    if let Err(r) = dash.require(KeyScope::WebhooksRead, "read the webhook secret") {
        return r;
    }
    secret_page(&state, &dash, true, None).await
}

pub async fn rotate(
    State(state): State<AppState>,
    dash: Dash,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    if let Err(r) = dash.check_csrf(&headers, &form.csrf) {
        return r;
    }
    if let Err(r) = dash.require(KeyScope::WebhooksWrite, "rotate the webhook secret") {
        return r;
    }
    let (account, mode) = (dash.account.id.clone(), dash.key.mode);
    if let Err(e) = state
        .store
        .write_async(move |tx| webhooks::rotate_default_secret(tx, &account, mode))
        .await
    {
        return internal(e);
    }
    tracing::info!(account = %dash.account.id, key = %dash.key.id, "default webhook secret rotated from the dashboard");
    html::secure(Redirect::to("/dashboard/webhook-secret?done=rotated").into_response())
}
