//! The crawl of a turn: the frontier from the seeds, robots and sitemaps,
//! each page fetched (or replayed), read and committed, until the turn's
//! limits, its money or a stop end it.

use super::*;

impl Run {
    pub(super) async fn crawl(
        &mut self,
        seeds: Vec<String>,
        sentinel: Option<Sentinel>,
        follow: bool,
    ) -> anyhow::Result<Outcome> {
        let config = self.state.config.clone();
        let per_fetch = config.per_fetch();
        let per_record = config.per_record();
        let mut budget = self.session.max_spend;
        if sentinel == Some(Sentinel::SpendStop) {
            // Enough for a few pages, so the run settles some receipts and then stops.
            budget = budget.min(Micros(
                per_fetch.0 * testmode::SPEND_STOP_RECEIPTS as i64 + 4 * per_record.0,
            ));
        }
        // The intent, read once for the whole crawl.
        let intent = Intent::of(&self.session.parsed);
        let entity = intent.entity.clone().unwrap_or_else(|| "product".into());
        let wanted = intent.constraints.count;
        let mut frontier = Frontier::default();
        let mut robots: HashMap<String, Robots> = HashMap::new();

        for seed in &seeds {
            let Ok(url) = Url::parse(seed) else { continue };
            frontier.add_site(&url);
            let site = url.origin().ascii_serialization();
            if !robots.contains_key(&site) {
                let r = self.robots(&url).await;
                frontier.mark_seen(
                    url.join("/robots.txt")
                        .map(|u| u.to_string())
                        .as_deref()
                        .unwrap_or(""),
                );
                robots.insert(site.clone(), r);
            }
            frontier.push(seed, 0);
        }
        // Sitemaps named in robots.txt are the catalog's own list of pages.
        let sitemap_list: Vec<String> = if follow {
            robots.values().flat_map(|r| r.sitemaps.clone()).collect()
        } else {
            Vec::new()
        };
        for sitemap in sitemap_list.iter().take(3) {
            if let Ok(Some(page)) = self.get(sitemap).await {
                frontier.mark_seen(sitemap);
                for loc in sitemap_urls(&page.body).into_iter().take(MAX_SITEMAP_URLS) {
                    let priority = if path_names(&entity, &loc) {
                        Priority::Sitemap
                    } else {
                        Priority::Unrelated
                    };
                    frontier.push_as(&loc, 1, priority);
                }
            }
        }

        let mut spent = Micros::ZERO;
        let mut pages = 0u32;
        // Product pages whose rows a listing already gave, with every field
        // the constraints check: not worth a fetch.
        let mut covered: HashSet<String> = HashSet::new();
        // Unrelated pages only while the run has found nothing it wants.
        while let Some((url, depth)) = frontier.pop_next(self.rows.is_empty()) {
            self.via = match frontier.why(&url) {
                Some(why) if depth > 0 => why.as_str(),
                _ => "seed",
            };
            if covered.contains(&url) {
                continue;
            }
            if self.stopped() {
                return Ok(Outcome::Stopped {
                    stop: StopReason::Requested,
                    reason: "stopped on request".into(),
                });
            }
            if pages >= config.fetch.max_pages_per_turn {
                return Ok(Outcome::Stopped {
                    stop: StopReason::QueryBudget,
                    reason: format!(
                        "reached the limit of {} pages per turn",
                        config.fetch.max_pages_per_turn
                    ),
                });
            }
            if spent + per_fetch > budget {
                return Ok(Outcome::Stopped {
                    stop: StopReason::SpendBudget,
                    reason: "the next fetch would cross max_spend_usd".into(),
                });
            }
            let parsed_url = Url::parse(&url)?;
            let site = parsed_url.origin().ascii_serialization();
            let path = match parsed_url.query() {
                Some(q) => format!("{}?{q}", parsed_url.path()),
                None => parsed_url.path().to_string(),
            };
            let listing_page = self.reading.next_pages.contains(&url);
            if let Some(Sentinel::Page(outcome)) = sentinel {
                pages += 1;
                let reason = "a test sentinel chose the outcome".to_string();
                self.unbilled(&url, Some(outcome), reason, listing_page)
                    .await?;
                continue;
            }
            if robots.get(&site).is_some_and(|r| !r.allows(&path)) {
                let reason = "robots.txt disallows the page".to_string();
                self.unbilled(
                    &url,
                    Some(PageOutcome::RobotsDisallowed),
                    reason,
                    listing_page,
                )
                .await?;
                continue;
            }
            let page = match self.fetch_page(&url).await {
                Ok(Some(p)) => p,
                Ok(None) => {
                    let reason = "the page is not in the recording".to_string();
                    self.unbilled(&url, None, reason, listing_page).await?;
                    continue;
                }
                Err(e) => {
                    let reason = format!("the page could not be fetched: {e}");
                    self.unbilled(&url, Some(PageOutcome::FetchFailed), reason, listing_page)
                        .await?;
                    continue;
                }
            };
            pages += 1;
            // A page reached by redirects is read once: its own address,
            // when a later page links it, is already visited.
            if page.url != url {
                frontier.mark_seen(&page.url);
            }
            if page.status == 304 {
                if let Some((earlier, since)) = self.since.clone() {
                    // Unchanged since the earlier delivery: its rows, at $0.
                    self.progress
                        .push(Effect::Unchanged {
                            from: earlier.clone(),
                        })
                        .await?;
                    let reason = format!("not modified since {earlier}: its rows are served again");
                    let data = wire::PageUnbilled {
                        via: None,
                        not_modified: true,
                        ..self.unbilled_data(&page.url, PageOutcome::Ok, &reason)
                    };
                    self.event(EventData::Unbilled(Phase::Page, data)).await?;
                    self.unchanged = true;
                    let fresh = page.validators();
                    self.last_page = Some(PageEnd {
                        outcome: Some(PageOutcome::Ok),
                        reason,
                        validators: if fresh.is_empty() { since } else { fresh },
                    });
                    continue;
                }
            }
            // What the response alone says (a challenge, a sign-in, a 404...).
            if let Some(v) = crate::fetch::outcome::of_response(&url, &page) {
                self.unbilled(&page.url, Some(v.outcome), v.signal, listing_page)
                    .await?;
                continue;
            }
            let request = ExtractRequest {
                entity: entity.clone(),
                guidance: self.session.guidance.clone(),
                hints: serde_json::to_value(crate::plugins::ExtractHints {
                    currency: intent.constraints.currency.clone(),
                    keywords: intent.constraints.keywords.clone(),
                    brand: intent.constraints.brand.clone(),
                })?,
            };
            // A script application's page is read as the browser shows it:
            // first (`always`) or when its plain read gave nothing (`auto`).
            let mut page = page;
            let mut rendered = false;
            if self.renders_first(&page) {
                match self.render(&page).await {
                    Render::Page(r) => (page, rendered) = (*r, true),
                    Render::Skipped => {}
                    Render::Failed(reason) => {
                        self.unbilled(
                            &page.url,
                            Some(PageOutcome::FetchFailed),
                            reason,
                            listing_page,
                        )
                        .await?;
                        continue;
                    }
                }
            }
            let Some(mut extraction) = self.extract_page(&page, &request).await? else {
                continue;
            };
            // Why a read page gave no records, judged once per reading.
            let why_empty = |x: &crate::plugins::Extraction, page: &Fetched| {
                x.records
                    .is_empty()
                    .then(|| crate::fetch::outcome::of_empty(page))
            };
            let mut empty = why_empty(&extraction, &page);
            let shell = empty
                .as_ref()
                .is_some_and(|v| v.outcome == PageOutcome::NeedsRendering);
            if shell && !rendered && self.renders_after(&page) {
                match self.render(&page).await {
                    Render::Page(r) => {
                        (page, rendered) = (*r, true);
                        let Some(x) = self.extract_page(&page, &request).await? else {
                            continue;
                        };
                        extraction = x;
                        empty = why_empty(&extraction, &page);
                    }
                    Render::Skipped => {}
                    Render::Failed(reason) => {
                        self.unbilled(
                            &page.url,
                            Some(PageOutcome::FetchFailed),
                            reason,
                            listing_page,
                        )
                        .await?;
                        continue;
                    }
                }
            }
            // A listing is walked page by page; its next pages are not deeper.
            let next_pages = if follow {
                extraction.next_pages.as_slice()
            } else {
                &[]
            };
            for next in next_pages {
                if frontier.push_as(next, depth, Priority::Next) {
                    if let Ok(u) = Url::parse(next) {
                        self.reading.next_pages.insert(normalize(&u));
                    }
                }
            }
            if !follow && !extraction.next_pages.is_empty() {
                self.reading.unwalked = true;
            }
            if extraction.kind == PageKind::Listing && !extraction.records.is_empty() {
                self.reading.pages_walked += 1;
                if let Some(total) = stated_total(&extraction.notes) {
                    self.reading.expected = Some(self.reading.expected.unwrap_or(0).max(total));
                }
                for record in &extraction.records {
                    self.reading.found.insert(identity_of(record, &page.url));
                }
            }
            if follow && extraction.kind == PageKind::Listing {
                for record in &extraction.records {
                    let Some(product) = product_page(record, &page.url) else {
                        continue;
                    };
                    // A constraint the listing cannot answer (a brand or a
                    // condition it does not show) is read from the product page.
                    if constraints::needs_product_page(record, &intent) {
                        frontier.push_as(&product, depth + 1, Priority::Next);
                    } else {
                        covered.insert(product);
                    }
                }
            }
            // Links the extractor judged related to the query come first;
            // the rest wait. A branch whose page gave nothing wanted is not
            // followed further, unless the run came to it for its relevance.
            let related = related_links(&extraction.notes).unwrap_or(extraction.links.len());
            let fruitful = depth == 0
                || !extraction.records.is_empty()
                || frontier.why(&url) == Some(Priority::Link);
            for (i, link) in extraction.links.iter().enumerate() {
                if follow && depth < 2 && fruitful {
                    let priority = if i < related {
                        Priority::Link
                    } else {
                        Priority::Unrelated
                    };
                    frontier.push_as(link, depth + 1, priority);
                }
            }
            if let Some(v) = empty {
                // Read, but nothing to bill: why (an empty listing is ok).
                let outcome = match (extraction.kind, v.outcome) {
                    (PageKind::Listing, PageOutcome::NotACatalog) => PageOutcome::Ok,
                    (_, o) => o,
                };
                self.unbilled(&page.url, Some(outcome), v.signal, listing_page)
                    .await?;
                continue;
            }
            // Only new rows are billed; a product already seen is updated in
            // place. A rendered page costs its render on top of its fetch.
            let per_page = if rendered {
                Micros(per_fetch.0 + config.per_render().0)
            } else {
                per_fetch
            };
            let remaining = budget - spent - per_page;
            let mut rows = Vec::new();
            let mut truncated = false;
            let mut new_rows = 0i64;
            // Identities new on this page, so a product listed twice is billed once.
            let mut on_page = HashSet::new();
            // A run asked for N rows takes new ones only until it has N
            // qualified: a listing may show many more than asked for.
            let mut qualified_so_far = self.qualified();
            for record in extraction.records.iter() {
                if wanted.is_some_and(|n| qualified_so_far >= n) {
                    break;
                }
                let identity = identity_of(record, &page.url);
                // A product read again (its listing's row, then its page) is
                // one row: what the later page says wins, the rest is kept.
                let mut record = record.clone();
                if let Some(earlier) = self.rows.get(&identity) {
                    for (k, v) in &earlier.record {
                        record.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                if !self.rows.contains_key(&identity) && on_page.insert(identity.clone()) {
                    if per_record.0 * (new_rows + 1) > remaining.0 {
                        truncated = true;
                        break;
                    }
                    new_rows += 1;
                    if matches!(
                        constraints::check(&record, &intent),
                        Check::Checked {
                            qualified: true,
                            ..
                        }
                    ) {
                        qualified_so_far += 1;
                    }
                }
                rows.push((identity, record));
            }
            // Not one record kept (the first new one already costs more
            // than the budget has left): the page yields nothing, so it
            // issues no receipt and costs nothing (PRICING.md).
            if truncated && rows.is_empty() {
                self.unbilled(
                    &page.url,
                    Some(PageOutcome::Ok),
                    "read, but its first new record costs more than the rest of max_spend_usd covers"
                        .into(),
                    listing_page,
                )
                .await?;
                return Ok(Outcome::Stopped {
                    stop: StopReason::SpendBudget,
                    reason: "more records than max_spend_usd covers".into(),
                });
            }
            let cost = Micros(per_page.0 + per_record.0 * new_rows);
            spent += cost;
            // Complete only when the list was read whole: this page's part,
            // no listing page lost, and what the site says it has.
            let claim = if extraction.complete && !truncated && self.reading.whole() {
                "complete"
            } else {
                "partial"
            };
            self.last_page = Some(PageEnd {
                outcome: Some(PageOutcome::Ok),
                reason: "read".into(),
                validators: page.validators(),
            });
            self.render_use.this_page = rendered;
            if let (true, Some(r)) = (rendered, &self.state.renderer) {
                r.remember(&page.url);
            }
            self.commit_page(&page, &extraction.plugin, claim, cost, rows, &intent)
                .await?;
            self.injected_panic().await?;
            if truncated {
                return Ok(Outcome::Stopped {
                    stop: StopReason::SpendBudget,
                    reason: "more records than max_spend_usd covers".into(),
                });
            }
            if wanted.is_some_and(|n| self.qualified() >= n) {
                self.reading.enough = !frontier.is_empty();
                break;
            }
        }
        self.unrelated_not_read(&frontier).await?;
        Ok(Outcome::Answered)
    }

    /// Say which pages the run left unread as unrelated to the query.
    pub(super) async fn unrelated_not_read(&mut self, frontier: &Frontier) -> anyhow::Result<()> {
        let left = frontier.unrelated_left();
        if left.is_empty() {
            return Ok(());
        }
        self.event(EventData::NotRead(crate::wire::PagesNotRead {
            reason: "unrelated to the query: its anchor text, title and path do not name what was asked for, and related pages answered it",
            pages: left.len(),
            examples: left.iter().take(10).cloned().collect(),
        }))
        .await
    }

    /// Fault injection for drills and tests (`faults.run_panic_marker`): a
    /// run whose query holds the marker panics once its first page has
    /// committed.
    pub(super) async fn injected_panic(&mut self) -> anyhow::Result<()> {
        if faults_match(
            &self.state.config.faults.run_panic_marker,
            &self.session.query,
        ) {
            self.progress.flush().await?;
            panic!("fault injection: faults.run_panic_marker");
        }
        Ok(())
    }
}
