//! A session's event log and the bus that wakes its readers.
//!
//! Each entry is `{seq, phase, at, data}`; `seq` counts from 1 per session
//! and is the SSE `id:`; `data` is written from its phase's type
//! ([`EventData`]). Terminal phases are `answered` (`delivered` for an
//! extraction), `abstain`, `error` and `stopped`; a stream ends after one
//! of them.

use serde_json::Value;
use tokio::sync::watch;

use super::Session;
use crate::store::{self, Tx, EVENTS};
use crate::wire;

/// What an event reports (its `phase`, the SSE `event:` name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// A turn started: its query and reservation.
    Started,
    /// The planner's reading of the query.
    Parsed,
    /// A page read: its receipt, rows and cost.
    Source,
    /// A page not read: disallowed by robots.txt.
    Skipped,
    /// A page no response came for (or missing from the recordings).
    FetchFailed,
    ExtractFailed,
    /// A page fetched that gave nothing billable: its outcome (blocked,
    /// login_required, not_found, rate_limited, needs_rendering,
    /// not_a_catalog) and the signal.
    Page,
    /// A follow-up turn was priced.
    Proposal,
    // The terminal phases: no event follows in the turn.
    Answered,
    Delivered,
    Abstain,
    Error,
    Stopped,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Started => "started",
            Phase::Parsed => "parsed",
            Phase::Source => "source",
            Phase::Skipped => "skipped",
            Phase::FetchFailed => "fetch_failed",
            Phase::ExtractFailed => "extract_failed",
            Phase::Page => "page",
            Phase::Proposal => "proposal",
            Phase::Answered => "answered",
            Phase::Delivered => "delivered",
            Phase::Abstain => "abstain",
            Phase::Error => "error",
            Phase::Stopped => "stopped",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Phase::Answered | Phase::Delivered | Phase::Abstain | Phase::Error | Phase::Stopped
        )
    }
}

/// Phases after which no event follows in a turn, as stored.
const TERMINAL: [Phase; 5] = [
    Phase::Answered,
    Phase::Delivered,
    Phase::Abstain,
    Phase::Error,
    Phase::Stopped,
];

pub use crate::wire::SessionEvent as Event;

impl Event {
    pub fn is_terminal(&self) -> bool {
        TERMINAL.iter().any(|p| p.as_str() == self.phase)
    }
}

fn key(session: &str, seq: u64) -> String {
    crate::key!(session, seq)
}

/// An event's phase with its data, typed per phase (the shapes are in
/// `wire::events`).
#[derive(Debug, Clone)]
pub enum EventData {
    TurnStarted(wire::TurnStarted),
    ExtractionStarted(wire::ExtractionStarted),
    RefreshStarted(wire::RefreshStarted),
    Parsed(wire::Parsed),
    Proposal(wire::ProposalMade),
    Source(wire::SourceRead),
    /// `page`, `skipped`, `fetch_failed` or `extract_failed`.
    Unbilled(Phase, wire::PageUnbilled),
    /// `skipped`: pages left unread as unrelated.
    NotRead(wire::PagesNotRead),
    /// One of the terminal phases.
    Ended(Phase, wire::TurnEnded),
}

impl EventData {
    pub fn phase(&self) -> Phase {
        match self {
            EventData::TurnStarted(_)
            | EventData::ExtractionStarted(_)
            | EventData::RefreshStarted(_) => Phase::Started,
            EventData::Parsed(_) => Phase::Parsed,
            EventData::Proposal(_) => Phase::Proposal,
            EventData::Source(_) => Phase::Source,
            EventData::NotRead(_) => Phase::Skipped,
            EventData::Unbilled(phase, _) | EventData::Ended(phase, _) => *phase,
        }
    }

    fn to_json(&self) -> serde_json::Result<Value> {
        match self {
            EventData::TurnStarted(d) => serde_json::to_value(d),
            EventData::ExtractionStarted(d) => serde_json::to_value(d),
            EventData::RefreshStarted(d) => serde_json::to_value(d),
            EventData::Parsed(d) => serde_json::to_value(d),
            EventData::Proposal(d) => serde_json::to_value(d),
            EventData::Source(d) => serde_json::to_value(d),
            EventData::Unbilled(_, d) => serde_json::to_value(d),
            EventData::NotRead(d) => serde_json::to_value(d),
            EventData::Ended(_, d) => serde_json::to_value(d),
        }
    }
}

/// Append an event in the caller's transaction; the session's `last_seq`
/// is advanced (the caller stores the session in the same transaction).
pub fn append(tx: &Tx, session: &mut Session, data: EventData) -> anyhow::Result<Event> {
    session.last_seq += 1;
    let phase = data.phase();
    let data = data.to_json()?;
    let said = |key: &str| data.get(key).and_then(Value::as_str).map(String::from);
    let event = Event {
        seq: session.last_seq,
        phase: phase.as_str().to_string(),
        at: crate::time::now(),
        code: (phase == Phase::Error).then(|| said("code")).flatten(),
        message: (phase == Phase::Error).then(|| said("message")).flatten(),
        reason: (phase == Phase::Abstain).then(|| said("reason")).flatten(),
        data,
    };
    store::put_json(tx, EVENTS, &key(&session.id, event.seq), &event)?;
    Ok(event)
}

/// Events after `after`, at most `limit`.
pub fn after(tx: &Tx, session: &str, after: u64, limit: usize) -> anyhow::Result<Vec<Event>> {
    let rows: Vec<(String, Event)> = tx.scan_json(
        EVENTS,
        &crate::prefix!(session),
        Some(&key(session, after)),
        limit,
        false,
    )?;
    Ok(rows.into_iter().map(|(_, e)| e).collect())
}

/// On a shared database, how often waiters look for events committed by
/// other nodes.
pub const SHARED_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// Wakes everyone waiting for new events, after each commit that wrote some.
#[derive(Clone)]
pub struct EventBus {
    tx: watch::Sender<u64>,
}

impl Default for EventBus {
    fn default() -> Self {
        EventBus {
            tx: watch::channel(0).0,
        }
    }
}

impl EventBus {
    /// Say that events were committed.
    pub fn publish(&self) {
        self.tx.send_modify(|n| *n += 1);
    }

    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.tx.subscribe()
    }
}
