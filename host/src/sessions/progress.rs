//! A run's progress on its way to the database.
//!
//! The run hands over its pages and events in order; they are committed in
//! that order, one write at a time, and the run does not wait for each:
//! while one write is under way, what the run produces next gathers and
//! goes into the next write, as one transaction. A page read from the
//! network commits on its own as soon as it is read; pages that come faster
//! than the database takes them (replays, a busy server) share a
//! transaction. Either way a page's receipt, rows, counters and event
//! commit together or not at all. The writes are relaxed (not flushed on
//! their own): the run's end is a durable commit, and a crash before it
//! loses whole pages from the end, which are then never billed.

use std::mem;

use serde_json::Value;

use super::events::{self, EventBus, EventData};
use crate::money::Micros;
use crate::store::{self, Queued, Scope, Store, Tx, ROWS, SESSION_RECEIPTS};

/// Effects gathered while a write is under way before the run waits for
/// it: enough to share the cost of a commit, few enough that a reader is
/// never far behind.
const MAX_PENDING: usize = 32;

/// What a run adds to its session.
pub(super) enum Effect {
    /// An event of the run (a skipped or failed page).
    Event(EventData),
    /// A receipted page with its rows and its `source` event.
    Page(PageCommit),
    /// The page answered 304 Not Modified: the rows of the earlier delivery
    /// `from` are this run's, with its claim and receipt, at $0.
    Unchanged { from: String },
    /// What the run read of its catalog (and an extraction's page outcome),
    /// stated before its end.
    Reading {
        outcome: Option<crate::fetch::outcome::PageOutcome>,
        /// `None`: the earlier delivery's stands (a 304).
        completeness: Option<crate::wire::Completeness>,
        validators: crate::fetch::Validators,
    },
}

/// One page's effects, decided by the run before they are written.
pub(super) struct PageCommit {
    pub receipt_id: String,
    pub receipt: Value,
    pub cost: Micros,
    pub rows: Vec<RowWrite>,
    /// The page's `source` event.
    pub event: crate::wire::SourceRead,
}

/// A row stored under `key`: a new one, or one the run wrote before,
/// replaced in place.
pub(super) struct RowWrite {
    pub key: String,
    pub row: crate::wire::Row,
    pub new: bool,
    /// The change this write makes to the session's qualified count (-1, 0
    /// or 1, a replaced row's own mark undone).
    pub qualified_delta: i64,
    /// The same for the unchecked count.
    pub unchecked_delta: i64,
}

/// The run's writes: the one under way and what gathers behind it.
pub(super) struct Progress {
    store: Store,
    bus: EventBus,
    session: String,
    /// The session's account: the scope of its writes.
    account: String,
    pending: Vec<Effect>,
    in_flight: Option<Queued<(), anyhow::Error>>,
}

impl Progress {
    pub(super) fn new(store: Store, bus: EventBus, session: &str, account: &str) -> Progress {
        Progress {
            store,
            bus,
            session: session.to_string(),
            account: account.to_string(),
            pending: Vec::new(),
            in_flight: None,
        }
    }

    /// Hand over an effect: written now if no write is under way, else
    /// with the next one. Waits only when too much has gathered.
    pub(super) async fn push(&mut self, effect: Effect) -> anyhow::Result<()> {
        self.pending.push(effect);
        if let Some(write) = &mut self.in_flight {
            match write.try_take() {
                Some(done) => {
                    self.in_flight = None;
                    done?;
                    self.bus.publish();
                }
                None if self.pending.len() < MAX_PENDING => return Ok(()),
                None => self.wait().await?,
            }
        }
        self.start();
        Ok(())
    }

    /// Write everything handed over so far and wait until it is committed.
    pub(super) async fn flush(&mut self) -> anyhow::Result<()> {
        self.wait().await?;
        if !self.pending.is_empty() {
            self.start();
            self.wait().await?;
        }
        Ok(())
    }

    async fn wait(&mut self) -> anyhow::Result<()> {
        if let Some(write) = self.in_flight.take() {
            write.wait().await?;
            self.bus.publish();
        }
        Ok(())
    }

    fn start(&mut self) {
        let effects = mem::take(&mut self.pending);
        let id = self.session.clone();
        self.in_flight = Some(self.store.queue_relaxed_in(
            Scope::account(&self.account),
            move |tx| -> anyhow::Result<()> { apply(tx, &id, effects) },
        ));
    }
}

/// Write `effects` in order, in the caller's transaction. Refused as a
/// whole when the session has ended meanwhile (a stop): nothing follows its
/// terminal event, and a page not written is never billed.
fn apply(tx: &Tx, id: &str, effects: Vec<Effect>) -> anyhow::Result<()> {
    let mut s = super::get(tx, id)?.ok_or_else(|| anyhow::anyhow!("session {id} vanished"))?;
    if !s.is_running() {
        anyhow::bail!("session {id} is no longer running");
    }
    // Fenced: a run another node has taken over (this node was judged
    // dead) writes nothing more into it.
    if super::runner(tx, id)?.as_deref() != Some(tx.node()) {
        anyhow::bail!("session {id} is no longer run by this node");
    }
    for effect in effects {
        match effect {
            Effect::Event(data) => {
                events::append(tx, &mut s, data)?;
            }
            Effect::Page(page) => {
                s.receipts_signed += 1;
                s.sources += 1;
                crate::receipts::put(tx, &page.receipt)?;
                tx.put_str(
                    SESSION_RECEIPTS,
                    crate::key!(id, s.receipts_signed).as_str(),
                    page.receipt_id.as_str(),
                )?;
                s.turn_receipts.push((page.receipt_id, page.cost));
                for row in &page.rows {
                    if row.new {
                        s.row_count += 1;
                        s.records += 1;
                        // Only the run writes rows while it runs, so the keys
                        // it chose follow the stored count.
                        anyhow::ensure!(
                            row.key == row_key(id, s.row_count),
                            "row {} out of step with the session's {} rows",
                            row.key,
                            s.row_count
                        );
                    }
                    s.qualified = adjust(s.qualified, row.qualified_delta)?;
                    s.unchecked = adjust(s.unchecked, row.unchecked_delta)?;
                    store::put_json(tx, ROWS, &row.key, &row.row)?;
                }
                events::append(tx, &mut s, EventData::Source(page.event))?;
            }
            Effect::Unchanged { from } => {
                let earlier = super::get(tx, &from)?
                    .ok_or_else(|| anyhow::anyhow!("delivery {from} vanished"))?;
                anyhow::ensure!(s.row_count == 0, "rows before a 304 in {id}");
                s.row_count = super::copy_rows(tx, &from, id)?;
                s.records = earlier.records;
                s.qualified = earlier.qualified;
                s.unchecked = earlier.unchecked;
                s.claim = earlier.claim;
                s.receipt_id = earlier.receipt_id;
                s.completeness = earlier.completeness;
            }
            Effect::Reading {
                outcome,
                completeness,
                validators,
            } => {
                s.outcome = outcome;
                if completeness.is_some() {
                    s.completeness = completeness;
                }
                s.validators = validators;
            }
        }
    }
    s.updated_at = crate::time::now();
    super::put(tx, &s)
}

/// The key of a session's `n`th row (from 1).
pub(super) fn row_key(session: &str, n: u64) -> String {
    crate::key!(session, n)
}

fn adjust(count: u64, delta: i64) -> anyhow::Result<u64> {
    count
        .checked_add_signed(delta)
        .ok_or_else(|| anyhow::anyhow!("a session count would go below zero"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::sessions::{Session, Status};

    fn running_session(store: &Store) -> Session {
        let s: Session = serde_json::from_value(json!({
            "id": "ses_t", "account": "acct_t", "mode": "test", "key_id": "key_t",
            "status": "running", "stop": null, "error": null, "reason": null,
            "turn": 1, "query": "tents", "guidance": null, "metadata": null,
            "webhook_url": null, "parsed": {}, "max_spend": 1000000,
            "reservation": "res_t", "turn_receipts": [], "settled": 0, "released": 0,
            "records": 0, "qualified": 0, "unchecked": 0, "sources": 0,
            "receipts_signed": 0, "row_count": 0, "last_seq": 0,
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
            "ended_at": null
        }))
        .unwrap();
        store.write(|tx| super::super::put(tx, &s)).unwrap();
        s
    }

    fn page(n: u64, rows: Vec<RowWrite>) -> Effect {
        Effect::Page(PageCommit {
            receipt_id: format!("rct_{n}"),
            receipt: json!({ "id": format!("rct_{n}") }),
            cost: Micros(2000),
            rows,
            event: crate::wire::SourceRead {
                url: format!("https://a.example/{n}"),
                via: "seed",
                outcome: "ok",
                receipt_id: format!("rct_{n}"),
                records: 1,
                qualified: 0,
                claim: String::new(),
                cost_usd: Micros(1000).into(),
                rendered: false,
            },
        })
    }

    fn new_row(n: u64, qualified: bool) -> RowWrite {
        RowWrite {
            key: row_key("ses_t", n),
            row: crate::wire::Row {
                id: crate::sessions::row_id(&row_key("ses_t", n)),
                turn: 1,
                source: crate::wire::RowSource {
                    domain: "a.example".into(),
                    url: format!("https://a.example/{n}"),
                    receipt_id: format!("rct_{n}"),
                },
                record: Default::default(),
                fulfillment: Default::default(),
                qualified,
                unchecked: None,
            },
            new: true,
            qualified_delta: i64::from(qualified),
            unchecked_delta: 0,
        }
    }

    fn stored(store: &Store) -> Session {
        store
            .read(|tx| super::super::get(tx, "ses_t"))
            .unwrap()
            .unwrap()
    }

    fn phases(store: &Store) -> Vec<(u64, String, Value)> {
        store
            .read(|tx| events::after(tx, "ses_t", 0, 1000))
            .unwrap()
            .into_iter()
            .map(|e| (e.seq, e.phase, e.data))
            .collect()
    }

    #[tokio::test]
    async fn everything_handed_over_commits_in_order() {
        let store = Store::in_memory().unwrap();
        running_session(&store);
        let mut progress = Progress::new(store.clone(), EventBus::default(), "ses_t", "acct_t");
        // Pushed without waiting: later pages gather behind the first write.
        for n in 1..=10u64 {
            progress
                .push(page(n, vec![new_row(n, n % 2 == 0)]))
                .await
                .unwrap();
            if n == 5 {
                let data = crate::wire::PagesNotRead {
                    reason: "unrelated",
                    pages: 1,
                    examples: vec!["https://a.example/private/".into()],
                };
                progress
                    .push(Effect::Event(EventData::NotRead(data)))
                    .await
                    .unwrap();
            }
        }
        // A row seen again is replaced in place, its mark undone.
        let again = RowWrite {
            new: false,
            qualified_delta: -1,
            ..new_row(2, false)
        };
        progress.push(page(11, vec![again])).await.unwrap();
        progress.flush().await.unwrap();

        let s = stored(&store);
        assert_eq!(s.receipts_signed, 11);
        assert_eq!(s.sources, 11);
        assert_eq!(s.row_count, 10);
        assert_eq!(s.records, 10);
        assert_eq!(s.qualified, 4, "5 even rows qualified, one replaced");
        assert_eq!(s.turn_receipts.len(), 11);
        assert_eq!(s.last_seq, 12);
        let events = phases(&store);
        let seqs: Vec<u64> = events.iter().map(|e| e.0).collect();
        assert_eq!(seqs, (1..=12).collect::<Vec<_>>());
        assert_eq!(events[5].1, "skipped", "the event sits where it was pushed");
        let pages: Vec<Value> = events
            .iter()
            .filter(|e| e.1 == "source")
            .map(|e| e.2["receipt_id"].clone())
            .collect();
        let receipts = (1..=11).map(|n| json!(format!("rct_{n}")));
        assert_eq!(pages, receipts.collect::<Vec<_>>());
        let row2 = store
            .read(|tx| tx.get_json(ROWS, &row_key("ses_t", 2)))
            .unwrap()
            .unwrap();
        assert!(!row2.qualified);
    }

    #[tokio::test]
    async fn nothing_is_written_after_the_session_ended() {
        let store = Store::in_memory().unwrap();
        let mut s = running_session(&store);
        s.status = Status::Stopped;
        store.write(|tx| super::super::put(tx, &s)).unwrap();
        let mut progress = Progress::new(store.clone(), EventBus::default(), "ses_t", "acct_t");
        progress
            .push(page(1, vec![new_row(1, true)]))
            .await
            .unwrap_or(());
        assert!(progress.flush().await.is_err());
        let s = stored(&store);
        assert_eq!((s.receipts_signed, s.row_count, s.last_seq), (0, 0, 0));
        assert!(phases(&store).is_empty());
    }

    #[tokio::test]
    async fn rows_out_of_step_with_the_session_are_refused_whole() {
        let store = Store::in_memory().unwrap();
        running_session(&store);
        let mut progress = Progress::new(store.clone(), EventBus::default(), "ses_t", "acct_t");
        // Row 2 before row 1: not the key the stored count gives.
        progress
            .push(page(1, vec![new_row(2, true)]))
            .await
            .unwrap_or(());
        assert!(progress.flush().await.is_err());
        assert_eq!(stored(&store).receipts_signed, 0);
    }
}
