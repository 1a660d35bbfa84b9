//! Reading a fetched page: the extractor plugin, and the renderer for
//! pages only a browser shows (which pages, within the time the run may
//! spend in the browser).

use std::time::Duration;

use crate::accounts::Mode;
use crate::fetch::outcome::PageOutcome;
use crate::fetch::Fetched;
use crate::render::RenderMode;
use crate::wire;

use super::{EventData, PageEnd, Phase, Run};
use crate::plugins::{ExtractRequest, Extraction, Page};

/// Render time spent by one run.
#[derive(Debug, Default)]
pub(super) struct RenderUse {
    pub spent: Duration,
    /// The page being committed was rendered.
    pub this_page: bool,
}

/// What asking for a render gave.
pub(super) enum Render {
    /// The page as the browser shows it.
    Page(Box<Fetched>),
    /// No render: off for this run, or its render time is spent.
    Skipped,
    /// The browser failed or hung: the page ends `fetch_failed`.
    Failed(String),
}

fn is_html(page: &Fetched) -> bool {
    page.content_type
        .as_deref()
        .is_none_or(|c| c.to_ascii_lowercase().contains("html"))
}

impl Run {
    /// How this run renders: never with a test key (its pages are
    /// recordings), else the extraction's choice or the node's.
    pub(super) fn render_mode(&self) -> RenderMode {
        if self.session.mode != Mode::Live || self.state.renderer.is_none() {
            return RenderMode::Off;
        }
        self.session.render.unwrap_or(self.state.render_mode)
    }

    /// Render before extracting: `always`, for HTML pages.
    pub(super) fn renders_first(&self, page: &Fetched) -> bool {
        self.render_mode() == RenderMode::Always && page.status == 200 && is_html(page)
    }

    /// Render a script shell whose plain read gave nothing: `auto`.
    pub(super) fn renders_after(&self, page: &Fetched) -> bool {
        self.render_mode() == RenderMode::Auto && page.status == 200
    }

    /// The extractor plugin's reading of a page; `None` (its event
    /// written) when the plugin failed: nothing is billed.
    pub(super) async fn extract_page(
        &mut self,
        page: &Fetched,
        request: &ExtractRequest,
    ) -> anyhow::Result<Option<Extraction>> {
        let plugin_page = Page {
            url: page.url.clone(),
            status: page.status,
            content_type: page.content_type.clone(),
            body: page.body.clone(),
        };
        match self
            .state
            .plugins
            .extract(plugin_page, request.clone())
            .await
        {
            Ok(x) => Ok(Some(x)),
            Err(e) => {
                let data = wire::PageUnbilled {
                    via: None,
                    ..self.unbilled_data(&page.url, PageOutcome::NotACatalog, &e.to_string())
                };
                self.event(EventData::Unbilled(Phase::ExtractFailed, data))
                    .await?;
                self.last_page = Some(PageEnd {
                    outcome: Some(PageOutcome::NotACatalog),
                    reason: format!("the extractor failed: {e}"),
                    validators: Default::default(),
                });
                Ok(None)
            }
        }
    }

    pub(super) async fn render(&mut self, page: &Fetched) -> Render {
        let Some(renderer) = self.state.renderer.clone() else {
            return Render::Skipped;
        };
        let budget = Duration::from_secs(self.state.config.fetch.render_run_budget_s);
        if self.render_use.spent >= budget {
            return Render::Skipped;
        }
        match renderer.render(page).await {
            Ok(r) => {
                self.render_use.spent += r.elapsed;
                tracing::debug!(
                    url = %page.url, requests = r.requests, refused = r.refused,
                    ms = r.elapsed.as_millis() as u64, "render: page rendered"
                );
                self.state.fetcher.note_rendered(&r.page);
                Render::Page(Box::new(r.page))
            }
            // No browser to be had: the page keeps what its plain read
            // said (`needs_rendering`).
            Err(e @ crate::render::RenderError::Launch(_)) => {
                tracing::warn!("render: {e}");
                self.render_use.spent = budget;
                Render::Skipped
            }
            Err(e) => {
                self.render_use.spent += budget / 10;
                Render::Failed(format!("the page could not be rendered: {e}"))
            }
        }
    }
}
