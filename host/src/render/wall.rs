//! The target wall for everything a rendered page asks for. The browser
//! opens no connection of its own: every request it makes is paused over
//! the DevTools protocol and either answered by the host — which fetches
//! it through the same checked client as the fetcher — or failed.
//!
//! - The page's document is answered with the body the fetcher already
//!   read (no second request to the site).
//! - A request to the page's own origin passes the fetcher's policy (the
//!   fetcher admitted that origin); any other target must be a public
//!   address, whatever the development flag says, so a page's scripts
//!   never reach loopback, private ranges or metadata addresses.
//! - Only http(s) GET, HEAD and POST; a bounded number of requests and
//!   bytes per render.
//!
//! What the protocol cannot pause (WebSockets, WebRTC, requests of
//! out-of-process frames and workers) meets the browser's own settings
//! (`browser::ARGS`): every name resolves to nothing and every connection
//! goes to a proxy that does not exist.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use base64::Engine as _;
use chromiumoxide::cdp::browser_protocol::fetch::{
    EventRequestPaused, FailRequestParams, FulfillRequestParams, HeaderEntry,
};
use chromiumoxide::cdp::browser_protocol::network::ErrorReason;
use chromiumoxide::Page;
use futures::StreamExt;
use url::Url;

use crate::fetch::Fetched;
use crate::targets::{Policy, Purpose};

/// What the wall saw during one render.
#[derive(Debug, Default)]
pub struct Traffic {
    /// Requests in flight (paused and not yet answered).
    pub in_flight: AtomicUsize,
    /// Requests answered from the network.
    pub fetched: AtomicUsize,
    /// Requests refused (wall, method, scheme or bound).
    pub refused: AtomicUsize,
    /// Bytes answered from the network.
    pub bytes: AtomicUsize,
    /// When the last request started or ended.
    pub last_activity: Mutex<Option<Instant>>,
}

impl Traffic {
    fn touch(&self) {
        *self.last_activity.lock().unwrap() = Some(Instant::now());
    }

    /// Quiet: nothing in flight for `quiet`.
    pub fn settled(&self, quiet: std::time::Duration) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0
            && self
                .last_activity
                .lock()
                .unwrap()
                .is_none_or(|t| t.elapsed() >= quiet)
    }
}

/// The clients the wall fetches with.
#[derive(Clone)]
pub struct Clients {
    /// The fetcher's policy: for the page's own origin.
    pub own: (Policy, reqwest::Client),
    /// Public addresses only: for every other target.
    pub public: (Policy, reqwest::Client),
    pub max_requests: usize,
    pub max_bytes: usize,
}

impl Clients {
    pub fn new(policy: &Policy, manners: &crate::fetch::Manners) -> Clients {
        let strict = Policy {
            allow_private: false,
            ..policy.clone()
        };
        let client = |p: &Policy| p.render_client(manners.timeout, &manners.user_agent);
        Clients {
            own: (policy.clone(), client(policy)),
            public: (strict.clone(), client(&strict)),
            max_requests: 300,
            max_bytes: manners.max_bytes * 4,
        }
    }
}

/// Answers every paused request of `page` until the page goes away.
pub async fn guard(page: Arc<Page>, document: Fetched, clients: Clients, traffic: Arc<Traffic>) {
    let Ok(mut paused) = page.event_listener::<EventRequestPaused>().await else {
        return;
    };
    let origin = Url::parse(&document.url).ok().map(|u| u.origin());
    let served_document = Arc::new(std::sync::atomic::AtomicBool::new(false));
    while let Some(event) = paused.next().await {
        traffic.in_flight.fetch_add(1, Ordering::SeqCst);
        traffic.touch();
        let (page, clients, traffic, document, origin, served) = (
            page.clone(),
            clients.clone(),
            traffic.clone(),
            document.clone(),
            origin.clone(),
            served_document.clone(),
        );
        tokio::spawn(async move {
            let answer = answer(&event, &document, origin, &clients, &traffic, &served).await;
            let id = event.request_id.clone();
            let sent = match answer {
                Some(r) => {
                    let mut p = FulfillRequestParams::new(id, r.status as i64);
                    p.response_headers = Some(r.headers);
                    p.body = Some(
                        base64::engine::general_purpose::STANDARD
                            .encode(&r.body)
                            .into(),
                    );
                    page.execute(p).await.map(|_| ())
                }
                None => {
                    traffic.refused.fetch_add(1, Ordering::SeqCst);
                    page.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient))
                        .await
                        .map(|_| ())
                }
            };
            if let Err(e) = sent {
                tracing::debug!("render: answering a paused request failed: {e}");
            }
            traffic.in_flight.fetch_sub(1, Ordering::SeqCst);
            traffic.touch();
        });
    }
}

struct Answer {
    status: u16,
    headers: Vec<HeaderEntry>,
    body: Vec<u8>,
}

/// The answer to one paused request, or `None` to fail it.
async fn answer(
    event: &EventRequestPaused,
    document: &Fetched,
    origin: Option<url::Origin>,
    clients: &Clients,
    traffic: &Traffic,
    served_document: &std::sync::atomic::AtomicBool,
) -> Option<Answer> {
    let request = &event.request;
    let url = Url::parse(&request.url).ok()?;
    // The document itself: what the fetcher read.
    if request.url == document.url && !served_document.swap(true, Ordering::SeqCst) {
        let content_type = document
            .content_type
            .clone()
            .unwrap_or_else(|| "text/html".into());
        return Some(Answer {
            status: 200,
            headers: vec![HeaderEntry::new("content-type", content_type)],
            body: document.body.clone().into_bytes(),
        });
    }
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let method = match request.method.as_str() {
        "GET" => reqwest::Method::GET,
        "HEAD" => reqwest::Method::HEAD,
        "POST" => reqwest::Method::POST,
        _ => return None,
    };
    if traffic.fetched.load(Ordering::SeqCst) >= clients.max_requests
        || traffic.bytes.load(Ordering::SeqCst) >= clients.max_bytes
    {
        return None;
    }
    let (policy, client) = if origin.as_ref() == Some(&url.origin()) {
        &clients.own
    } else {
        &clients.public
    };
    if let Err(e) = policy.check_url(&url, Purpose::Page) {
        tracing::debug!("render: {e}: {url}");
        return None;
    }
    let mut rb = client.request(method, url.clone());
    if let Some(headers) = request.headers.inner().as_object() {
        for (name, value) in headers {
            let lower = name.to_ascii_lowercase();
            // The client sets its own User-Agent, Host and framing.
            if matches!(
                lower.as_str(),
                "user-agent" | "host" | "content-length" | "connection" | "cookie"
            ) {
                continue;
            }
            if let Some(v) = value.as_str() {
                rb = rb.header(name.as_str(), v);
            }
        }
    }
    if let Some(entries) = &request.post_data_entries {
        let mut body = Vec::new();
        for e in entries {
            if let Some(b) = &e.bytes {
                let s: &str = b.as_ref();
                body.extend(
                    base64::engine::general_purpose::STANDARD
                        .decode(s)
                        .unwrap_or_default(),
                );
            }
        }
        rb = rb.body(body);
    }
    let response = match rb.send().await {
        Ok(r) => r,
        Err(e) => {
            tracing::debug!("render: {url}: {e}");
            return None;
        }
    };
    let status = response.status().as_u16();
    let headers: Vec<HeaderEntry> = response
        .headers()
        .iter()
        .filter(|(n, _)| {
            // The body is handed over whole and decoded.
            !matches!(
                n.as_str(),
                "content-encoding" | "content-length" | "transfer-encoding" | "set-cookie"
            )
        })
        .filter_map(|(n, v)| Some(HeaderEntry::new(n.as_str(), v.to_str().ok()?)))
        .collect();
    let room = clients
        .max_bytes
        .saturating_sub(traffic.bytes.load(Ordering::SeqCst));
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.ok()?;
        if body.len() + chunk.len() > room {
            return None;
        }
        body.extend_from_slice(&chunk);
    }
    traffic.fetched.fetch_add(1, Ordering::SeqCst);
    traffic.bytes.fetch_add(body.len(), Ordering::SeqCst);
    Some(Answer {
        status,
        headers,
        body,
    })
}
