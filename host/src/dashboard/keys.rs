//! The keys of the signed-in account and mode: rename and revoke (with
//! keys:write). Revoking the key the dashboard is signed in with signs out.

use std::fmt::Write as _;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use serde::Deserialize;

use super::auth::{CsrfForm, Dash};
use super::frame::{self, csrf_field, Nav};
use super::html::{self, pill, when, E};
use crate::http::ApiError;
use crate::keys::{self, Key};
use crate::state::AppState;
use crate::wire::KeyScope;

/// The longest key name (as the API).
const MAX_NAME: usize = 100;

#[derive(Deserialize)]
pub struct Done {
    done: Option<String>,
}

pub async fn page(State(state): State<AppState>, dash: Dash, Query(q): Query<Done>) -> Response {
    if !dash.can(KeyScope::KeysRead) {
        return frame::page(
            &dash,
            Nav::Keys,
            "Keys",
            &html::missing_scope(KeyScope::KeysRead),
        );
    }
    let (account, mode) = (dash.account.id.clone(), dash.key.mode);
    let mut list = match state
        .store
        .read_async(move |tx| keys::of_account(tx, &account, mode))
        .await
    {
        Ok(l) => l,
        Err(e) => return ApiError::internal(e).into_response(),
    };
    list.reverse();
    let writable = dash.can(KeyScope::KeysWrite);
    let mut main = String::new();
    match q.done.as_deref() {
        Some("renamed") => main.push_str(&html::notice("ok", "The key was renamed.")),
        Some("revoked") => main.push_str(&html::notice(
            "ok",
            "The key was revoked: requests with it now get 401 key_revoked.",
        )),
        _ => {}
    }
    let _ = write!(
        main,
        "<p>The {} keys of this account. Key texts are shown only once, when a key is made; here you see their prefixes.</p>",
        dash.key.mode.as_str()
    );
    if !writable {
        main.push_str(&html::notice("info", "This key lacks the <code>keys:write</code> scope: keys can be viewed, not renamed or revoked."));
    }
    main.push_str(
        "<table id=\"keys\"><thead><tr><th>Name</th><th>Key</th><th>Scopes</th><th class=\"num\">Session cap</th><th>Created</th>\
         <th>Status</th><th>Actions</th></tr></thead><tbody>",
    );
    for k in &list {
        let this = k.id == dash.key.id;
        let status = match &k.revoked_at {
            Some(at) => format!(
                "{} <span class=\"small\">{}</span>",
                pill("revoked"),
                when(at)
            ),
            None => pill("active"),
        };
        let mut actions = String::new();
        if writable && k.revoked_at.is_none() {
            let confirm = if this {
                "Revoke the key you are signed in with? You will be signed out.".to_string()
            } else {
                format!(
                    "Revoke the key {}? Requests with it will fail from now on.",
                    k.name
                )
            };
            let _ = write!(
                actions,
                "<form method=\"post\" action=\"/dashboard/keys/{id}/rename\" class=\"inline rename\">{csrf}\
                 <input type=\"text\" name=\"name\" value=\"{name}\" maxlength=\"{MAX_NAME}\" aria-label=\"New name\" required>\
                 <button type=\"submit\">Rename</button></form> \
                 <form method=\"post\" action=\"/dashboard/keys/{id}/revoke\" class=\"inline revoke\" data-confirm=\"{confirm}\">{csrf}\
                 <button type=\"submit\" class=\"danger\">Revoke</button></form>",
                id = E(&k.id),
                csrf = csrf_field(&dash),
                name = E(&k.name),
                confirm = E(&confirm),
            );
        }
        let scopes = k
            .scopes
            .iter()
            .map(|s| format!("<code>{}</code>", E(s)))
            .collect::<Vec<_>>()
            .join(" ");
        let _ = write!(
            main,
            "<tr data-key-id=\"{id}\"{cls}><td class=\"name\">{name}{this}</td><td><code>{prefix}…</code><br><code class=\"small\">{id}</code></td>\
             <td class=\"scopes\">{scopes}</td><td class=\"num\">{cap}</td><td>{created}</td><td>{status}</td><td>{actions}</td></tr>",
            id = E(&k.id),
            cls = if this { " class=\"this-key\"" } else { "" },
            name = E(&k.name),
            this = if this { " <span class=\"pill run\">signed in</span>" } else { "" },
            prefix = E(&k.prefix),
            cap = k.session_cap.map(html::usd).unwrap_or_else(|| "—".into()),
            created = when(&k.created_at),
        );
    }
    main.push_str("</tbody></table>");
    main.push_str("<p class=\"small\">New keys are made by the operator of this server (<code>fnhost admin create-key</code>).</p>");
    frame::page(&dash, Nav::Keys, "Keys", &main)
}

/// A key of the signed-in account and mode.
async fn own(state: &AppState, dash: &Dash, id: &str) -> Result<Option<Key>, Response> {
    let id = id.to_string();
    let k = state
        .store
        .read_async(move |tx| keys::get(tx, &id))
        .await
        .map_err(|e| ApiError::internal(e).into_response())?;
    Ok(k.filter(|k| k.account == dash.account.id && k.mode == dash.key.mode))
}

fn unknown_key(dash: &Dash) -> Response {
    frame::page_with_status(
        dash,
        Nav::Keys,
        "Key not found",
        &html::notice("error", "No key with this id in this account and mode."),
        StatusCode::NOT_FOUND,
    )
}

#[derive(Deserialize)]
pub struct RenameForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
}

pub async fn rename(
    State(state): State<AppState>,
    dash: Dash,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(form): Form<RenameForm>,
) -> Response {
    if let Err(r) = dash.check_csrf(&headers, &form.csrf) {
        return r;
    }
    if let Err(r) = dash.require(KeyScope::KeysWrite, "rename keys") {
        return r;
    }
    let name = form.name.trim().to_string();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return frame::page_with_status(
            &dash,
            Nav::Keys,
            "Keys",
            &html::notice("error", &format!("A key name must have 1 to {MAX_NAME} characters. <a href=\"/dashboard/keys\">Back to keys</a>")),
            StatusCode::BAD_REQUEST,
        );
    }
    match own(&state, &dash, &id).await {
        Ok(Some(_)) => {}
        Ok(None) => return unknown_key(&dash),
        Err(r) => return r,
    }
    let done = state
        .store
        .write_async(move |tx| -> anyhow::Result<()> {
            if let Some(mut key) = keys::get(tx, &id)? {
                key.name = name;
                keys::put(tx, &key)?;
            }
            Ok(())
        })
        .await;
    if let Err(e) = done {
        return ApiError::internal(e).into_response();
    }
    html::secure(Redirect::to("/dashboard/keys?done=renamed").into_response())
}

pub async fn revoke(
    State(state): State<AppState>,
    dash: Dash,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(form): Form<CsrfForm>,
) -> Response {
    if let Err(r) = dash.check_csrf(&headers, &form.csrf) {
        return r;
    }
    if let Err(r) = dash.require(KeyScope::KeysWrite, "revoke keys") {
        return r;
    }
    match own(&state, &dash, &id).await {
        Ok(Some(_)) => {}
        Ok(None) => return unknown_key(&dash),
        Err(r) => return r,
    }
    let kid = id.clone();
    let done = state
        .store
        .write_async(move |tx| -> anyhow::Result<()> {
            if let Some(mut key) = keys::get(tx, &kid)? {
                // Revoking twice keeps the first revocation time.
                if key.revoked_at.is_none() {
                    key.revoked_at = Some(crate::time::now());
                    keys::put(tx, &key)?;
                }
            }
            Ok(())
        })
        .await;
    if let Err(e) = done {
        return ApiError::internal(e).into_response();
    }
    tracing::info!(key = %id, by = %dash.key.id, "key revoked from the dashboard");
    dash.sessions.remove_key(&id);
    if id == dash.key.id {
        return html::secure(Redirect::to("/dashboard/login?m=revoked_self").into_response());
    }
    html::secure(Redirect::to("/dashboard/keys?done=revoked").into_response())
}
