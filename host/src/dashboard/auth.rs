//! Signing in to the dashboard, and who is signed in.
//!
//! - Sign-in takes an API key and validates it exactly as the API does (the
//!   `Caller` extractor runs on a request carrying it as a bearer key).
//! - The browser then holds only a random token in an HttpOnly,
//!   SameSite=Strict cookie scoped to /dashboard; the server maps the token's
//!   hash to the key id, with an idle and an absolute expiry. The key text
//!   itself is never kept.
//! - Every request re-reads the key and its account: a revoked key ends its
//!   dashboard sessions at once.
//! - Each dashboard session has its own CSRF token, in every form and checked
//!   on every POST; the sign-in form has one too, bound to a short-lived
//!   cookie (login CSRF).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use serde::Deserialize;
use subtle::ConstantTimeEq;

use super::html;
use crate::accounts::Account;
use crate::auth::Caller;
use crate::http::ApiError;
use crate::keys::{self, Key};
use crate::state::AppState;
use crate::wire::KeyScope;

/// The cookie holding a dashboard session's token.
pub const SESSION_COOKIE: &str = "fnhost_dash";
/// The cookie binding the sign-in form to this browser.
pub const LOGIN_COOKIE: &str = "fnhost_dash_login";
/// A session ends after this long without a request.
pub const IDLE: Duration = Duration::from_secs(2 * 3600);
/// And after this long in any case.
pub const ABSOLUTE: Duration = Duration::from_secs(12 * 3600);
/// At most this many dashboard sessions are kept; the oldest goes first.
const MAX_SESSIONS: usize = 10_000;
/// How long the sign-in form stays valid.
const LOGIN_FORM_S: u64 = 3600;

/// The scopes that change something; a key with none of them sees a
/// read-only dashboard.

struct Entry {
    key_id: String,
    csrf: String,
    created: Instant,
    last_seen: Instant,
}

/// The dashboard sessions of this server, in memory: a restart signs
/// everyone out.
#[derive(Clone, Default)]
pub struct Sessions(Arc<Mutex<HashMap<String, Entry>>>);

impl Sessions {
    /// A new session for `key_id`: its token (for the cookie).
    pub fn create(&self, key_id: &str) -> String {
        let token = crate::ids::random_text(43);
        let now = Instant::now();
        let mut map = self.0.lock().unwrap();
        map.retain(|_, e| alive(e, now));
        if map.len() >= MAX_SESSIONS {
            if let Some(oldest) = map
                .iter()
                .min_by_key(|(_, e)| e.created)
                .map(|(k, _)| k.clone())
            {
                map.remove(&oldest);
            }
        }
        map.insert(
            keys::hash(&token),
            Entry {
                key_id: key_id.to_string(),
                csrf: crate::ids::random_text(32),
                created: now,
                last_seen: now,
            },
        );
        token
    }

    /// The key id and CSRF token of a live session, marking it used.
    fn touch(&self, token: &str) -> Option<(String, String)> {
        let now = Instant::now();
        let mut map = self.0.lock().unwrap();
        let h = keys::hash(token);
        let e = map.get_mut(&h)?;
        if !alive(e, now) {
            map.remove(&h);
            return None;
        }
        e.last_seen = now;
        Some((e.key_id.clone(), e.csrf.clone()))
    }

    pub fn remove(&self, token: &str) {
        self.0.lock().unwrap().remove(&keys::hash(token));
    }

    /// End every session of a key (it was revoked).
    pub fn remove_key(&self, key_id: &str) {
        self.0.lock().unwrap().retain(|_, e| e.key_id != key_id);
    }
}

fn alive(e: &Entry, now: Instant) -> bool {
    now.duration_since(e.last_seen) < IDLE && now.duration_since(e.created) < ABSOLUTE
}

/// A signed-in dashboard request: the key, its account, the session's
/// CSRF token.
#[derive(Clone)]
pub struct Dash {
    pub key: Key,
    pub account: Account,
    pub csrf: String,
    pub token: String,
    pub sessions: Sessions,
}

impl Dash {
    pub fn can(&self, scope: KeyScope) -> bool {
        self.key.has_scope(scope)
    }

    /// No write scope at all.
    pub fn read_only(&self) -> bool {
        !KeyScope::WRITES.iter().any(|s| self.can(*s))
    }
}

/// The value of cookie `name` in the request.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// A Set-Cookie value: HttpOnly, SameSite=Strict, Path=/dashboard, and
/// Secure when the server is reached over https.
fn set_cookie(state: &AppState, name: &str, value: &str, max_age_s: u64) -> HeaderValue {
    let secure = if state.config.public_url().starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age={max_age_s}{secure}"
    ))
    .expect("cookie values are ascii")
}

fn to_login(reason: &str) -> Response {
    html::secure(Redirect::to(&format!("/dashboard/login?m={reason}")).into_response())
}

impl FromRequestParts<AppState> for Dash {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Dash, Response> {
        let sessions = parts
            .extensions
            .get::<Sessions>()
            .cloned()
            .expect("the dashboard routes carry their sessions");
        let Some(token) = cookie(&parts.headers, SESSION_COOKIE) else {
            return Err(to_login("signin"));
        };
        let Some((key_id, csrf)) = sessions.touch(&token) else {
            return Err(to_login("expired"));
        };
        let found = state
            .store
            .read_async(
                move |tx| -> anyhow::Result<Option<(Key, Option<Account>)>> {
                    let Some(key) = keys::get(tx, &key_id)? else {
                        return Ok(None);
                    };
                    let account = crate::accounts::get(tx, &key.account)?;
                    Ok(Some((key, account)))
                },
            )
            .await
            .map_err(|e| ApiError::internal(e).into_response())?;
        match found {
            Some((key, Some(account))) if key.revoked_at.is_none() => Ok(Dash {
                key,
                account,
                csrf,
                token,
                sessions,
            }),
            Some((key, _)) if key.revoked_at.is_some() => {
                sessions.remove_key(&key.id);
                Err(to_login("revoked"))
            }
            _ => {
                sessions.remove(&token);
                Err(to_login("expired"))
            }
        }
    }
}

#[derive(Deserialize)]
pub struct LoginQuery {
    m: Option<String>,
}

/// Messages the sign-in page may show, chosen by a fixed code (nothing
/// from the URL is echoed).
fn login_message(code: &str) -> Option<(&'static str, &'static str)> {
    Some(match code {
        "expired" => ("info", "Your dashboard session ended. Sign in again."),
        "signed_out" => ("ok", "You are signed out."),
        "revoked" => (
            "error",
            "The key of this dashboard session was revoked. Sign in with another key.",
        ),
        "revoked_self" => (
            "ok",
            "The key you were signed in with is revoked, so you are signed out.",
        ),
        _ => return None,
    })
}

/// The sign-in page, with a fresh form token bound to a cookie.
fn login_page(state: &AppState, status: StatusCode, message: Option<(&str, &str)>) -> Response {
    let form_token = crate::ids::random_text(32);
    let msg = message
        .map(|(kind, text)| html::notice(kind, &html::esc(text)))
        .unwrap_or_default();
    let body = format!(
        "<main class=\"login\"><h1>fnhost dashboard</h1>\
         <p>Sign in with an API key (<code>fn_live_…</code> or <code>fn_test_…</code>). The dashboard shows the key's account in \
         the key's mode, with the key's scopes.</p>{msg}\
         <form method=\"post\" action=\"/dashboard/login\" id=\"login-form\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{form_token}\">\
         <label for=\"key\">API key</label>\
         <input type=\"password\" id=\"key\" name=\"key\" autocomplete=\"off\" spellcheck=\"false\" required \
         placeholder=\"fn_live_…\" size=\"48\">\
         <button type=\"submit\" id=\"sign-in\">Sign in</button></form>\
         <p class=\"small\">The key is checked once and not stored: the browser keeps only a session cookie.</p></main>"
    );
    let mut response = html::html(status, html::document("Sign in", &body));
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(state, LOGIN_COOKIE, &form_token, LOGIN_FORM_S),
    );
    response
}

pub async fn login_form(State(state): State<AppState>, Query(q): Query<LoginQuery>) -> Response {
    login_page(
        &state,
        StatusCode::OK,
        q.m.as_deref().and_then(login_message),
    )
}

#[derive(Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    key: String,
    #[serde(default)]
    csrf: String,
}

pub async fn login(
    State(state): State<AppState>,
    axum::Extension(sessions): axum::Extension<Sessions>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    let bound = cookie(&headers, LOGIN_COOKIE).unwrap_or_default();
    let cross_site = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == "cross-site");
    if cross_site
        || form.csrf.is_empty()
        || !bool::from(bound.as_bytes().ct_eq(form.csrf.as_bytes()))
    {
        return login_page(
            &state,
            StatusCode::FORBIDDEN,
            Some((
                "error",
                "The sign-in form expired or was not sent from this page. Try again.",
            )),
        );
    }
    // Validate the key exactly as the API does: run the API's own extractor.
    let secret = form.key.trim();
    let mut request = axum::http::Request::new(());
    if let Ok(v) = HeaderValue::from_str(&format!("Bearer {secret}")) {
        request.headers_mut().insert(header::AUTHORIZATION, v);
    }
    let (mut parts, ()) = request.into_parts();
    let caller = match Caller::from_request_parts(&mut parts, &state).await {
        Ok(c) => c,
        Err(e) => {
            let (status, text) = match &e {
                ApiError::KeyRevoked { .. } => (StatusCode::UNAUTHORIZED, "That API key was revoked. Sign in with another key."),
                ApiError::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "Too many requests with this key. Wait a moment and try again."),
                ApiError::InvalidKey => (
                    StatusCode::UNAUTHORIZED,
                    "That API key is not valid: it is unknown, or not of the form fn_live_… or fn_test_… followed by 32 letters and digits.",
                ),
                _ => (StatusCode::INTERNAL_SERVER_ERROR, "The key could not be checked just now. Try again."),
            };
            if let ApiError::Internal(err) = &e {
                tracing::error!(error = ?err, "dashboard sign-in failed");
            }
            return login_page(&state, status, Some(("error", text)));
        }
    };
    let token = sessions.create(&caller.key.id);
    tracing::info!(key = %caller.key.id, account = %caller.account.id, "dashboard sign-in");
    let mut response = html::secure(Redirect::to("/dashboard/balance").into_response());
    let h = response.headers_mut();
    h.append(
        header::SET_COOKIE,
        set_cookie(&state, SESSION_COOKIE, &token, ABSOLUTE.as_secs()),
    );
    h.append(header::SET_COOKIE, set_cookie(&state, LOGIN_COOKIE, "", 0));
    response
}

#[derive(Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    pub csrf: String,
}

pub async fn logout(
    State(state): State<AppState>,
    dash: Dash,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    if let Err(r) = dash.check_csrf(&headers, &form.csrf) {
        return r;
    }
    dash.sessions.remove(&dash.token);
    let mut response = to_login("signed_out");
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(&state, SESSION_COOKIE, "", 0),
    );
    response
}
