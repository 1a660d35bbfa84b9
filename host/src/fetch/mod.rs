//! Page fetches: the host's own capability (plugins have none). Every fetch
//! passes the target wall (`targets`), with a size and a time limit, waits
//! its turn at the host (`politeness`), is retried as Retry-After and
//! back-off allow, and ends in one page outcome (`outcome`).

pub mod decode;
pub mod outcome;
pub mod politeness;
pub mod robots;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use sha2::{Digest, Sha256};
use url::Url;

use crate::targets::{Policy, Purpose};

/// A fetched page.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The final URL after redirects.
    pub url: String,
    pub status: u16,
    pub content_type: Option<String>,
    /// Response headers, names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Bytes read from the wire (at most the size limit).
    pub bytes: usize,
    /// Hex SHA-256 of the bytes read.
    pub sha256: String,
    pub fetched_at: String,
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(transparent)]
    Refused(#[from] crate::targets::Refused),
    #[error("fetch failed: {0}")]
    Failed(String),
    #[error("the page is larger than {0} bytes")]
    TooLarge(usize),
}

impl Fetched {
    /// A response header's value (`name` in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// What a later conditional request of the page sends.
    pub fn validators(&self) -> Validators {
        Validators {
            etag: self.header("etag").map(str::to_string),
            last_modified: self.header("last-modified").map(str::to_string),
        }
    }
}

/// A page's validators, for a conditional request (`If-None-Match`,
/// `If-Modified-Since`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Validators {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl Validators {
    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}

/// How the fetcher treats the sites it reads (config `[fetch]`).
#[derive(Debug, Clone)]
pub struct Manners {
    pub timeout: Duration,
    pub max_bytes: usize,
    pub user_agent: String,
    /// Requests in flight to one host, across every run of the node.
    pub per_host: usize,
    /// Least time between the starts of two requests to one host.
    pub interval: Duration,
    /// Retries of a 429/503 (as Retry-After allows) or another 5xx.
    pub retries: u32,
    /// The longest Retry-After waited; a longer one ends the page `rate_limited`.
    pub retry_after_max: Duration,
    /// The first back-off on a 5xx; it doubles, plus jitter.
    pub backoff: Duration,
    /// How long a site's robots.txt is kept.
    pub robots_ttl: Duration,
    /// Hosts whose robots.txt is not applied (the operator's own sites).
    pub robots_exempt: Vec<String>,
}

type RobotsSlot = Arc<tokio::sync::Mutex<Option<(Instant, robots::Robots)>>>;

/// Fetches pages for live runs.
#[derive(Clone)]
pub struct Fetcher {
    policy: Policy,
    client: reqwest::Client,
    manners: Arc<Manners>,
    gates: Arc<politeness::HostGates>,
    /// robots.txt by site (scheme, host, port), with when it was read; one
    /// reader per site at a time, so concurrent runs read it once.
    robots: Arc<Mutex<HashMap<String, RobotsSlot>>>,
    /// When set, every page fetched is also kept here (`fnhost record`).
    recorder: Option<std::sync::Arc<std::sync::Mutex<Vec<Fetched>>>>,
}

impl Fetcher {
    pub fn new(policy: Policy, manners: Manners) -> Fetcher {
        let client = policy.client(manners.timeout, &[], &manners.user_agent);
        Fetcher {
            policy,
            client,
            gates: Arc::new(politeness::HostGates::new(
                manners.per_host,
                manners.interval,
            )),
            manners: Arc::new(manners),
            robots: Arc::default(),
            recorder: None,
        }
    }

    /// Keep a copy of every page fetched.
    pub fn recording(mut self, into: std::sync::Arc<std::sync::Mutex<Vec<Fetched>>>) -> Fetcher {
        self.recorder = Some(into);
        self
    }

    /// A page as the browser rendered it replaces the plain copy in the
    /// recording (`fnhost record` keeps what the extractor read).
    pub fn note_rendered(&self, page: &Fetched) {
        if let Some(recorder) = &self.recorder {
            let mut pages = recorder.lock().expect("recorder lock");
            match pages.iter_mut().rev().find(|p| p.url == page.url) {
                Some(p) => *p = page.clone(),
                None => pages.push(page.clone()),
            }
        }
    }

    /// Fetch one page. Refused targets never see a connection attempt.
    pub async fn fetch(&self, url: &str) -> Result<Fetched, FetchError> {
        self.fetch_if_changed(url, &Validators::default()).await
    }

    /// Fetch one page, conditionally when `since` holds validators (a 304
    /// comes back as such). A 429 or 503 is retried after its Retry-After
    /// (up to the cap), another 5xx after an exponential back-off with
    /// jitter; each attempt waits its turn at the host.
    pub async fn fetch_if_changed(
        &self,
        url: &str,
        since: &Validators,
    ) -> Result<Fetched, FetchError> {
        let parsed =
            Url::parse(url).map_err(|e| FetchError::Failed(format!("bad URL {url}: {e}")))?;
        self.policy.check_url(&parsed, Purpose::Page)?;
        let mut attempt = 0;
        loop {
            let fetched = self.follow(&parsed, since).await?;
            let Some(wait) = self.retry_after(&fetched, attempt) else {
                if let Some(recorder) = &self.recorder {
                    recorder
                        .lock()
                        .expect("recorder lock")
                        .push(fetched.clone());
                }
                return Ok(fetched);
            };
            tracing::debug!(url, status = fetched.status, ?wait, "retrying a page");
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// How long to wait before trying a page again, if it is to be tried
    /// again: never for a block (a challenge is not a busy server).
    fn retry_after(&self, page: &Fetched, attempt: u32) -> Option<Duration> {
        let m = &self.manners;
        if attempt >= m.retries || !(page.status == 429 || page.status >= 500) {
            return None;
        }
        if outcome::of_response(&page.url, page)
            .is_some_and(|v| v.outcome == outcome::PageOutcome::Blocked)
        {
            return None;
        }
        if let Some(asked) = page.header("retry-after").and_then(retry_after_secs) {
            let asked = Duration::from_secs(asked);
            return (asked <= m.retry_after_max).then_some(asked);
        }
        if page.status == 501 || page.status == 505 {
            return None;
        }
        let base = m.backoff.saturating_mul(1 << attempt.min(8));
        let jitter = m.backoff.mul_f64(rand::random::<f64>());
        Some(base + jitter)
    }

    /// One request and the redirects it answers with (at most
    /// [`MAX_REDIRECTS`]): every hop is checked against the target wall
    /// again and waits its turn at its own host, as a first request does.
    async fn follow(&self, start: &Url, since: &Validators) -> Result<Fetched, FetchError> {
        let mut url = start.clone();
        let mut hops = 0;
        loop {
            let permit = self.gates.enter(&host_key(&url)).await;
            // Validators belong to the page asked for, not to a hop.
            let conditional = if hops == 0 {
                since
            } else {
                &Validators::default()
            };
            let fetched = self.once(&url, conditional).await;
            drop(permit);
            let fetched = fetched?;
            let next = match fetched.status {
                301 | 302 | 303 | 307 | 308 => fetched
                    .header("location")
                    .and_then(|to| url.join(to.trim()).ok()),
                _ => None,
            };
            let Some(next) = next else {
                return Ok(fetched);
            };
            if hops == MAX_REDIRECTS {
                return Err(FetchError::Failed(format!(
                    "too many redirects (more than {MAX_REDIRECTS}) from {start}"
                )));
            }
            self.policy.check_url(&next, Purpose::Page)?;
            url = next;
            hops += 1;
        }
    }

    async fn once(&self, parsed: &Url, since: &Validators) -> Result<Fetched, FetchError> {
        let max_bytes = self.manners.max_bytes;
        let mut request = self.client.get(parsed.clone());
        if let Some(etag) = &since.etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        if let Some(date) = &since.last_modified {
            request = request.header(reqwest::header::IF_MODIFIED_SINCE, date);
        }
        let response = request
            .send()
            .await
            .map_err(|e| FetchError::Failed(describe(&e)))?;
        let final_url = response.url().to_string();
        let response_host = response.url().host_str().map(str::to_string);
        let status = response.status().as_u16();
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .take(100)
            .filter_map(|(n, v)| Some((n.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if response
            .content_length()
            .is_some_and(|n| n as usize > max_bytes)
        {
            return Err(FetchError::TooLarge(max_bytes));
        }
        let mut body = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| FetchError::Failed(describe(&e)))?;
            if body.len() + chunk.len() > max_bytes {
                return Err(FetchError::TooLarge(max_bytes));
            }
            body.extend_from_slice(&chunk);
        }
        let host = response_host;
        let size = body.len();
        let sha256 = hex::encode(Sha256::digest(&body));
        let text = decode::decode_at(body, content_type.as_deref(), host.as_deref());
        Ok(Fetched {
            url: final_url,
            status,
            content_type,
            headers,
            bytes: size,
            sha256,
            body: text,
            fetched_at: crate::time::now(),
        })
    }

    /// A site's robots.txt, read once per `robots_ttl` for every run of the
    /// node (missing or unreadable: everything allowed; an exempt host:
    /// nothing applied).
    pub async fn robots(&self, site: &Url) -> robots::Robots {
        let Some(host) = site.host_str() else {
            return robots::Robots::default();
        };
        if self
            .manners
            .robots_exempt
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host))
        {
            return robots::Robots::default();
        }
        let key = site.origin().ascii_serialization();
        let slot = {
            let mut cache = self.robots.lock().expect("robots lock");
            if cache.len() > 10_000 {
                cache.clear();
            }
            cache.entry(key).or_default().clone()
        };
        let mut kept = slot.lock().await;
        if let Some((at, r)) = kept.as_ref() {
            if at.elapsed() < self.manners.robots_ttl {
                return r.clone();
            }
        }
        let Ok(robots_url) = site.join("/robots.txt") else {
            return robots::Robots::default();
        };
        let r = match self.fetch(robots_url.as_str()).await {
            Ok(page) if page.status == 200 => robots::Robots::parse(&page.body),
            _ => robots::Robots::default(),
        };
        *kept = Some((Instant::now(), r.clone()));
        r
    }
}

/// Retry-After in seconds: a number, or an HTTP date.
fn retry_after_secs(value: &str) -> Option<u64> {
    let value = value.trim();
    if let Ok(n) = value.parse::<u64>() {
        return Some(n);
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let secs = (at.timestamp() - chrono::Utc::now().timestamp()).max(0);
    Some(secs as u64)
}

/// The redirects a page may take to its content.
const MAX_REDIRECTS: usize = 5;

/// The key of a URL's host for the politeness gates: host and port.
fn host_key(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// reqwest's error with its causes (where a refusal by the resolver shows).
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// A page served by a recording, in the same shape.
pub fn from_replay(page: crate::plugins::Page) -> Fetched {
    Fetched {
        bytes: page.body.len(),
        sha256: hex::encode(Sha256::digest(page.body.as_bytes())),
        url: page.url,
        status: page.status,
        content_type: page.content_type,
        headers: Vec::new(),
        body: page.body,
        fetched_at: crate::time::now(),
    }
}
