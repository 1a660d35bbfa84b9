//! Sessions: a natural-language query answered with rows and receipts.
//!
//! - `api`: the routes (estimate, create, list, read, events, stream, result,
//!   rows, receipts, turns, stop).
//! - `run`: one turn's run, from the planner to the terminal event.
//! - `events`: the event log and the bus that wakes its readers.
//! - `progress`: a run's pages and events on their way to the database.
//! - `constraints`: rows checked against the parsed constraints.
//! - `sources`: robots.txt, sitemaps and the crawl frontier.
//! - `testmode`: the sentinels of fn_test_ keys.

pub mod api;
pub mod constraints;
pub mod events;
pub mod intent;
pub mod lifecycle;
pub mod opening;
mod progress;
pub(crate) mod proposals;
mod reading;
pub mod redaction;
pub mod run;
pub mod runs;
pub mod sources;
pub mod testmode;
pub mod watchdog;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::accounts::Mode;
use crate::money::Micros;
use crate::store::{
    self, Tx, ROWS, RUNNING_BY_SCOPE, RUNNING_SESSIONS, SESSION_INDEX, SESSION_RECEIPTS,
};

/// `sessions`, read and written through this module only.
const SESSIONS: store::Table<Session> = store::SESSIONS.holding();

/// The states of SPEC §3.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Running,
    Answered,
    Abstained,
    Error,
    Stopped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Answered => "answered",
            Status::Abstained => "abstained",
            Status::Error => "error",
            Status::Stopped => "stopped",
        }
    }

    /// Can a follow-up turn start from this status?
    pub fn accepts_turns(self) -> bool {
        matches!(self, Status::Answered | Status::Stopped)
    }
}

pub use crate::wire::StopReason;

/// What a stored run is: a session (a query over sites, in turns) or an
/// extraction (one known URL read once). Both share the run, its money,
/// its events, rows and receipts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    #[default]
    Session,
    Extraction,
}

/// A stored session (or extraction, see [`Kind`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    pub id: String,
    #[serde(default)]
    pub kind: Kind,
    /// An extraction's page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// An extraction's entity (what one row is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// An extraction's receipt and its claim, once its page is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    /// A refresh: the run it refreshes (SPEC §2.1 `refresh_of`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_of: Option<String>,
    /// `record` when a refresh was served from an earlier delivery at $0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_from: Option<String>,
    /// A refresh's rows against the delivery it refreshes: counts `added`,
    /// `removed`, `changed` (and `price_moves`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<crate::wire::DiffCounts>,
    /// The delivery a refresh's diff is computed against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_base: Option<String>,
    /// Its customer data was erased (see `redaction`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
    pub account: String,
    pub mode: Mode,
    pub key_id: String,
    pub status: Status,
    /// spend-budget, query-budget or stopped, when status is stopped.
    pub stop: Option<StopReason>,
    /// The stream code and message, when status is error.
    pub error: Option<(String, String)>,
    /// Why the run ended as it did (abstain reason, stop reason, ...).
    pub reason: Option<String>,
    /// The current turn, from 1.
    pub turn: u32,
    /// The current turn's query.
    pub query: String,
    pub guidance: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    pub webhook_url: Option<String>,
    /// The parsed intent of the current turn.
    pub parsed: Value,
    /// The most one turn may spend.
    pub max_spend: Micros,
    /// The current turn's reservation.
    pub reservation: String,
    /// Receipts of the current turn and their costs: what its reservation settles.
    pub turn_receipts: Vec<(String, Micros)>,
    /// Settled over all finished turns.
    pub settled: Micros,
    /// Released over all finished turns.
    pub released: Micros,
    pub records: u64,
    pub qualified: u64,
    pub unchecked: u64,
    pub sources: u64,
    pub receipts_signed: u64,
    /// Rows stored so far (their keys are `session:<n>`).
    pub row_count: u64,
    /// The last event's sequence number.
    pub last_seq: u64,
    pub created_at: String,
    pub updated_at: String,
    pub ended_at: Option<String>,
    /// An extraction's page outcome, once its page was tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<crate::fetch::outcome::PageOutcome>,
    /// How much of the catalog the last turn read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completeness: Option<crate::wire::Completeness>,
    /// An earlier delivery of the same page whose validators this run sends
    /// (refreshes and monitor runs); a 304 serves its rows again at $0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditional_on: Option<String>,
    /// The validators of an extraction's page, for a refresh's conditional request.
    #[serde(default, skip_serializing_if = "crate::fetch::Validators::is_empty")]
    pub validators: crate::fetch::Validators,
    /// An extraction's choice of rendering; `None`: the node's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render: Option<crate::render::RenderMode>,
}

impl Session {
    /// The payload of extraction.delivered / extraction.failed (SPEC §6.3):
    /// ids and summaries, never rows.
    pub fn extraction_ended(&self) -> crate::wire::ExtractionEndedData {
        let delivered = self.status == Status::Answered;
        crate::wire::ExtractionEndedData {
            extraction_id: self.id.clone(),
            url: self.url.clone(),
            status: self.status_str(),
            records: self.records,
            claim: self.claim.clone(),
            receipt_id: self.receipt_id.clone(),
            spend_usd: crate::wire::Usd(self.settled),
            reason: self.reason.clone().filter(|_| !delivered),
        }
    }

    /// A new running run of `kind` for the caller, reserving `max_spend`
    /// once opened: turn 1, nothing read, nothing spent. The caller fills
    /// in what the kind asks for (query, URL, entity, ...).
    pub fn new(id: String, kind: Kind, caller: &crate::auth::Caller, max_spend: Micros) -> Session {
        let now = crate::time::now();
        Session {
            id,
            kind,
            url: None,
            entity: None,
            receipt_id: None,
            claim: None,
            redacted: false,
            refresh_of: None,
            served_from: None,
            diff: None,
            diff_base: None,
            account: caller.account.id.clone(),
            mode: caller.mode(),
            key_id: caller.key.id.clone(),
            status: Status::Running,
            stop: None,
            error: None,
            reason: None,
            turn: 1,
            query: String::new(),
            guidance: None,
            metadata: None,
            webhook_url: None,
            parsed: Value::Null,
            max_spend,
            reservation: String::new(),
            turn_receipts: Vec::new(),
            settled: Micros::ZERO,
            released: Micros::ZERO,
            records: 0,
            qualified: 0,
            unchecked: 0,
            sources: 0,
            receipts_signed: 0,
            row_count: 0,
            last_seq: 0,
            created_at: now.clone(),
            updated_at: now,
            ended_at: None,
            outcome: None,
            completeness: None,
            validators: Default::default(),
            conditional_on: None,
            render: None,
        }
    }

    /// The status as the API shows it: an extraction that read its page is
    /// `delivered` (SPEC §3.1), a session that did is `answered`.
    pub fn status_str(&self) -> &'static str {
        match (self.kind, self.status) {
            (Kind::Extraction, Status::Answered) => "delivered",
            (_, status) => status.as_str(),
        }
    }

    pub fn is_running(&self) -> bool {
        self.status == Status::Running
    }

    /// Spend of the current turn so far (receipts not yet settled).
    pub fn pending_spend(&self) -> Micros {
        if self.is_running() {
            self.turn_receipts.iter().map(|(_, c)| *c).sum()
        } else {
            Micros::ZERO
        }
    }

    /// Held now: the turn's cap while it runs, else nothing.
    pub fn reserved(&self) -> Micros {
        if self.is_running() {
            self.max_spend
        } else {
            Micros::ZERO
        }
    }

    /// Settled plus the signed spend of the running turn.
    pub fn spend(&self) -> Micros {
        self.settled + self.pending_spend()
    }

    fn error_wire(&self) -> Option<crate::wire::SessionError> {
        self.error
            .as_ref()
            .map(|(code, message)| crate::wire::SessionError {
                code: code.clone(),
                message: message.clone(),
            })
    }

    /// The session as the API shows it.
    pub fn to_wire(&self, public_url: &str) -> crate::wire::Session {
        use crate::wire::Usd;
        crate::wire::Session {
            id: self.id.clone(),
            object: "session",
            livemode: self.mode.livemode(),
            status: self.status.as_str(),
            stop: self.stop,
            error: self.error_wire(),
            reason: self.reason.clone(),
            turn: self.turn,
            query: self.query.clone(),
            parsed: self.parsed.clone(),
            guidance: self.guidance.clone(),
            metadata: self.metadata.clone(),
            webhook_url: self.webhook_url.clone(),
            max_spend_usd: Usd(self.max_spend),
            reserved_usd: Usd(self.reserved()),
            spend_usd: Usd(self.spend()),
            settled_usd: Usd(self.settled),
            released_usd: Usd(self.released),
            records: self.records,
            qualified: self.qualified,
            unchecked: self.unchecked,
            sources: self.sources,
            receipts_signed: self.receipts_signed,
            result_url: format!("{public_url}/v1/sessions/{}/result", self.id),
            created_at: self.created_at.clone(),
            updated_at: self.updated_at.clone(),
            ended_at: self.ended_at.clone(),
            diff: self.diff.clone(),
            redacted: self.redacted.then_some(true),
        }
    }

    /// The extraction as the API shows it (SPEC §2.1).
    pub fn to_extraction_wire(&self, public_url: &str) -> crate::wire::Extraction {
        use crate::wire::Usd;
        debug_assert_eq!(self.kind, Kind::Extraction);
        crate::wire::Extraction {
            id: self.id.clone(),
            object: "extraction",
            livemode: self.mode.livemode(),
            status: self.status_str(),
            url: self.url.clone(),
            entity: self.entity.clone(),
            claim: self.claim.clone(),
            records: self.records,
            qualified: self.qualified,
            spend_usd: Usd(self.spend()),
            max_spend_usd: Usd(self.max_spend),
            reserved_usd: Usd(self.reserved()),
            settled_usd: Usd(self.settled),
            released_usd: Usd(self.released),
            receipt_id: self.receipt_id.clone(),
            outcome: self.outcome.map(|o| o.as_str().to_string()),
            completeness: self.completeness.clone(),
            refresh_of: self.refresh_of.clone(),
            served_from: self.served_from.clone(),
            diff: self.diff.clone(),
            redacted: self.redacted.then_some(true),
            stop: self.stop,
            error: self.error_wire(),
            reason: self.reason.clone(),
            guidance: self.guidance.clone(),
            metadata: self.metadata.clone(),
            webhook_url: self.webhook_url.clone(),
            result_url: format!("{public_url}/v1/extractions/{}/result", self.id),
            created_at: self.created_at.clone(),
            updated_at: self.updated_at.clone(),
            ended_at: self.ended_at.clone(),
        }
    }
}

/// The listing index key: sessions under `account:mode:`, extractions
/// under `ext:account:mode:` (account ids never start with `ext:`).
fn index_key(s: &Session) -> String {
    let micros = crate::time::parse(&s.created_at)
        .map(|t| t.timestamp_micros())
        .unwrap_or(0)
        .max(0) as u64;
    format!(
        "{}{}",
        index_prefix(s.kind),
        crate::key!(s.account, s.mode, micros, s.id)
    )
}

fn index_prefix(kind: Kind) -> &'static str {
    match kind {
        Kind::Session => "",
        Kind::Extraction => "ext:",
    }
}

pub fn get(tx: &Tx, id: &str) -> anyhow::Result<Option<Session>> {
    tx.get_json(SESSIONS, id)
}

/// Store a session (and its listing index entry on first write), and keep
/// the set of running sessions in step with its status.
pub fn put(tx: &Tx, s: &Session) -> anyhow::Result<()> {
    store::put_json(tx, SESSIONS, &s.id, s)?;
    tx.put_str(SESSION_INDEX, index_key(s).as_str(), s.id.as_str())?;
    let by_scope = crate::key!(s.account, s.mode, s.id);
    if s.is_running() {
        // Marked, when it starts to run, with the node whose transaction
        // made it run: the node running it, which its lease stands for.
        // Later writes (its pages, a proposal read elsewhere) keep the mark.
        if tx.get_str(RUNNING_SESSIONS, &s.id)?.is_none() {
            tx.put_str(RUNNING_SESSIONS, &s.id, tx.node())?;
            tx.put_str(RUNNING_BY_SCOPE, &by_scope, tx.node())?;
        }
    } else {
        tx.remove(RUNNING_SESSIONS, &s.id)?;
        tx.remove(RUNNING_BY_SCOPE, &by_scope)?;
    }
    Ok(())
}

/// How many sessions and extractions of an account and mode are running,
/// on whatever node.
pub fn running_in(tx: &Tx, account: &str, mode: Mode) -> anyhow::Result<u64> {
    let prefix = crate::prefix!(account, mode);
    Ok(tx
        .scan_str(RUNNING_BY_SCOPE, &prefix, None, usize::MAX, false)?
        .len() as u64)
}

/// A session's rows in the order first seen: after row number `after`
/// (0 for the first), at most `limit`.
pub fn rows(tx: &Tx, id: &str, after: u64, limit: usize) -> anyhow::Result<Vec<crate::wire::Row>> {
    let start = progress::row_key(id, after);
    let stored: Vec<(String, crate::wire::Row)> =
        tx.scan_json(ROWS, &crate::prefix!(id), Some(&start), limit, false)?;
    let rows = stored.into_iter().map(|(key, mut row)| {
        // Rows stored by earlier versions do not hold their id.
        row.id = row_id(&key);
        row
    });
    Ok(rows.collect())
}

/// A row's id: `row_<n>`, its place in the run, from its storage key.
pub fn row_id(key: &str) -> String {
    let n = key
        .rsplit(':')
        .next()
        .unwrap_or("0")
        .trim_start_matches('0');
    format!("row_{}", if n.is_empty() { "0" } else { n })
}

/// Copy the rows of run `from` to run `to` (a refresh served from an
/// earlier delivery): the same rows, numbered from 1. Returns how many.
pub fn copy_rows(tx: &Tx, from: &str, to: &str) -> anyhow::Result<u64> {
    let rows: Vec<(String, crate::wire::Row)> =
        tx.scan_json(ROWS, &crate::prefix!(from), None, usize::MAX, false)?;
    for (n, (_, mut row)) in rows.iter().cloned().enumerate() {
        let key = progress::row_key(to, n as u64 + 1);
        row.id = row_id(&key);
        store::put_json(tx, ROWS, &key, &row)?;
    }
    Ok(rows.len() as u64)
}

/// The ids of a session's receipts, in the order they were signed.
pub fn receipt_ids(tx: &Tx, id: &str) -> anyhow::Result<Vec<String>> {
    Ok(tx
        .scan_str(
            SESSION_RECEIPTS,
            &crate::prefix!(id),
            None,
            usize::MAX,
            false,
        )?
        .into_iter()
        .map(|(_, rid)| rid)
        .collect())
}

/// The node running a session, if it is running.
pub fn runner(tx: &Tx, id: &str) -> anyhow::Result<Option<String>> {
    tx.get_str(RUNNING_SESSIONS, id)
}

/// Running sessions and the node each runs on.
pub fn running_owners(tx: &Tx) -> anyhow::Result<Vec<(String, String)>> {
    tx.scan_str(RUNNING_SESSIONS, "", None, usize::MAX, false)
}

/// The ids of sessions marked running (from the running set).
pub fn running_ids(tx: &Tx) -> anyhow::Result<Vec<String>> {
    Ok(running_owners(tx)?.into_iter().map(|(id, _)| id).collect())
}

/// A page of an account's sessions (or extractions) in one mode, newest first.
pub fn list(
    tx: &Tx,
    kind: Kind,
    account: &str,
    mode: Mode,
    starting_after: Option<&Session>,
    limit: usize,
) -> anyhow::Result<Vec<Session>> {
    let prefix = format!("{}{account}:{}:", index_prefix(kind), mode.as_str());
    let mut after = starting_after.map(index_key);
    let mut out = Vec::new();
    while out.len() < limit {
        let page = tx.scan_str(SESSION_INDEX, &prefix, after.as_deref(), limit, true)?;
        let Some((last, _)) = page.last() else { break };
        after = Some(last.clone());
        for (_, id) in page {
            if out.len() < limit {
                out.extend(get(tx, &id)?);
            }
        }
    }
    Ok(out)
}

/// Every session still marked running (after a crash: the orphans).
pub fn running(tx: &Tx) -> anyhow::Result<Vec<Session>> {
    let all: Vec<(String, Session)> = tx.scan_json(SESSIONS, "", None, usize::MAX, false)?;
    Ok(all
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| s.is_running())
        .collect())
}
