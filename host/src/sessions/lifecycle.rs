//! A run's lifecycle: every transition that moves money or writes its
//! events, each inside one transaction.
//!
//! - **Open** (`open`, the one way every kind of run starts: session, turn,
//!   session refresh, extraction, batch, extraction refresh, monitor run):
//!   the account's run slot, a claim per run, then one transaction with the
//!   runs-in-flight check, the caller's own checks, each turn's caps,
//!   reservation (and balance.low), opening events and stored session, and
//!   the idempotent answer; then the runs start. A refusal is a [`Refused`],
//!   which the HTTP layer renders.
//! - **Commit a page**: `progress` (its receipt, rows, counters and
//!   `source` event together).
//! - **End a turn** (`end_in`, through `finish`): settle exactly the
//!   turn's receipts, release the rest, the terminal event, the webhook
//!   (and balance.low).

use std::sync::Arc;

use axum::http::StatusCode;

use super::events::{self, EventData, Phase};
use super::runs::RunClaim;
use super::{run, Kind, Session, Status, StopReason};
use crate::auth::Caller;
use crate::idempotency::Idem;
use crate::ledger::{self, LedgerError};
use crate::limits::{RunSlot, SlotsFull};
use crate::money::Micros;
use crate::state::AppState;
use crate::store::{Scope, Tx};
use crate::wire::{self, Usd};

/// Why a run did not open: nothing was reserved or stored.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The account's runs in flight are at the cap (on this node, or across
    /// nodes on a shared database).
    #[error("too many runs in flight for this account")]
    RunsInFlight(SlotsFull),
    #[error("max_spend_usd exceeds this key's per-session cap")]
    SessionCap { cap: Micros, requested: Micros },
    #[error("this request would exceed the account's monthly spend cap")]
    MonthlyCap { cap: Micros, spent: Micros },
    #[error("the available balance cannot cover the reservation")]
    InsufficientCredit {
        balance: Micros,
        open_reserves: Micros,
        top_up_url: String,
    },
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

impl From<SlotsFull> for Refused {
    fn from(full: SlotsFull) -> Refused {
        Refused::RunsInFlight(full)
    }
}

/// A run about to open: its session as it starts (id, kind, spend cap) and
/// its opening events, `started` first.
pub(crate) struct Opening {
    pub session: Session,
    pub events: Vec<EventData>,
    /// A refresh served from this earlier delivery: its rows are the run's,
    /// nothing is reserved or fetched, and it ends as it opens, at $0.
    pub served_from: Option<Session>,
}

impl Opening {
    /// A run that reserves its spend cap and then reads.
    pub fn run(session: Session, events: Vec<EventData>) -> Opening {
        Opening {
            session,
            events,
            served_from: None,
        }
    }

    /// A refresh served from `record`, an earlier delivery of its page.
    pub fn served(session: Session, events: Vec<EventData>, record: Session) -> Opening {
        Opening {
            session,
            events,
            served_from: Some(record),
        }
    }
}

/// Runs that opened and committed, not yet started: `start` spawns them,
/// `end_at_once` ends them without a fetch (a declined or unreadable query).
pub(crate) struct Opened<A> {
    pub sessions: Vec<Session>,
    pub answer: A,
    slot: Arc<RunSlot>,
    claims: Vec<RunClaim>,
}

impl<A> Opened<A> {
    /// Spawns the runs that opened running (a run served from the record
    /// ended as it opened: its webhook is due now).
    pub(crate) fn start(self, state: &AppState) -> (Vec<Session>, A) {
        for (s, claim) in self.sessions.iter().zip(self.claims) {
            if s.is_running() {
                run::spawn(state.clone(), s.clone(), self.slot.clone(), claim);
            } else {
                state.webhooks.kick();
            }
        }
        (self.sessions, self.answer)
    }

    pub(crate) async fn end_at_once(
        self,
        state: &AppState,
        outcome: Outcome,
    ) -> anyhow::Result<(Vec<Session>, A)> {
        for s in &self.sessions {
            finish(state, &s.id, outcome.clone()).await?;
        }
        Ok((self.sessions, self.answer))
    }
}

/// Opens runs sharing one slot of the account's runs in flight (a batch
/// counts as one run). `ids` are the runs' session ids, claimed before the
/// commit so that a running session always has a claim the watchdog sees;
/// `prepare` makes the sessions inside the transaction (after the
/// runs-in-flight check), and may refuse with its own error; `answer` is the
/// response, stored with `idem` in the same transaction.
pub(crate) async fn open<A, E>(
    state: &AppState,
    caller: &Caller,
    ids: &[String],
    idem: Option<&Idem>,
    prepare: impl FnOnce(&Tx) -> Result<Vec<Opening>, E> + Send + 'static,
    answer: impl FnOnce(&[Session]) -> A + Send + 'static,
) -> Result<Opened<A>, E>
where
    A: serde::Serialize + Send + 'static,
    E: From<Refused> + From<anyhow::Error> + Send + 'static,
{
    let slot = Arc::new(
        state
            .run_slots
            .acquire(caller.scope_key())
            .map_err(Refused::from)?,
    );
    let claims: Vec<RunClaim> = ids.iter().map(|id| state.runs.claim(id)).collect();
    let (opener, idem) = (Opener::new(state, caller), idem.cloned());
    let public_url = state.config.public_url();
    let (sessions, answer) = state
        .store
        .write_async_in(Scope::account(&caller.account.id), move |tx| {
            opener.check_runs_in_flight(tx)?;
            let mut sessions = Vec::new();
            // What this transaction has reserved so far (a batch's earlier
            // runs): a refusal rolls it back, so it does not report it.
            let mut reserved = Micros(0);
            for Opening {
                mut session,
                events,
                served_from,
            } in prepare(tx)?
            {
                match served_from {
                    None => {
                        opener.open_turn(tx, &mut session, events, reserved)?;
                        reserved = reserved + session.max_spend;
                    }
                    Some(record) => {
                        serve_in(tx, &mut session, &record, events)?;
                        let from = record.id.clone();
                        end_in(tx, &mut session, Outcome::Served { from }, &public_url)?;
                    }
                }
                sessions.push(session);
            }
            let answer = answer(&sessions);
            if let Some(idem) = &idem {
                idem.complete_in(tx, StatusCode::CREATED, &answer)?;
            }
            Ok::<_, E>((sessions, answer))
        })
        .await?;
    state.bus.publish();
    Ok(Opened {
        sessions,
        answer,
        slot,
        claims,
    })
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Answered,
    /// Delivered from an earlier delivery (`from`) without reading, at $0.
    Served {
        from: String,
    },
    Abstained {
        reason: String,
    },
    Error {
        code: StreamCode,
        message: String,
    },
    Stopped {
        stop: StopReason,
        reason: String,
    },
}

/// The code of a run that ended in error (SPEC §7.5, stream-terminal codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamCode {
    /// The host failed (a panic, a lost run, a crash).
    Internal,
    /// The planner could not read the query.
    ParseFailed,
    /// A source could not be read (replay, search, an unconfigured provider).
    ProviderUnavailable,
    /// An extraction's page ended in this outcome (not `ok`).
    Page(crate::fetch::outcome::PageOutcome),
}

impl StreamCode {
    pub fn as_str(self) -> &'static str {
        match self {
            StreamCode::Internal => "internal",
            StreamCode::ParseFailed => "parse_failed",
            StreamCode::ProviderUnavailable => "provider_unavailable",
            StreamCode::Page(outcome) => outcome.as_str(),
        }
    }
}

/// What opening runs needs from the server, taken before the transaction
/// that opens them: the caller, the cap on runs in flight across nodes,
/// and where a short balance is topped up.
struct Opener {
    caller: Caller,
    /// On a shared database, the account's cap on runs in flight on every
    /// node (each node's own slots see only its own runs).
    shared_run_cap: Option<u64>,
    top_up_url: String,
}

impl Opener {
    fn new(state: &AppState, caller: &Caller) -> Opener {
        Opener {
            caller: caller.clone(),
            shared_run_cap: state
                .store
                .is_shared()
                .then_some(state.config.max_runs_in_flight as u64),
            top_up_url: format!("{}/dashboard", state.config.public_url()),
        }
    }

    /// The runs-in-flight cap across nodes, checked once at the start of the
    /// transaction that opens a run (or a batch of them).
    fn check_runs_in_flight(&self, tx: &Tx) -> Result<(), Refused> {
        let Some(limit) = self.shared_run_cap else {
            return Ok(());
        };
        let caller = &self.caller;
        let in_flight = crate::sessions::running_in(tx, &caller.account.id, caller.mode())?;
        if in_flight >= limit {
            return Err(Refused::RunsInFlight(SlotsFull { limit, in_flight }));
        }
        Ok(())
    }

    /// Open a turn in the caller's transaction: the caps, the reservation
    /// of `s.max_spend` (with balance.low), `events` in order (the first is
    /// `started`), and the stored session. `reserved_before` is what the
    /// transaction reserved for earlier runs of the same request.
    fn open_turn(
        &self,
        tx: &Tx,
        s: &mut Session,
        events: Vec<EventData>,
        reserved_before: Micros,
    ) -> Result<(), Refused> {
        self.check_caps(tx, s.max_spend)?;
        s.reservation = self.reserve(tx, s.max_spend, &s.id, reserved_before)?.id;
        for data in events {
            events::append(tx, s, data)?;
        }
        super::put(tx, s)?;
        Ok(())
    }

    /// The key's per-session cap and the account's monthly cap; refusals
    /// carry their context.
    fn check_caps(&self, tx: &Tx, amount: Micros) -> Result<(), Refused> {
        let caller = &self.caller;
        if let Some(cap) = caller.key.session_cap {
            if amount > cap {
                return Err(Refused::SessionCap {
                    cap,
                    requested: amount,
                });
            }
        }
        if let Some(cap) = caller.account.monthly_cap {
            let spent = ledger::spent_this_month(tx, &caller.account.id, caller.mode())?;
            let open = ledger::balance(tx, &caller.account.id, caller.mode())?.open_reserves;
            if spent + open + amount > cap {
                return Err(Refused::MonthlyCap { cap, spent });
            }
        }
        Ok(())
    }

    /// Reserve `amount` for `purpose` (a run's id): too little available is
    /// 402 insufficient_credit with the balance and the open reserves as
    /// they stand once the refusal rolls this transaction back (without
    /// `reserved_before`); crossing the low-balance threshold enqueues
    /// balance.low.
    fn reserve(
        &self,
        tx: &Tx,
        amount: Micros,
        purpose: &str,
        reserved_before: Micros,
    ) -> Result<ledger::Reservation, Refused> {
        let (account, mode) = (&self.caller.account.id, self.caller.mode());
        let before = ledger::balance(tx, account, mode)?;
        let r = ledger::reserve(tx, account, mode, amount, purpose).map_err(|e| match e {
            LedgerError::Insufficient(b) => Refused::InsufficientCredit {
                balance: b.balance,
                open_reserves: Micros(b.open_reserves.0.saturating_sub(reserved_before.0)),
                top_up_url: self.top_up_url.clone(),
            },
            other => Refused::Failed(anyhow::anyhow!("{other}")),
        })?;
        let after = ledger::balance(tx, account, mode)?;
        crate::webhooks::balance_changed(tx, account, mode, &before, &after)?;
        Ok(r)
    }
}

/// End a run: settle its receipts, release the rest, set the status, append
/// the terminal event and enqueue the notification, in one transaction.
pub async fn finish(state: &AppState, session_id: &str, outcome: Outcome) -> anyhow::Result<()> {
    end_run(state, session_id, outcome, false).await
}

/// A run's own end: only while this node still runs the session (if it was
/// judged dead and another node ended it, perhaps a new turn runs now).
pub async fn finish_own(
    state: &AppState,
    session_id: &str,
    outcome: Outcome,
) -> anyhow::Result<()> {
    end_run(state, session_id, outcome, true).await
}

async fn end_run(
    state: &AppState,
    session_id: &str,
    outcome: Outcome,
    own_only: bool,
) -> anyhow::Result<()> {
    let id = session_id.to_string();
    let public_url = state.config.public_url();
    let ended = state
        .store
        .write_async_in(
            session_scope(state, &id).await?,
            move |tx| -> anyhow::Result<bool> {
                let Some(mut s) = super::get(tx, &id)? else {
                    return Ok(false);
                };
                if !s.is_running() {
                    return Ok(false);
                }
                if own_only && super::runner(tx, &id)?.as_deref() != Some(tx.node()) {
                    return Ok(false);
                }
                end_in(tx, &mut s, outcome, &public_url)?;
                Ok(true)
            },
        )
        .await?;
    if ended {
        state.bus.publish();
        state.webhooks.kick();
    }
    Ok(())
}

/// The scope of a write to a session: its account's (an account never
/// changes), read first on a shared database, where scopes are locks.
pub async fn session_scope(state: &AppState, id: &str) -> anyhow::Result<Scope> {
    if !state.store.is_shared() {
        return Ok(Scope::All);
    }
    let id = id.to_string();
    let account = state
        .store
        .read_async(move |tx| super::get(tx, &id))
        .await?
        .map(|s| s.account);
    Ok(account.map_or(Scope::All, |a| Scope::Account(a)))
}

/// What ending differs in between kinds of run, as data: the terminal
/// phase of each end and the webhook type it sends (SPEC §6.3).
impl Kind {
    fn terminal(self, status: Status) -> (Phase, &'static str) {
        let phase = match status {
            Status::Answered if self == Kind::Extraction => Phase::Delivered,
            Status::Answered => Phase::Answered,
            Status::Abstained => Phase::Abstain,
            Status::Error => Phase::Error,
            Status::Stopped | Status::Running => Phase::Stopped,
        };
        let webhook = match (self, status) {
            (Kind::Extraction, Status::Answered) => "extraction.delivered",
            (Kind::Extraction, _) => "extraction.failed",
            (Kind::Session, Status::Answered) => "session.answered",
            (Kind::Session, Status::Abstained) => "session.abstained",
            (Kind::Session, Status::Error) => "session.error",
            (Kind::Session, _) => "session.stopped",
        };
        (phase, webhook)
    }
}

/// Opens a refresh served from `record` in the caller's transaction: the
/// record's rows and what it read become the run's, and its opening events
/// are written; `end_in` ends it at $0.
fn serve_in(
    tx: &Tx,
    s: &mut Session,
    record: &Session,
    events: Vec<EventData>,
) -> anyhow::Result<()> {
    s.row_count = super::copy_rows(tx, &record.id, &s.id)?;
    s.records = record.records;
    s.qualified = record.qualified;
    s.unchecked = record.unchecked;
    s.claim = record.claim.clone();
    s.receipt_id = record.receipt_id.clone();
    s.served_from = Some("record".into());
    s.outcome = record.outcome;
    s.completeness = record.completeness.clone();
    s.diff = Some(wire::DiffCounts::default());
    for data in events {
        events::append(tx, s, data)?;
    }
    Ok(())
}

/// The terminal transition, inside the caller's transaction.
pub fn end_in(tx: &Tx, s: &mut Session, outcome: Outcome, public_url: &str) -> anyhow::Result<()> {
    let before = crate::ledger::balance(tx, &s.account, s.mode)?;
    if s.kind == Kind::Extraction {
        // An extraction reads one page: its receipt and the claim it states.
        if let Some((id, _)) = s.turn_receipts.first() {
            let receipt = crate::receipts::get(tx, id)?;
            s.claim = receipt.and_then(|r| r["claim"].as_str().map(str::to_string));
            s.receipt_id = Some(id.clone());
        }
    }
    // A run served from the record reserved nothing.
    let (settled, released) = if s.served_from.is_some() {
        (Micros::ZERO, Micros::ZERO)
    } else {
        let r = crate::ledger::resolve(tx, &s.reservation, &s.turn_receipts)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        (r.settled, r.released)
    };
    s.settled += settled;
    s.released += released;
    s.turn_receipts.clear();
    tx.remove(crate::store::STOP_REQUESTS, &s.id)?;
    s.ended_at = Some(crate::time::now());
    s.updated_at = crate::time::now();
    let mut data = wire::TurnEnded {
        status: "",
        // An extraction's log names it as an extraction, without turns.
        session_id: (s.kind == Kind::Session).then(|| s.id.clone()),
        extraction_id: (s.kind == Kind::Extraction).then(|| s.id.clone()),
        turn: (s.kind == Kind::Session).then_some(s.turn),
        served_from: None,
        settled_usd: settled.into(),
        released_usd: released.into(),
        records: s.records,
        qualified: Some(s.qualified),
        sources: Some(s.sources),
        receipts_signed: Some(s.receipts_signed),
        reason: None,
        code: None,
        message: None,
        phase: None,
        stop: None,
    };
    match outcome {
        Outcome::Answered => {
            s.status = Status::Answered;
            s.reason = Some(match s.kind {
                Kind::Extraction => "the page was read".into(),
                Kind::Session => "the run read every source it found".into(),
            });
        }
        Outcome::Served { from } => {
            s.status = Status::Answered;
            s.reason = Some(format!("served from {from} at $0"));
            data = wire::TurnEnded::served_from_record(s.records);
        }
        Outcome::Abstained { reason } => {
            s.status = Status::Abstained;
            data.reason = Some(reason.clone());
            s.reason = Some(reason);
        }
        Outcome::Error { code, message } => {
            s.status = Status::Error;
            s.error = Some((code.as_str().to_string(), message.clone()));
            data.code = Some(code.as_str());
            data.message = Some(message.clone());
            data.reason = Some(message.clone());
            data.phase = Some("error");
            s.reason = Some(message);
        }
        Outcome::Stopped { stop, reason } => {
            s.status = Status::Stopped;
            s.stop = Some(stop);
            data.stop = Some(stop.as_str());
            data.reason = Some(reason.clone());
            s.reason = Some(reason);
        }
    }
    data.status = s.status_str();
    let (phase, webhook) = s.kind.terminal(s.status);
    events::append(tx, s, EventData::Ended(phase, data))?;
    super::put(tx, s)?;
    // The notification carries summaries and ids, never rows.
    let own_url = s.webhook_url.as_deref();
    match (s.kind, s.status) {
        (Kind::Extraction, _) => crate::webhooks::emit(
            tx,
            &s.account,
            s.mode,
            webhook,
            s.extraction_ended(),
            own_url,
        )?,
        (Kind::Session, Status::Answered) => crate::webhooks::emit(
            tx,
            &s.account,
            s.mode,
            webhook,
            wire::SessionAnsweredData {
                session_id: s.id.clone(),
                status: "answered",
                turn: s.turn,
                qualified: s.qualified,
                records: s.records,
                sources: s.sources,
                receipts_signed: s.receipts_signed,
                spend_usd: Usd(s.settled),
                result_url: format!("{public_url}/v1/sessions/{}/result", s.id),
            },
            own_url,
        )?,
        (Kind::Session, _) => crate::webhooks::emit(
            tx,
            &s.account,
            s.mode,
            webhook,
            wire::SessionEndedData {
                session_id: s.id.clone(),
                status: s.status.as_str(),
                reason: s.reason.clone().unwrap_or_default(),
                settled_usd: Usd(settled),
                released_usd: Usd(released),
                records: s.records,
                stop: s.stop.clone(),
            },
            own_url,
        )?,
    }
    let after = crate::ledger::balance(tx, &s.account, s.mode)?;
    crate::webhooks::balance_changed(tx, &s.account, s.mode, &before, &after)?;
    Ok(())
}

/// More than the events one run can commit between two durable commits
/// (a few per page read, and a turn reads a bounded number of pages).
const LOST_EVENT_NUMBERS: u64 = 10_000;

/// After a crash: end every run this node had in flight as error
/// (internal), settling exactly the receipts it committed and releasing the
/// rest. On redb that is every running session; on a shared database, those
/// marked with this node (other nodes' runs go by their leases).
pub fn recover_orphans(store: &crate::store::Store, public_url: &str) -> anyhow::Result<usize> {
    let shared = store.is_shared();
    store.write(|tx| -> anyhow::Result<usize> {
        let mine: std::collections::HashSet<String> = super::running_owners(tx)?
            .into_iter()
            .filter(|(_, node)| !shared || node == tx.node())
            .map(|(id, _)| id)
            .collect();
        let orphans: Vec<Session> = super::running(tx)?
            .into_iter()
            .filter(|s| mine.contains(&s.id))
            .collect();
        for mut s in orphans.clone() {
            // Events the run committed after the last durable commit were
            // lost with the crash, yet may have been read (a stream, the
            // event log): the terminal event is numbered past any of them,
            // so a stream resumed from a lost number still ends with it.
            s.last_seq += LOST_EVENT_NUMBERS;
            end_in(
                tx,
                &mut s,
                Outcome::Error {
                    code: StreamCode::Internal,
                    message: "the server stopped during the run; its receipts were settled".into(),
                },
                public_url,
            )?;
        }
        Ok(orphans.len())
    })
}
