//! A page's spending: its receipt, rows, events and counters, committed
//! together (a page not written is never billed).

use super::*;

impl Run {
    /// One page's receipt, rows and event, handed over to be committed
    /// together. Rows get their keys and marks here, in page order.
    pub(super) async fn commit_page(
        &mut self,
        page: &Fetched,
        extractor: &str,
        claim: &str,
        cost: Micros,
        rows: Vec<(String, Map<String, Value>)>,
        intent: &Intent,
    ) -> anyhow::Result<()> {
        let receipt = crate::receipts::issue(
            &self.state.signer,
            &crate::receipts::Facts {
                owner: match self.session.kind {
                    Kind::Session => crate::receipts::Owner::Session(&self.session.id),
                    Kind::Extraction => crate::receipts::Owner::Extraction(&self.session.id),
                },
                turn: self.session.turn,
                url: &page.url,
                fetched_at: &page.fetched_at,
                http_status: page.status,
                content_sha256: &page.sha256,
                bytes: page.bytes,
                records: rows.len(),
                claim,
                cost,
                extractor,
                livemode: self.session.mode.livemode(),
                replayed: self.session.mode == Mode::Test,
            },
        );
        let receipt_id = receipt["id"].as_str().unwrap_or_default().to_string();
        let domain = Url::parse(&page.url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_default();
        let mut writes = Vec::with_capacity(rows.len());
        let mut page_qualified = 0;
        for (identity, record) in &rows {
            let (fulfillment, qualified, unchecked) = match constraints::check(record, intent) {
                Check::Checked {
                    fulfillment,
                    qualified,
                } => (fulfillment, qualified, None),
                Check::Unchecked {
                    fulfillment,
                    reason,
                } => (fulfillment, false, Some(reason)),
            };
            let mut row = wire::Row {
                id: String::new(), // its place in the run, set below

                turn: self.session.turn,
                source: wire::RowSource {
                    domain: domain.clone(),
                    url: page.url.clone(),
                    receipt_id: receipt_id.clone(),
                },
                record: record.clone(),
                fulfillment,
                qualified,
                unchecked,
            };
            let unchecked = row.unchecked.is_some();
            if qualified {
                page_qualified += 1;
            }
            let (key, new, before) = match self.rows.get_mut(identity) {
                // Replace the earlier sighting: undo its counts.
                Some(earlier) => {
                    let before = (earlier.qualified, earlier.unchecked);
                    (earlier.qualified, earlier.unchecked) = (qualified, unchecked);
                    earlier.record = record.clone();
                    (earlier.key.clone(), false, before)
                }
                None => {
                    let n = self.session.row_count + self.rows.len() as u64 + 1;
                    let key = row_key(&self.session.id, n);
                    let mark = RowMark {
                        key: key.clone(),
                        record: record.clone(),
                        qualified,
                        unchecked,
                    };
                    self.rows.insert(identity.clone(), mark);
                    (key, true, (false, false))
                }
            };
            row.id = crate::sessions::row_id(&key);
            let delta = |now: bool, before: bool| i64::from(now) - i64::from(before);
            writes.push(RowWrite {
                key,
                row,
                new,
                qualified_delta: delta(qualified, before.0),
                unchecked_delta: delta(unchecked, before.1),
            });
        }
        let event = crate::wire::SourceRead {
            url: page.url.clone(),
            via: self.via,
            outcome: PageOutcome::Ok.as_str(),
            receipt_id: receipt_id.clone(),
            records: rows.len(),
            qualified: page_qualified,
            claim: claim.to_string(),
            cost_usd: cost.into(),
            rendered: self.render_use.this_page,
        };
        self.progress
            .push(Effect::Page(PageCommit {
                receipt_id,
                receipt,
                cost,
                rows: writes,
                event,
            }))
            .await
    }
}
