//! The frame of a signed-in dashboard page (header, test-mode banner,
//! navigation) and the pages that refuse a request. Kept apart from `html`
//! so that signing in (`auth`) needs only the building blocks.

use std::fmt::Write as _;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use subtle::ConstantTimeEq;

use super::auth::Dash;
use super::html::{document, html, notice, E};

/// Which item of the navigation is current.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Balance,
    Sessions,
    Extractions,
    Monitors,
    Keys,
    Webhooks,
    Secret,
    None,
}

const NAV: &[(Nav, &str, &str)] = &[
    (Nav::Balance, "/dashboard/balance", "Balance"),
    (Nav::Sessions, "/dashboard/sessions", "Sessions"),
    (Nav::Extractions, "/dashboard/extractions", "Extractions"),
    (Nav::Monitors, "/dashboard/monitors", "Monitors"),
    (Nav::Keys, "/dashboard/keys", "Keys"),
    (Nav::Webhooks, "/dashboard/webhooks", "Webhooks"),
    (Nav::Secret, "/dashboard/webhook-secret", "Webhook secret"),
];

/// A page of a signed-in customer: the header (account, key, mode, sign
/// out), the test-mode banner, the navigation and `main`.
pub fn page(dash: &Dash, nav: Nav, title: &str, main: &str) -> Response {
    page_with_status(dash, nav, title, main, StatusCode::OK)
}

pub fn page_with_status(
    dash: &Dash,
    nav: Nav,
    title: &str,
    main: &str,
    status: StatusCode,
) -> Response {
    let mut links = String::new();
    for (item, href, label) in NAV {
        let current = if *item == nav {
            " aria-current=\"page\" class=\"current\""
        } else {
            ""
        };
        let _ = write!(links, "<a href=\"{href}\"{current}>{label}</a>");
    }
    let mode = if dash.key.mode.livemode() {
        "<span class=\"mode live\" data-mode=\"live\">LIVE</span>".to_string()
    } else {
        "<span class=\"mode test\" data-mode=\"test\">TEST</span>".to_string()
    };
    let banner = if dash.key.mode.livemode() {
        String::new()
    } else {
        "<div class=\"test-banner\" role=\"status\" id=\"test-mode-banner\"><strong>TEST MODE</strong> — signed in with a \
         <code>fn_test_</code> key: you see test sessions, the test balance and test keys only. Live data is not shown.</div>"
            .to_string()
    };
    let read_only = if dash.read_only() {
        "<span class=\"pill muted\" id=\"read-only\" title=\"This key has no write scopes\">read-only</span>"
    } else {
        ""
    };
    let body = format!(
        "<header class=\"top\"><div class=\"brand\"><a href=\"/dashboard\">fnhost</a> {mode}</div>\
         <div class=\"who\"><span class=\"account\">{account}</span> · key <span class=\"keyname\">{keyname}</span> \
         <code>{prefix}…</code> {read_only}\
         <form method=\"post\" action=\"/dashboard/logout\" class=\"inline\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
         <button type=\"submit\" class=\"link\" id=\"sign-out\">Sign out</button></form></div></header>\
         {banner}<nav class=\"tabs\">{links}</nav><main><h1>{title}</h1>{main}</main>\
         <footer>fnhost · account <code>{account_id}</code> · {mode_text} mode</footer>",
        account = E(&dash.account.name),
        keyname = E(&dash.key.name),
        prefix = E(&dash.key.prefix),
        csrf = E(&dash.csrf),
        title = E(title),
        account_id = E(&dash.account.id),
        mode_text = dash.key.mode.as_str(),
    );
    html(status, document(title, &body))
}

/// The hidden CSRF member of every form.
pub fn csrf_field(dash: &Dash) -> String {
    format!(
        "<input type=\"hidden\" name=\"csrf\" value=\"{}\">",
        E(&dash.csrf)
    )
}

impl Dash {
    /// Refuse a POST whose form does not carry this session's CSRF token,
    /// or that a browser marks as sent from another site.
    pub fn check_csrf(&self, headers: &HeaderMap, sent: &str) -> Result<(), Response> {
        let cross_site = headers
            .get("sec-fetch-site")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v == "cross-site");
        let same = !sent.is_empty() && bool::from(sent.as_bytes().ct_eq(self.csrf.as_bytes()));
        if same && !cross_site {
            return Ok(());
        }
        Err(page_with_status(
            self,
            Nav::None,
            "Request refused",
            &notice(
                "error",
                "This form was refused: its security token (CSRF) is missing or stale, or it was sent from another site. \
                 Nothing was changed. Reload the page and try again.",
            ),
            StatusCode::FORBIDDEN,
        ))
    }

    /// Refuse an action the key has no scope for, with a page that says so.
    pub fn require(&self, scope: crate::wire::KeyScope, action: &str) -> Result<(), Response> {
        if self.can(scope) {
            return Ok(());
        }
        Err(page_with_status(
            self,
            Nav::None,
            "Not allowed",
            &notice(
                "error",
                &format!(
                    "This key is read-only here: it lacks the <code>{}</code> scope, so it cannot {}. Nothing was changed. \
                     Sign in with a key that has the scope.",
                    E(scope.as_str()),
                    E(action)
                ),
            ),
            StatusCode::FORBIDDEN,
        ))
    }
}
