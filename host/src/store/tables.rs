//! Every table, declared once: its name and what its keys and values are.

/// What a table's keys and values are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// String key → JSON value.
    Json,
    /// String key → string (an index or a small mark).
    Index,
    /// Sequence number → JSON value.
    Seq,
    /// String key → signed counter.
    Counter,
}

/// A table: its name and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    pub name: &'static str,
    pub kind: Kind,
}

impl Table {
    const fn json(name: &'static str) -> Table {
        Table {
            name,
            kind: Kind::Json,
        }
    }
    const fn index(name: &'static str) -> Table {
        Table {
            name,
            kind: Kind::Index,
        }
    }
    const fn seq(name: &'static str) -> Table {
        Table {
            name,
            kind: Kind::Seq,
        }
    }
    const fn counter(name: &'static str) -> Table {
        Table {
            name,
            kind: Kind::Counter,
        }
    }
}

/// Accounts by id.
pub const ACCOUNTS: Table = Table::json("accounts");
/// API keys by id.
pub const KEYS: Table = Table::json("keys");
/// Key id by the hex SHA-256 of the key text (the key itself is never stored).
pub const KEY_HASHES: Table = Table::index("key_hashes");
/// The ledger's immutable entries by `account:mode:seq`.
pub const LEDGER: Table = Table::json("ledger");
/// The ledger as databases written before per-account numbering kept it
/// (one sequence for the installation): emptied into LEDGER at start-up.
pub const GLOBAL_LEDGER: Table = Table::seq("ledger_entries");
/// Balance and open reserves per `account:mode`, maintained in the same
/// transaction as the entries they sum.
pub const BALANCES: Table = Table::json("balances");
/// Reservations by id.
pub const RESERVATIONS: Table = Table::json("reservations");
/// Settled micro-dollars per `account:mode:YYYY-MM-DD`.
pub const SPEND_BY_DAY: Table = Table::counter("spend_by_day");
/// Idempotency records by `account:mode:key`.
pub const IDEMPOTENCY: Table = Table::json("idempotency");
/// Sessions by id.
pub const SESSIONS: Table = Table::json("sessions");
/// Listing index: `account:mode:<created micros, 20 digits>:<id>` → id.
pub const SESSION_INDEX: Table = Table::index("session_index");
/// Sessions marked running, by id → the node running them: what the
/// watchdog checks against the live runs without reading every session.
pub const RUNNING_SESSIONS: Table = Table::index("running_sessions");
/// A session's event log: `session_id:<seq, 20 digits>` → event.
pub const EVENTS: Table = Table::json("session_events");
/// A session's rows: `session_id:<n, 20 digits>` → row.
pub const ROWS: Table = Table::json("session_rows");
/// Receipts by id.
pub const RECEIPTS: Table = Table::json("receipts");
/// A session's receipts: `session_id:<n, 20 digits>` → receipt id.
pub const SESSION_RECEIPTS: Table = Table::index("session_receipts");
/// Proposals for follow-up turns by id.
pub const PROPOSALS: Table = Table::json("proposals");
/// Webhook endpoints by id.
pub const WEBHOOKS: Table = Table::json("webhooks");
/// Listing index of webhook endpoints: `account:mode:<created micros, 20 digits>:<id>` → id.
pub const WEBHOOK_INDEX: Table = Table::index("webhook_index");
/// Messages waiting for delivery (the durable outbox):
/// `<due unix ms, 20 digits>:<msg_id>:<endpoint id or "run">` → entry.
pub const OUTBOX: Table = Table::json("webhook_outbox");
/// Every delivery attempt: `<endpoint id or run:account:mode>:<at micros, 20 digits>:<attempt id>` → attempt.
pub const ATTEMPTS: Table = Table::json("webhook_attempts");
/// An attempt's key in ATTEMPTS by attempt id.
pub const ATTEMPT_KEYS: Table = Table::index("webhook_attempt_keys");
/// Dead-lettered messages, kept with their bytes: `<endpoint id or run:account:mode>:<msg_id>` → entry.
pub const DEAD_LETTERS: Table = Table::json("webhook_dead_letters");
/// Every message queued for an endpoint, kept for a manual redelivery:
/// `<endpoint id>:<msg_id>` → entry (its first form, with its bytes).
pub const MESSAGES: Table = Table::json("webhook_messages");
/// Monitors (`monitors::*` reads and writes them): id → monitor.
pub const MONITORS: Table = Table::json("monitors");
/// Monitor runs: `<monitor id>:<run number, padded>` → run.
pub const MONITOR_RUNS: Table = Table::json("monitor_runs");
/// Small singletons: schema version, the receipt signing key, secrets.
pub const META: Table = Table::json("meta");

/// Named counters shared by every node (the keys generation).
pub const COUNTERS: Table = Table::counter("counters");
/// The nodes serving this database, by node id → last heartbeat.
pub const NODES: Table = Table::json("nodes");
/// Singleton jobs (the monitor scheduler) by name → the node holding them, until when.
pub const LEASES: Table = Table::json("leases");
/// Idempotency-Key claims whose request has not finished: table key → node.
pub const PENDING_CLAIMS: Table = Table::index("idempotency_pending");
/// Outbox entries being delivered: outbox key → the node delivering it, until when.
pub const OUTBOX_CLAIMS: Table = Table::json("webhook_outbox_claims");
/// Running sessions by account and mode: `account:mode:session id` → node
/// (what the runs-in-flight cap counts across nodes).
pub const RUNNING_BY_SCOPE: Table = Table::index("running_by_scope");
/// Stops asked for runs on another node: session id → "".
pub const STOP_REQUESTS: Table = Table::index("stop_requests");

/// Every table, created when a database is opened.
pub(super) const ALL: &[Table] = &[
    ACCOUNTS,
    KEYS,
    KEY_HASHES,
    LEDGER,
    GLOBAL_LEDGER,
    BALANCES,
    RESERVATIONS,
    SPEND_BY_DAY,
    IDEMPOTENCY,
    SESSIONS,
    SESSION_INDEX,
    RUNNING_SESSIONS,
    EVENTS,
    ROWS,
    RECEIPTS,
    SESSION_RECEIPTS,
    PROPOSALS,
    WEBHOOKS,
    WEBHOOK_INDEX,
    OUTBOX,
    ATTEMPTS,
    ATTEMPT_KEYS,
    DEAD_LETTERS,
    MESSAGES,
    MONITORS,
    MONITOR_RUNS,
    META,
    COUNTERS,
    NODES,
    LEASES,
    PENDING_CLAIMS,
    OUTBOX_CLAIMS,
    STOP_REQUESTS,
    RUNNING_BY_SCOPE,
];
