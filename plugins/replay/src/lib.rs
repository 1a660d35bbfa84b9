//! The replay source: serves recorded pages for `fn_test_` keys, with no
//! network.
//!
//! Two kinds of recordings are embedded at build time (see `build.rs`):
//!
//! * the fixture sites under `fixtures/sites/<domain>/<path>`, served as
//!   `https://<domain>/<path>` (a directory URL serves its `index.html`; a
//!   file named `index@page=2.html` serves the URL `.../?page=2`);
//! * the recording files `recordings/*.json` of this crate (the format is
//!   described in `README.md` and by [`Recording`]).
//!
//! * the generated catalog `big-catalog.example` (see [`generated`]).
//!
//! Recording files are consulted before fixture sites, so a recording can
//! replace a fixture page. URL matching ignores the fragment, the scheme
//! (`http` and `https` are the same), the case of the host, a default port
//! and a trailing slash of the path; the query string must match exactly.

#[cfg(target_arch = "wasm32")]
mod component;

pub mod generated;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// A recorded page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedPage {
    /// The page's final URL.
    pub url: String,
    /// The HTTP status code it was served with.
    pub status: u16,
    /// The Content-Type header, if there was one.
    #[serde(default)]
    pub content_type: Option<String>,
    /// The body as UTF-8 text.
    pub body: String,
}

/// A recording file: a named set of pages captured at one time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recording {
    /// A short name for the recording (for example the query it was made for).
    pub name: String,
    /// When the pages were fetched (RFC 3339).
    #[serde(default)]
    pub recorded_at: Option<String>,
    /// The pages, in the order they were fetched.
    pub pages: Vec<RecordedPage>,
}

/// Parse a recording file's text.
pub fn parse_recording(text: &str) -> Result<Recording, String> {
    serde_json::from_str(text).map_err(|e| format!("invalid recording: {e}"))
}

/// The recorded page for a URL, or `None` when nothing was recorded for it.
pub fn fetch(url: &str) -> Option<RecordedPage> {
    let key = UrlKey::parse(url)?;
    for page in recorded_pages() {
        if UrlKey::parse(&page.url).as_ref() == Some(&key) {
            return Some(page.clone());
        }
    }
    if key.host == generated::DOMAIN {
        return generated::page(&key.path, key.query.as_deref());
    }
    fixture_lookup(&key)
}

/// The domains of the embedded fixture sites, sorted.
pub fn fixture_domains() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = embedded::SITE_FILES.iter().map(|(d, _, _)| *d).collect();
    v.dedup();
    v
}

/// The names of the embedded recording files, in file-name order.
pub fn recording_names() -> Vec<&'static str> {
    embedded::RECORDINGS.iter().map(|(n, _)| *n).collect()
}

/// A fixture site's page as a server at `origin` (for example
/// `http://127.0.0.1:40123`) would serve it: `path_and_query` is the request
/// target (`/tents/?page=2`), and every absolute `https://<domain>` URL in the
/// body (the `Sitemap:` line of robots.txt, the sitemap's `<loc>` entries) is
/// rewritten to `origin`. For tests that serve the fixture sites on loopback.
pub fn serve_fixture(domain: &str, path_and_query: &str, origin: &str) -> Option<RecordedPage> {
    let path = if path_and_query.starts_with('/') {
        path_and_query.to_string()
    } else {
        format!("/{path_and_query}")
    };
    let key = UrlKey::parse(&format!("https://{domain}{path}"))?;
    let mut page = fixture_lookup(&key)?;
    let origin = origin.trim_end_matches('/');
    page.body = page
        .body
        .replace(&format!("https://{domain}"), origin)
        .replace(&format!("http://{domain}"), origin);
    page.url = format!("{origin}{}", &page.url[format!("https://{domain}").len()..]);
    Some(page)
}

fn recorded_pages() -> &'static [RecordedPage] {
    static PAGES: OnceLock<Vec<RecordedPage>> = OnceLock::new();
    PAGES.get_or_init(|| {
        let mut pages = Vec::new();
        for (_, text) in embedded::RECORDINGS {
            // build.rs has already checked every recording; a file that still
            // fails to parse is skipped rather than taking the source down.
            if let Ok(rec) = parse_recording(text) {
                pages.extend(rec.pages);
            }
        }
        pages
    })
}

/// The content type a fixture file is served with, from its extension.
pub fn content_type_for(path: &str) -> &'static str {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "xml" => "application/xml",
        "txt" => "text/plain; charset=utf-8",
        "json" => "application/json",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn fixture_lookup(key: &UrlKey) -> Option<RecordedPage> {
    for (domain, rel, body) in embedded::SITE_FILES {
        if *domain != key.host {
            continue;
        }
        let file = FixtureFile::new(rel);
        if file.query != key.query {
            continue;
        }
        let matches = file.path.trim_end_matches('/') == key.path
            || file
                .dir_path
                .as_deref()
                .is_some_and(|d| d.trim_end_matches('/') == key.path);
        if matches {
            let shown = file.dir_path.as_deref().unwrap_or(&file.path);
            let url = match &file.query {
                Some(q) => format!("https://{domain}{shown}?{q}"),
                None => format!("https://{domain}{shown}"),
            };
            return Some(RecordedPage {
                url,
                status: 200,
                content_type: Some(content_type_for(rel).to_string()),
                body: body.to_string(),
            });
        }
    }
    None
}

/// How a fixture file maps to URL paths.
struct FixtureFile {
    /// The file's own path, e.g. `/tents/index.html`.
    path: String,
    /// For an `index.html`, its directory path, e.g. `/tents/` (or `/`).
    dir_path: Option<String>,
    /// The query string encoded in the file name after `@`, if any.
    query: Option<String>,
}

impl FixtureFile {
    fn new(rel: &str) -> Self {
        let (dir, name) = match rel.rsplit_once('/') {
            Some((d, n)) => (format!("/{d}/"), n),
            None => ("/".to_string(), rel),
        };
        let (stem, ext) = match name.rsplit_once('.') {
            Some((s, e)) => (s, format!(".{e}")),
            None => (name, String::new()),
        };
        let (stem, query) = match stem.split_once('@') {
            Some((s, q)) => (s, Some(q.to_string())),
            None => (stem, None),
        };
        let file_name = format!("{stem}{ext}");
        let dir_path = (file_name == "index.html").then(|| dir.clone());
        FixtureFile {
            path: format!("{dir}{file_name}"),
            dir_path,
            query,
        }
    }
}

/// The parts of a URL that matching compares.
#[derive(Debug, PartialEq, Eq)]
struct UrlKey {
    host: String,
    /// The path without a trailing slash (the root is the empty string).
    path: String,
    query: Option<String>,
}

impl UrlKey {
    fn parse(url: &str) -> Option<UrlKey> {
        let url = url.trim();
        let url = url.split('#').next().unwrap_or("");
        let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
        let (rest, default_port) = if lower.starts_with("https://") {
            (&url[8..], ":443")
        } else if lower.starts_with("http://") {
            (&url[7..], ":80")
        } else {
            return None;
        };
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..end];
        let after = &rest[end..];
        let host = authority
            .rsplit_once('@')
            .map(|(_, h)| h)
            .unwrap_or(authority)
            .to_ascii_lowercase();
        let host = host
            .strip_suffix(default_port)
            .map(str::to_string)
            .unwrap_or(host);
        let host = host.trim_end_matches('.').to_string();
        if host.is_empty() {
            return None;
        }
        let (path, query) = match after.split_once('?') {
            Some((p, q)) => (
                p,
                if q.is_empty() {
                    None
                } else {
                    Some(q.to_string())
                },
            ),
            None => (after, None),
        };
        Some(UrlKey {
            host,
            path: path.trim_end_matches('/').to_string(),
            query,
        })
    }
}

#[cfg(test)]
mod tests;
