//! Rendering: pages whose catalog only a browser shows (a script
//! application's empty shell) are run in headless Chromium, driven over
//! the DevTools protocol, and the DOM the scripts built goes to the
//! extractor plugin like any fetched page.
//!
//! - `fetch.render`: `off`, `auto` (render a page whose plain read says it
//!   needs a browser) or `always` (every HTML page of a live run). Unset:
//!   `auto` when a browser is found at start, `off` otherwise.
//! - Everything the page asks for passes the target wall (`wall`).
//! - One browser per node, started on first use, restarted when it dies or
//!   hangs; a bounded number of tabs; every render in a fresh browser
//!   context, closed after it, so nothing survives between renders.
//! - A render reads a catalog: it waits for the network to settle, scrolls
//!   to load lazy content and clicks a "load more" control, each a bounded
//!   number of times.

mod browser;
pub mod wall;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::fetch::{EnableParams, RequestPattern, RequestStage};
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;

use crate::fetch::Fetched;

pub use crate::wire::RenderMode;

/// The renderer's bounds (config `[fetch]`).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Tabs rendering at once on this node.
    pub tabs: usize,
    /// The longest one render may take, everything included.
    pub page_timeout: Duration,
    /// Scrolls to the bottom, to trigger lazy loading.
    pub scrolls: u32,
    /// Clicks on a "load more" control.
    pub clicks: u32,
    /// Quiet time after which the network counts as settled.
    pub settle: Duration,
    /// The JavaScript heap of a tab, in MB.
    pub heap_mb: u32,
}

/// Why a render gave no page.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("the browser could not be started: {0}")]
    Launch(String),
    #[error("the page took longer than {0:?} to render")]
    Timeout(Duration),
    #[error("the browser failed: {0}")]
    Browser(String),
}

/// What a render gave: the page as the browser shows it.
#[derive(Debug)]
pub struct Rendered {
    pub page: Fetched,
    /// Requests the page made that the wall answered from the network.
    pub requests: usize,
    /// Requests the wall refused.
    pub refused: usize,
    pub elapsed: Duration,
}

/// The node's renderer.
pub struct Renderer {
    /// Hosts whose pages gave records only once rendered (for estimates).
    needs_browser: std::sync::Mutex<std::collections::HashSet<String>>,
    browser: browser::Browser,
    tabs: tokio::sync::Semaphore,
    limits: Limits,
    clients: wall::Clients,
}

impl Renderer {
    pub fn new(
        executable: std::path::PathBuf,
        profile_dir: std::path::PathBuf,
        limits: Limits,
        clients: wall::Clients,
    ) -> Renderer {
        Renderer {
            needs_browser: Default::default(),
            browser: browser::Browser::new(executable, profile_dir, limits.heap_mb),
            tabs: tokio::sync::Semaphore::new(limits.tabs.max(1)),
            limits,
            clients,
        }
    }

    /// The browser to use: `configured` when set, else the first of the
    /// usual names on PATH.
    pub fn find_browser(configured: &str) -> Option<std::path::PathBuf> {
        browser::find(configured)
    }

    /// Remember that a host's pages need the browser.
    pub fn remember(&self, url: &str) {
        if let Some(host) = url::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
        {
            self.needs_browser.lock().unwrap().insert(host);
        }
    }

    /// Whether an earlier run found that this host's pages need the browser.
    pub fn known_to_need(&self, host: &str) -> bool {
        let host = host.trim_start_matches("www.");
        self.needs_browser
            .lock()
            .unwrap()
            .iter()
            .any(|h| h.trim_start_matches("www.") == host)
    }

    /// Render a page the fetcher read. A render that fails or hangs kills
    /// the browser (the next render starts a new one).
    pub async fn render(&self, page: &Fetched) -> Result<Rendered, RenderError> {
        let _tab = self
            .tabs
            .acquire()
            .await
            .map_err(|e| RenderError::Browser(e.to_string()))?;
        let started = Instant::now();
        let traffic = Arc::new(wall::Traffic::default());
        let run = self.render_in_tab(page, traffic.clone());
        let result = match tokio::time::timeout(self.limits.page_timeout, run).await {
            Ok(r) => r,
            Err(_) => Err(RenderError::Timeout(self.limits.page_timeout)),
        };
        if result.is_err() {
            self.browser.restart().await;
        }
        let body = result?;
        Ok(Rendered {
            page: Fetched {
                bytes: body.len(),
                sha256: hex::encode(<sha2::Sha256 as sha2::Digest>::digest(body.as_bytes())),
                body,
                content_type: Some("text/html; charset=utf-8".into()),
                ..page.clone()
            },
            requests: traffic.fetched.load(Ordering::SeqCst),
            refused: traffic.refused.load(Ordering::SeqCst),
            elapsed: started.elapsed(),
        })
    }

    async fn render_in_tab(
        &self,
        page: &Fetched,
        traffic: Arc<wall::Traffic>,
    ) -> Result<String, RenderError> {
        let fail = |e: chromiumoxide::error::CdpError| RenderError::Browser(e.to_string());
        let browser = self.browser.get().await?;
        // A context of its own: no cookie or storage outlives the render.
        let context = browser
            .create_browser_context(Default::default())
            .await
            .map_err(fail)?;
        let mut target = CreateTargetParams::new("about:blank");
        target.browser_context_id = Some(context.clone());
        let tab = browser.new_page(target).await.map_err(fail)?;
        let tab = Arc::new(tab);
        let guard = tokio::spawn(wall::guard(
            tab.clone(),
            page.clone(),
            self.clients.clone(),
            traffic.clone(),
        ));
        let read = async {
            let every_request = RequestPattern {
                url_pattern: Some("*".into()),
                request_stage: Some(RequestStage::Request),
                ..Default::default()
            };
            let enable = EnableParams {
                patterns: Some(vec![every_request]),
                ..Default::default()
            };
            tab.execute(enable).await.map_err(fail)?;
            tab.goto(page.url.as_str()).await.map_err(fail)?;
            self.settle(&traffic).await;
            for step in 0..self.limits.scrolls.max(self.limits.clicks) {
                let script = format!(
                    "async function() {{ return ({})({}, {}); }}",
                    include_str!("catalog.js"),
                    step < self.limits.scrolls,
                    step < self.limits.clicks
                );
                let grew: bool = tab
                    .evaluate_function(script)
                    .await
                    .map_err(fail)?
                    .into_value()
                    .unwrap_or(false);
                self.settle(&traffic).await;
                if !grew {
                    break;
                }
            }
            tab.content().await.map_err(fail)
        };
        let html = read.await;
        guard.abort();
        if let Ok(tab) = Arc::try_unwrap(tab) {
            let _ = tab.close().await;
        }
        let _ = browser.dispose_browser_context(context).await;
        html
    }

    /// Wait until the page's requests have been quiet a while; a page that
    /// never stops asking (polling, a live ticker) is read after a fifth
    /// of the render's time.
    async fn settle(&self, traffic: &wall::Traffic) {
        let give_up = Instant::now() + self.limits.page_timeout / 5;
        tokio::time::sleep(Duration::from_millis(50)).await;
        while !traffic.settled(self.limits.settle) && Instant::now() < give_up {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// The node's render mode and renderer, from the configuration: an unset
/// mode is `auto` when a browser is found, `off` otherwise. Logged once.
pub fn from_config(config: &crate::config::Config) -> (RenderMode, Option<Arc<Renderer>>) {
    let f = &config.fetch;
    let found = Renderer::find_browser(&f.browser);
    let mode = match (f.render, &found) {
        (Some(m), _) => m,
        (None, Some(_)) => RenderMode::Auto,
        (None, None) => RenderMode::Off,
    };
    let renderer = match (mode, found) {
        (RenderMode::Off, _) => None,
        (_, None) => {
            tracing::warn!(
                "fetch.render = \"{}\" but no browser was found (set fetch.browser): rendering is off",
                mode.as_str()
            );
            return (RenderMode::Off, None);
        }
        (_, Some(exe)) => {
            let limits = Limits {
                tabs: f.render_tabs,
                page_timeout: Duration::from_secs(f.render_timeout_s.max(1)),
                scrolls: f.render_scrolls,
                clicks: f.render_clicks,
                settle: Duration::from_millis(f.render_settle_ms),
                heap_mb: f.render_heap_mb.max(64),
            };
            let clients = wall::Clients::new(&config.target_policy(), &config.fetch_manners());
            let profile = config.data_dir.join("browser-profile");
            tracing::info!(browser = %exe.display(), mode = mode.as_str(), "render: rendering is on");
            Some(Arc::new(Renderer::new(exe, profile, limits, clients)))
        }
    };
    if renderer.is_none() {
        tracing::info!("render: rendering is off");
    }
    (mode, renderer)
}
