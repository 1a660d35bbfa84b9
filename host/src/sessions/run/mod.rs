//! One turn's run: planner → sources → fetch (or replay) → extractor →
//! rows checked against the constraints → a signed receipt per source →
//! the terminal event, where only the receipts settle and the rest of the
//! reservation is released.
//!
//! Every page's effects (receipt, rows, events, counters) commit in one
//! transaction, so a crash leaves either all or none of them; the next
//! start ends orphaned runs (`recover_orphans`) and settles exactly the
//! receipts that were committed.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::watch;
use url::Url;

use super::constraints::{self, Check};
use super::events::{EventData, Phase};
use super::intent::{Intent, Source};
use super::lifecycle::{finish_own, Outcome, StreamCode};
use super::progress::{row_key, Effect, PageCommit, Progress, RowWrite};
use super::reading::{related_links, stated_total, Reading};
use super::runs::RunClaim;
use super::sources::{normalize, path_names, sitemap_urls, Frontier, Priority, Robots};
use super::testmode::{self, Sentinel};
use super::StopReason;
use super::{Kind, Session};
use crate::accounts::Mode;
use crate::fetch::outcome::PageOutcome;
use crate::fetch::{FetchError, Fetched};
use crate::limits::RunSlot;
use crate::money::Micros;
use crate::plugins::{ExtractRequest, PageKind};
use crate::state::AppState;
use crate::wire::{self};

mod crawl;
mod page;
mod rendering;
use rendering::{Render, RenderUse};

/// Start the run of a session's current turn in a task of its own: it
/// owns the claim and the slot, so neither outlives it, and a panic inside
/// the run ends the session as error (code internal) instead of leaving it
/// running.
pub fn spawn(state: AppState, session: Session, slot: Arc<RunSlot>, claim: RunClaim) {
    tokio::spawn(async move {
        use futures::FutureExt;
        let id = session.id.clone();
        if faults_match(&state.config.faults.run_lost_marker, &session.query) {
            tracing::warn!(session = %id, "fault injection: the run is lost");
            return;
        }
        let stop = claim.stop.clone();
        let mut stop_signal = stop.clone();
        let mut run = Run {
            progress: Progress::new(
                state.store.clone(),
                state.bus.clone(),
                &session.id,
                &session.account,
            ),
            state: state.clone(),
            rows: HashMap::new(),
            last_page: None,
            reading: Reading::default(),
            since: None,
            unchanged: false,
            via: "seed",
            render_use: RenderUse::default(),
            session,
            stop,
        };
        // A stop ends the run wherever it is waiting. A page commit already
        // under way still completes or sees the session ended, never half.
        let execute = std::panic::AssertUnwindSafe(run.execute()).catch_unwind();
        let outcome = tokio::select! {
            outcome = execute => outcome.unwrap_or_else(|panic| {
                tracing::error!(session = %id, panic = crate::supervise::panic_text(&*panic), "a run panicked; it ends as error");
                Outcome::Error { code: StreamCode::Internal, message: "the run failed unexpectedly".into() }
            }),
            _ = stop_signal.wait_for(|stop| *stop) => Outcome::Stopped { stop: StopReason::Requested, reason: "stopped on request".into() },
        };
        drop(run);
        if let Err(e) = finish_own(&state, &id, outcome).await {
            // The watchdog ends it once the claim is gone.
            tracing::error!(session = %id, error = %e, "failed to end a run; the watchdog will");
        }
        // The slot before the claim: once the claim is gone (what a stop
        // waits for), the run's place under the concurrency cap is free.
        drop(slot);
        drop(claim);
    });
}

/// Does a fault-injection marker (set and not empty) occur in a query?
fn faults_match(marker: &Option<String>, query: &str) -> bool {
    marker
        .as_deref()
        .is_some_and(|m| !m.is_empty() && query.contains(m))
}

struct Run {
    state: AppState,
    /// A snapshot of the session; the stored one is the truth.
    session: Session,
    stop: watch::Receiver<bool>,
    /// The run's writes, in order.
    progress: Progress,
    /// The rows of this run by identity, so a product seen twice is one row.
    rows: HashMap<String, RowMark>,
    /// How the last page the run wanted ended (an extraction's one page).
    last_page: Option<PageEnd>,
    /// What the run read of its catalog's listings.
    reading: Reading,
    /// An extraction's earlier delivery of its page and that page's
    /// validators: the fetch is conditional.
    since: Option<(String, crate::fetch::Validators)>,
    /// The page answered 304: the earlier delivery's rows were served.
    unchanged: bool,
    /// How the run came to the page it is reading (`via` in its events).
    via: &'static str,
    /// Render time the run has spent, and whether the page being read was
    /// rendered (`rendered` in its event).
    render_use: RenderUse,
}

/// How a page the run wanted ended.
struct PageEnd {
    /// `None`: a test key's page missing from the recordings.
    outcome: Option<PageOutcome>,
    reason: String,
    validators: crate::fetch::Validators,
}

/// A row the run has written: its key, its record and how it counted.
struct RowMark {
    key: String,
    record: Map<String, Value>,
    qualified: bool,
    unchecked: bool,
}

impl Run {
    fn stopped(&self) -> bool {
        *self.stop.borrow()
    }

    /// The session's qualified rows once the run's writes commit: those of
    /// earlier turns and this run's.
    fn qualified(&self) -> u64 {
        let here = self.rows.values().filter(|row| row.qualified).count();
        self.session.qualified + here as u64
    }

    async fn event(&mut self, data: EventData) -> anyhow::Result<()> {
        self.progress.push(Effect::Event(data)).await
    }

    /// The data of a page's event at $0: nothing billable came of it.
    fn unbilled_data(&self, url: &str, outcome: PageOutcome, reason: &str) -> wire::PageUnbilled {
        wire::PageUnbilled {
            url: url.to_string(),
            via: Some(self.via),
            outcome: outcome.as_str(),
            reason: reason.to_string(),
            not_modified: false,
            records: 0,
            cost_usd: Micros::ZERO.into(),
        }
    }

    async fn execute(&mut self) -> Outcome {
        // What the run handed over is committed before its end is.
        let outcome = match self.plan_and_crawl().await {
            Ok(outcome) => self.state_reading(&outcome).await.map(|()| outcome),
            Err(e) => Err(e),
        };
        let outcome = match outcome {
            Ok(outcome) => self.progress.flush().await.map(|()| outcome),
            Err(e) => Err(e),
        };
        if matches!(outcome, Ok(Outcome::Answered)) && self.session.diff_base.is_some() {
            // A refresh states what changed; a failed diff is logged, the
            // rows stand.
            if let Err(e) = self.record_diff().await {
                tracing::error!(session = %self.session.id, error = %e, "refresh diff failed");
            }
        }
        match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                tracing::error!(session = %self.session.id, error = %e, "run failed");
                Outcome::Error {
                    code: StreamCode::Internal,
                    message: "the run failed unexpectedly".into(),
                }
            }
        }
    }

    /// Hand over what the run read: its completeness and, for an
    /// extraction, its page's outcome and validators.
    async fn state_reading(&mut self, outcome: &Outcome) -> anyhow::Result<()> {
        let page = self.last_page.as_ref();
        let effect = Effect::Reading {
            outcome: page.and_then(|p| p.outcome),
            completeness: (!self.unchanged).then(|| self.reading.completeness(Some(outcome))),
            validators: page.map(|p| p.validators.clone()).unwrap_or_default(),
        };
        self.progress.push(effect).await
    }

    /// A refresh's rows against its base, by the differ plugin: an
    /// extraction's base is the delivery `diff_base` names; a session's is
    /// its previous turn (`turn:<n>`).
    async fn record_diff(&mut self) -> anyhow::Result<()> {
        let base = self.session.diff_base.clone().unwrap_or_default();
        let (id, turn) = (self.session.id.clone(), self.session.turn);
        let records = |rows: Vec<(String, wire::Row)>, keep: &dyn Fn(&wire::Row) -> bool| {
            rows.into_iter()
                .filter(|(_, r)| keep(r))
                .map(|(_, r)| Value::Object(r.record).to_string())
                .collect::<Vec<String>>()
        };
        let (before, after) = self
            .state
            .store
            .read_async(move |tx| -> anyhow::Result<(Vec<String>, Vec<String>)> {
                let scan = |owner: &str| -> anyhow::Result<Vec<(String, wire::Row)>> {
                    crate::store::Tx::scan_json(
                        tx,
                        crate::store::ROWS,
                        &crate::prefix!(owner),
                        None,
                        usize::MAX,
                        false,
                    )
                };
                Ok(match base.strip_prefix("turn:") {
                    Some(n) => {
                        let prev: u64 = n.parse().unwrap_or(0);
                        let rows = scan(&id)?;
                        (
                            records(rows.clone(), &|r| u64::from(r.turn) == prev),
                            records(rows, &|r| r.turn == turn),
                        )
                    }
                    None => (
                        records(scan(&base)?, &|_| true),
                        records(scan(&id)?, &|_| true),
                    ),
                })
            })
            .await?;
        let d = self.state.plugins.diff(before, after).await?;
        let diff = d.counts();
        let id = self.session.id.clone();
        self.state
            .store
            .write_async_in(
                crate::store::Scope::account(&self.session.account),
                move |tx| -> anyhow::Result<()> {
                    let Some(mut s) = super::get(tx, &id)? else {
                        return Ok(());
                    };
                    if s.is_running() {
                        s.diff = Some(diff);
                        super::put(tx, &s)?;
                    }
                    Ok(())
                },
            )
            .await
    }

    async fn plan_and_crawl(&mut self) -> anyhow::Result<Outcome> {
        let mode = self.session.mode;
        // An extraction's test sentinels sit in its entity or guidance.
        let steering = match self.session.kind {
            Kind::Session => self.session.query.clone(),
            Kind::Extraction => format!(
                "{} {}",
                self.session.entity.as_deref().unwrap_or_default(),
                self.session.guidance.as_deref().unwrap_or_default()
            ),
        };
        let sentinel = testmode::sentinel(mode, &steering);
        match sentinel {
            Some(Sentinel::Decline) | Some(Sentinel::Abstain) => {
                return Ok(Outcome::Abstained {
                    reason: "a test sentinel asked the run to abstain".into(),
                });
            }
            Some(Sentinel::Error) => {
                return Ok(Outcome::Error {
                    code: StreamCode::ProviderUnavailable,
                    message: "a test sentinel made the run fail".into(),
                });
            }
            _ => {}
        }
        if self.session.kind == Kind::Extraction {
            return self.extract_one(sentinel).await;
        }
        let mut seeds = seeds_of(&Intent::of(&self.session.parsed));
        if seeds.is_empty() && matches!(sentinel, Some(Sentinel::SpendStop | Sentinel::Page(_))) {
            seeds.push(testmode::DEFAULT_TEST_SITE.to_string());
        }
        // FN_TEST_SPEND_STOP promises receipts and then the stop: a source
        // with no recording would end the run with nothing read, so the
        // recorded test site stands in for it.
        if sentinel == Some(Sentinel::SpendStop) && !self.any_recorded(&seeds).await {
            seeds = vec![testmode::DEFAULT_TEST_SITE.to_string()];
        }
        if seeds.is_empty() {
            match &self.state.config.search_provider_url {
                Some(provider) if mode == Mode::Live => match self.search(provider).await {
                    Ok(found) if !found.is_empty() => seeds = found,
                    Ok(_) => return Ok(Outcome::Abstained { reason: "the search provider found no source for this query".into() }),
                    Err(e) => return Ok(Outcome::Error { code: StreamCode::ProviderUnavailable, message: format!("the search provider failed: {e}") }),
                },
                _ => {
                    return Ok(Outcome::Abstained {
                        reason: "the query names no source (a URL or a site) and no search provider is configured".into(),
                    })
                }
            }
        }
        self.crawl(seeds, sentinel, true).await
    }

    async fn search(&self, provider: &str) -> anyhow::Result<Vec<String>> {
        let mut url = Url::parse(provider)?;
        url.query_pairs_mut().append_pair("q", &self.session.query);
        let page = self.state.fetcher.fetch(url.as_str()).await?;
        anyhow::ensure!(
            page.status == 200,
            "the search provider answered {}",
            page.status
        );
        let answer: Value = serde_json::from_str(&page.body)?;
        Ok(answer["results"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|r| r["url"].as_str().map(str::to_string))
                    .take(5)
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Where this run's pages come from: the network, or the recordings.
    fn pages(&self) -> super::sources::PageSource<'_> {
        super::sources::PageSource {
            fetcher: &self.state.fetcher,
            plugins: &self.state.plugins,
            mode: self.session.mode,
        }
    }

    /// Whether a recording holds any of `urls` (test mode).
    async fn any_recorded(&self, urls: &[String]) -> bool {
        for url in urls {
            if matches!(self.get(url).await, Ok(Some(_))) {
                return true;
            }
        }
        false
    }

    /// Fetch a page through the mode's source: the network, or a recording.
    async fn get(&self, url: &str) -> Result<Option<Fetched>, FetchError> {
        self.pages().read(url).await
    }

    /// robots.txt of a site (missing or unreadable: everything allowed).
    async fn robots(&self, site: &Url) -> Robots {
        self.pages().robots(site).await
    }

    /// An extraction: its one page, read once (robots.txt obeyed), every
    /// record of it a row. A page that is not `ok` ends the run as error
    /// with the outcome as its code (robots.txt: abstained), at $0.
    async fn extract_one(&mut self, sentinel: Option<Sentinel>) -> anyhow::Result<Outcome> {
        let url = self.session.url.clone().unwrap_or_default();
        self.since = self.earlier_validators(&url).await?;
        let outcome = self.crawl(vec![url], sentinel, false).await?;
        if outcome != Outcome::Answered {
            return Ok(outcome);
        }
        let Some(page) = &self.last_page else {
            return Ok(outcome);
        };
        Ok(match page.outcome {
            Some(PageOutcome::Ok) => outcome,
            Some(PageOutcome::RobotsDisallowed) => Outcome::Abstained {
                reason: format!("robots_disallowed: {}", page.reason),
            },
            Some(other) => Outcome::Error {
                code: StreamCode::Page(other),
                message: format!("{}: {}", other.as_str(), page.reason),
            },
            None => Outcome::Error {
                code: StreamCode::ProviderUnavailable,
                message: page.reason.clone(),
            },
        })
    }

    /// The validators of the earlier delivery this run is conditional on
    /// (live keys only; that delivery must be of the same URL).
    async fn earlier_validators(
        &self,
        url: &str,
    ) -> anyhow::Result<Option<(String, crate::fetch::Validators)>> {
        let Some(earlier) = self.session.conditional_on.clone() else {
            return Ok(None);
        };
        if self.session.mode != Mode::Live {
            return Ok(None);
        }
        let found = self
            .state
            .store
            .read_async(move |tx| super::get(tx, &earlier))
            .await?;
        Ok(found
            .filter(|e| {
                e.url.as_deref() == Some(url)
                    && e.entity == self.session.entity
                    && e.guidance == self.session.guidance
                    && e.status == super::Status::Answered
                    && !e.redacted
                    && !e.validators.is_empty()
            })
            .map(|e| (e.id.clone(), e.validators.clone())))
    }

    /// Fetch a page, conditionally when the run holds an earlier delivery's
    /// validators for it.
    async fn fetch_page(&self, url: &str) -> Result<Option<Fetched>, FetchError> {
        match &self.since {
            Some((_, since)) if self.session.url.as_deref() == Some(url) => self
                .state
                .fetcher
                .fetch_if_changed(url, since)
                .await
                .map(Some),
            _ => self.get(url).await,
        }
    }

    /// A page that gave nothing billable: its event (`skipped` for
    /// robots.txt, `fetch_failed` when no response came, `page` otherwise),
    /// at $0 and without a receipt.
    async fn unbilled(
        &mut self,
        url: &str,
        outcome: Option<PageOutcome>,
        reason: String,
        listing_page: bool,
    ) -> anyhow::Result<()> {
        let phase = match outcome {
            Some(PageOutcome::RobotsDisallowed) => Phase::Skipped,
            Some(PageOutcome::FetchFailed) | None => Phase::FetchFailed,
            Some(_) => Phase::Page,
        };
        let named = outcome.unwrap_or(PageOutcome::FetchFailed);
        // A listing's page lost, or the page the run started from when it
        // could not be read at all (not merely a page of another kind).
        let first_unread = self.via == "seed" && outcome != Some(PageOutcome::NotACatalog);
        if (listing_page || first_unread) && self.reading.lost.is_none() {
            self.reading.lost = Some(named);
        }
        let data = self.unbilled_data(url, named, &reason);
        self.event(EventData::Unbilled(phase, data)).await?;
        self.last_page = Some(PageEnd {
            outcome,
            reason,
            validators: Default::default(),
        });
        Ok(())
    }
}

/// The pages an intent names: its URLs, and the front page of each site.
fn seeds_of(intent: &Intent) -> Vec<String> {
    let mut out: Vec<String> = intent
        .sources
        .iter()
        .map(|s| match s {
            Source::Url(u) => u.clone(),
            Source::Domain(d) => format!("https://{}/", d.trim_end_matches('/')),
        })
        .collect();
    out.dedup();
    out
}

/// The origin of the first page a parsed intent names.
pub fn seed_origin(parsed: &Value) -> Option<String> {
    let first = seeds_of(&Intent::of(parsed)).into_iter().next()?;
    Url::parse(&first)
        .ok()
        .map(|u| u.origin().ascii_serialization())
}

/// The most sitemap entries a run queues.
const MAX_SITEMAP_URLS: usize = 10_000;

/// The product page a listing's record links to, as the frontier keys it.
fn product_page(record: &Map<String, Value>, page_url: &str) -> Option<String> {
    let href = record.get("url").and_then(Value::as_str)?.trim();
    let url = Url::parse(page_url).ok()?.join(href).ok()?;
    Some(normalize(&url))
}

/// A row's identity: the one rule of the differ plugin (gtin, sku, mpn,
/// url, name, each normalized), linked from its crate so that runs merge
/// rows and monitors and refreshes diff them by the same identity. A
/// relative `url` is resolved against the page first.
fn identity_of(record: &Map<String, Value>, page_url: &str) -> String {
    let absolute = record
        .get("url")
        .and_then(Value::as_str)
        .and_then(|u| Url::parse(page_url).ok()?.join(u.trim()).ok());
    match absolute {
        // The url comes first in the rule, so it alone decides the identity
        // (no copy of the whole record for every row).
        Some(u) => {
            let mut url_only = Map::new();
            url_only.insert("url".into(), Value::String(u.to_string()));
            fnhost_differ::identity(&url_only)
        }
        None => fnhost_differ::identity(record),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn runs_identify_rows_by_the_differs_rule() {
        let page = "https://shop.example/lamps/?page=2";
        // The URL first (resolved against the page), then codes, then the name.
        let r = record(json!({ "sku": "A-1", "url": "/p/amber.html", "name": "Amber" }));
        assert_eq!(
            identity_of(&r, page),
            "url:https://shop.example/p/amber.html"
        );
        let r = record(json!({ "sku": "A-1", "name": "Amber" }));
        assert_eq!(identity_of(&r, page), "sku:A-1");
        let r = record(json!({ "url": "../p/amber.html#top", "name": "Amber" }));
        assert_eq!(
            identity_of(&r, page),
            "url:https://shop.example/p/amber.html"
        );
        let absolute =
            record(json!({ "url": "https://shop.example/p/amber.html", "name": "Amber" }));
        assert_eq!(identity_of(&r, page), fnhost_differ::identity(&absolute));
        let r = record(json!({ "name": "  Amber   Lamp " }));
        assert_eq!(identity_of(&r, page), "name:amber lamp");
    }
}
