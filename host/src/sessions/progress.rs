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

use super::events::{self, EventBus};
use crate::money::Micros;
use crate::store::{self, Queued, Store, RECEIPTS, ROWS, SESSION_RECEIPTS};

/// Effects gathered while a write is under way before the run waits for
/// it: enough to share the cost of a commit, few enough that a reader is
/// never far behind.
const MAX_PENDING: usize = 32;

/// What a run adds to its session.
pub(super) enum Effect {
    /// An event of the run (a skipped or failed page).
    Event { phase: &'static str, data: Value },
    /// A receipted page with its rows and its `source` event.
    Page(PageCommit),
}

/// One page's effects, decided by the run before they are written.
pub(super) struct PageCommit {
    pub receipt_id: String,
    pub receipt: Value,
    pub cost: Micros,
    pub rows: Vec<RowWrite>,
    /// The data of the page's `source` event.
    pub event: Value,
}

/// A row stored under `key`: a new one, or one the run wrote before,
/// replaced in place.
pub(super) struct RowWrite {
    pub key: String,
    pub row: Value,
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
    pending: Vec<Effect>,
    in_flight: Option<Queued<(), anyhow::Error>>,
}

impl Progress {
    pub(super) fn new(store: Store, bus: EventBus, session: &str) -> Progress {
        Progress {
            store,
            bus,
            session: session.to_string(),
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
        self.in_flight = Some(
            self.store
                .queue_relaxed(move |tx| -> anyhow::Result<()> { apply(tx, &id, effects) }),
        );
    }
}

/// Write `effects` in order, in the caller's transaction. Refused as a
/// whole when the session has ended meanwhile (a stop): nothing follows its
/// terminal event, and a page not written is never billed.
fn apply(tx: &redb::WriteTransaction, id: &str, effects: Vec<Effect>) -> anyhow::Result<()> {
    let mut s = super::get(tx, id)?.ok_or_else(|| anyhow::anyhow!("session {id} vanished"))?;
    if !s.is_running() {
        anyhow::bail!("session {id} is no longer running");
    }
    for effect in effects {
        match effect {
            Effect::Event { phase, data } => {
                events::append(tx, &mut s, phase, data)?;
            }
            Effect::Page(page) => {
                s.receipts_signed += 1;
                s.sources += 1;
                store::put_json(tx, RECEIPTS, &page.receipt_id, &page.receipt)?;
                tx.open_table(SESSION_RECEIPTS)?.insert(
                    format!("{id}:{}", store::pad(s.receipts_signed)).as_str(),
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
                            row.key == format!("{id}:{}", store::pad(s.row_count)),
                            "row {} out of step with the session's {} rows",
                            row.key,
                            s.row_count
                        );
                    }
                    s.qualified = adjust(s.qualified, row.qualified_delta)?;
                    s.unchecked = adjust(s.unchecked, row.unchecked_delta)?;
                    store::put_json(tx, ROWS, &row.key, &row.row)?;
                }
                events::append(tx, &mut s, "source", page.event)?;
            }
        }
    }
    s.updated_at = crate::time::now();
    super::put(tx, &s)
}

fn adjust(count: u64, delta: i64) -> anyhow::Result<u64> {
    count
        .checked_add_signed(delta)
        .ok_or_else(|| anyhow::anyhow!("a session count would go below zero"))
}
