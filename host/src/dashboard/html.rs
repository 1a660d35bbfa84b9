//! HTML building blocks: escaping, documents, notices, money and time
//! text, and the security headers every dashboard response carries. The
//! frame of a signed-in page is in `frame`.
//!
//! Every value that comes from the store goes through `esc` (or `E`) before
//! it reaches a page: record fields, queries, URLs and key names come from
//! customers and from arbitrary web pages.

use std::fmt::{self, Display, Write as _};

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::money::Micros;

/// Text escaped for HTML element content and quoted attribute values.
pub struct E<'a>(pub &'a str);

impl Display for E<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            match c {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                '\'' => f.write_str("&#39;")?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// `s` escaped for HTML.
pub fn esc(s: &str) -> String {
    E(s).to_string()
}

/// A JSON value as escaped text: strings bare, anything else as JSON.
pub fn esc_value(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => esc(s),
        other => esc(&other.to_string()),
    }
}

/// Pretty JSON, escaped, for a `<pre>`.
pub fn esc_json(v: &Value) -> String {
    esc(&serde_json::to_string_pretty(v).unwrap_or_default())
}

/// A link to an outside page, only for http(s) URLs (never `javascript:`
/// or `data:`); anything else is shown as text.
pub fn ext_link(url: &str, text: &str) -> String {
    let lower = url.trim_start().to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        format!(
            "<a href=\"{}\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">{}</a>",
            E(url),
            E(text)
        )
    } else {
        esc(text)
    }
}

/// USD with at least two decimals: `$12.50`, `$0.003`, `-$1.00`.
pub fn usd(m: Micros) -> String {
    let text = m.to_string();
    let (sign, abs) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest.to_string()),
        None => ("", text),
    };
    let abs = match abs.split_once('.') {
        None => format!("{abs}.00"),
        Some((i, f)) if f.len() < 2 => format!("{i}.{f:0<2}"),
        Some(_) => abs,
    };
    format!("{sign}${abs}")
}

/// USD from a JSON amount.
pub fn usd_json(v: &Value) -> String {
    Micros::from_json(v)
        .map(usd)
        .unwrap_or_else(|| esc_value(v))
}

/// A timestamp as `2026-11-21 16:30:05 UTC` (escaped text as-is when it does not parse).
pub fn when(t: &str) -> String {
    match crate::time::parse(t) {
        Some(t) => t.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        None => esc(t),
    }
}

pub fn when_opt(t: Option<&str>) -> String {
    t.map(when).unwrap_or_else(|| "—".into())
}

/// A status pill.
pub fn pill(text: &str) -> String {
    let class = match text {
        "running" => "run",
        "answered" | "active" | "ok" | "enabled" | "yes" => "good",
        "abstained" | "stopped" | "disabled" | "revoked" | "dropped" | "no" => "muted",
        "error" | "failed" | "dead-lettered" => "bad",
        _ => "muted",
    };
    format!("<span class=\"pill {class}\">{}</span>", E(text))
}

/// The headers of every dashboard response: no caching, no framing, no
/// outside resources, no inline scripts.
pub fn secure(mut response: Response) -> Response {
    let h = response.headers_mut();
    let set = |h: &mut axum::http::HeaderMap, name: &'static str, value: &'static str| {
        h.insert(name, HeaderValue::from_static(value));
    };
    set(h, "cache-control", "no-store");
    set(
        h,
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; \
         form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    set(h, "x-frame-options", "DENY");
    set(h, "x-content-type-options", "nosniff");
    set(h, "referrer-policy", "no-referrer");
    response
}

/// A whole HTML document.
pub fn document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · fnhost dashboard</title><link rel=\"icon\" href=\"data:,\">\
         <link rel=\"stylesheet\" href=\"/dashboard/assets/style.css\">\
         <script src=\"/dashboard/assets/app.js\" defer></script></head><body>{body}</body></html>",
        E(title)
    )
}

/// An HTML response with the security headers.
pub fn html(status: StatusCode, doc: String) -> Response {
    secure(
        (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            doc,
        )
            .into_response(),
    )
}

/// A notice on a page: `kind` is `info`, `ok` or `error`.
pub fn notice(kind: &str, text_html: &str) -> String {
    let role = if kind == "error" { "alert" } else { "status" };
    format!("<p class=\"notice {kind}\" role=\"{role}\">{text_html}</p>")
}

/// What a page shows when the key lacks the scope to read it.
pub fn missing_scope(scope: crate::wire::KeyScope) -> String {
    notice(
        "error",
        &format!(
            "This key lacks the <code>{}</code> scope, so this page cannot be shown. Sign in with a key that has it.",
            E(scope.as_str())
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_markup_character() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(esc_value(&serde_json::json!("<b>")), "&lt;b&gt;");
        assert_eq!(
            esc_value(&serde_json::json!({"a": "<i>"})),
            "{&quot;a&quot;:&quot;&lt;i&gt;&quot;}"
        );
    }

    #[test]
    fn links_only_http_urls() {
        assert!(ext_link("https://shop.example/p?a=1&b=\"2\"", "x")
            .contains("href=\"https://shop.example/p?a=1&amp;b=&quot;2&quot;\""));
        assert_eq!(ext_link("javascript:alert(1)", "x<"), "x&lt;");
        assert_eq!(ext_link(" JaVaScRiPt:alert(1)", "x"), "x");
        assert_eq!(ext_link("data:text/html,<b>", "d"), "d");
    }

    #[test]
    fn money_has_two_decimals_at_least() {
        assert_eq!(usd(Micros(12_500_000)), "$12.50");
        assert_eq!(usd(Micros(3_000_000)), "$3.00");
        assert_eq!(usd(Micros(3_000)), "$0.003");
        assert_eq!(usd(Micros(-1_000_000)), "-$1.00");
        assert_eq!(usd(Micros(0)), "$0.00");
    }
}
