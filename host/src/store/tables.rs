//! Every table, declared once: its name and what its keys and values are.

use std::marker::PhantomData;

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

/// A table: its name, what it holds, and the type of its values, in the
/// manner of redb's `TableDefinition`. `V` is the record type of a JSON
/// table (bound by the module that owns the table, see [`Table::holding`]),
/// [`Index`] for string values, [`Counter`] for counters, [`Seq`] for
/// sequence-keyed JSON, and [`Untyped`] for a JSON table not yet bound to
/// its record type: `Tx` reads and writes a table only as its `V`, so
/// reading a table as the wrong type does not compile:
///
/// ```compile_fail
/// fn read(tx: &fnhost::store::Tx) -> anyhow::Result<()> {
///     // ROWS holds rows, not events.
///     let _: Option<fnhost::wire::SessionEvent> = tx.get_json(fnhost::store::ROWS, "k")?;
///     Ok(())
/// }
/// ```
///
/// nor does a JSON table read before it is bound to its record type:
///
/// ```compile_fail
/// fn read(tx: &fnhost::store::Tx) -> anyhow::Result<()> {
///     let _: Option<serde_json::Value> = tx.get_json(fnhost::store::SESSIONS, "k")?;
///     Ok(())
/// }
/// ```
///
/// while the table read as what it holds does:
///
/// ```
/// fn read(tx: &fnhost::store::Tx) -> anyhow::Result<()> {
///     let _: Option<fnhost::wire::Row> = tx.get_json(fnhost::store::ROWS, "k")?;
///     Ok(())
/// }
/// ```
pub struct Table<V = Untyped> {
    pub name: &'static str,
    pub kind: Kind,
    value: PhantomData<fn() -> V>,
}

/// The value marker of a JSON table's declaration, before its owner binds
/// the record type; `Tx` reads and writes no `Table<Untyped>` as JSON.
pub enum Untyped {}
/// The value marker of an index table: string → string.
pub enum Index {}
/// The value marker of a counter table: string → i64.
pub enum Counter {}
/// The value marker of a sequence table: u64 → JSON `T`.
pub struct Seq<T>(PhantomData<fn() -> T>);

impl<V> Clone for Table<V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V> Copy for Table<V> {}

impl<V> std::fmt::Debug for Table<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?})", self.name, self.kind)
    }
}

impl<V> Table<V> {
    const fn new(name: &'static str, kind: Kind) -> Table<V> {
        Table {
            name,
            kind,
            value: PhantomData,
        }
    }

    /// The table as the engines see it: a name and a kind.
    pub const fn erase(self) -> Table {
        Table::new(self.name, self.kind)
    }
}

impl Table {
    const fn json(name: &'static str) -> Table {
        Table::new(name, Kind::Json)
    }

    /// This JSON table, holding records of type `T` (what the owning
    /// module declares once and uses for every read and write).
    pub const fn holding<T>(self) -> Table<T> {
        assert!(
            matches!(self.kind, Kind::Json),
            "only a JSON table holds records"
        );
        Table::new(self.name, self.kind)
    }
}

impl Table<Index> {
    const fn index(name: &'static str) -> Table<Index> {
        Table::new(name, Kind::Index)
    }
}

impl Table<Counter> {
    const fn counter(name: &'static str) -> Table<Counter> {
        Table::new(name, Kind::Counter)
    }
}

impl Table<Seq<Untyped>> {
    const fn seq(name: &'static str) -> Table<Seq<Untyped>> {
        Table::new(name, Kind::Seq)
    }

    /// This sequence table, holding records of type `T`.
    pub const fn holding<T>(self) -> Table<Seq<T>> {
        Table::new(self.name, self.kind)
    }
}

/// Accounts by id.
pub const ACCOUNTS: Table = Table::json("accounts");
/// API keys by id.
pub const KEYS: Table = Table::json("keys");
/// Key id by the hex SHA-256 of the key text (the key itself is never stored).
pub const KEY_HASHES: Table<Index> = Table::index("key_hashes");
/// The ledger's immutable entries by `account:mode:seq`.
pub const LEDGER: Table = Table::json("ledger");
/// The ledger as databases written before per-account numbering kept it
/// (one sequence for the installation): emptied into LEDGER at start-up.
pub const GLOBAL_LEDGER: Table<Seq<Untyped>> = Table::seq("ledger_entries");
/// Balance and open reserves per `account:mode`, maintained in the same
/// transaction as the entries they sum.
pub const BALANCES: Table = Table::json("balances");
/// Reservations by id.
pub const RESERVATIONS: Table = Table::json("reservations");
/// Settled micro-dollars per `account:mode:YYYY-MM-DD`.
pub const SPEND_BY_DAY: Table<Counter> = Table::counter("spend_by_day");
/// Idempotency records by `account:mode:key`.
pub const IDEMPOTENCY: Table = Table::json("idempotency");
/// Sessions by id.
pub const SESSIONS: Table = Table::json("sessions");
/// Listing index: `account:mode:<created micros, 20 digits>:<id>` → id.
pub const SESSION_INDEX: Table<Index> = Table::index("session_index");
/// Sessions marked running, by id → the node running them: what the
/// watchdog checks against the live runs without reading every session.
pub const RUNNING_SESSIONS: Table<Index> = Table::index("running_sessions");
/// A session's event log: `session_id:<seq, 20 digits>` → event.
pub const EVENTS: Table<crate::wire::SessionEvent> = Table::json("session_events").holding();
/// A session's rows: `session_id:<n, 20 digits>` → row.
pub const ROWS: Table<crate::wire::Row> = Table::json("session_rows").holding();
/// Receipts by id.
pub const RECEIPTS: Table = Table::json("receipts");
/// A session's receipts: `session_id:<n, 20 digits>` → receipt id.
pub const SESSION_RECEIPTS: Table<Index> = Table::index("session_receipts");
/// Proposals for follow-up turns by id.
pub const PROPOSALS: Table = Table::json("proposals");
/// Webhook endpoints by id.
pub const WEBHOOKS: Table = Table::json("webhooks");
/// Listing index of webhook endpoints: `account:mode:<created micros, 20 digits>:<id>` → id.
pub const WEBHOOK_INDEX: Table<Index> = Table::index("webhook_index");
/// Deleted webhook endpoints: id → `account:mode`, so that their attempts
/// stay queryable by their owner (SPEC §6.2.4) after the endpoint is gone.
pub const DELETED_WEBHOOKS: Table<Index> = Table::index("webhook_deleted");
/// Messages waiting for delivery (the durable outbox):
/// `<due unix ms, 20 digits>:<msg_id>:<endpoint id or "run">` → entry.
pub const OUTBOX: Table = Table::json("webhook_outbox");
/// Every delivery attempt: `<endpoint id or run:account:mode>:<at micros, 20 digits>:<attempt id>` → attempt.
pub const ATTEMPTS: Table = Table::json("webhook_attempts");
/// An attempt's key in ATTEMPTS by attempt id.
pub const ATTEMPT_KEYS: Table<Index> = Table::index("webhook_attempt_keys");
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
pub const COUNTERS: Table<Counter> = Table::counter("counters");
/// The nodes serving this database, by node id → last heartbeat.
pub const NODES: Table = Table::json("nodes");
/// Singleton jobs (the monitor scheduler) by name → the node holding them, until when.
pub const LEASES: Table = Table::json("leases");
/// Idempotency-Key claims whose request has not finished: table key → node.
pub const PENDING_CLAIMS: Table<Index> = Table::index("idempotency_pending");
/// Outbox entries being delivered: outbox key → the node delivering it, until when.
pub const OUTBOX_CLAIMS: Table = Table::json("webhook_outbox_claims");
/// Running sessions by account and mode: `account:mode:session id` → node
/// (what the runs-in-flight cap counts across nodes).
pub const RUNNING_BY_SCOPE: Table<Index> = Table::index("running_by_scope");
/// Stops asked for runs on another node: session id → "".
pub const STOP_REQUESTS: Table<Index> = Table::index("stop_requests");

/// Every table, created when a database is opened.
pub(super) const ALL: &[Table] = &[
    ACCOUNTS.erase(),
    KEYS.erase(),
    KEY_HASHES.erase(),
    LEDGER.erase(),
    GLOBAL_LEDGER.erase(),
    BALANCES.erase(),
    RESERVATIONS.erase(),
    SPEND_BY_DAY.erase(),
    IDEMPOTENCY.erase(),
    SESSIONS.erase(),
    SESSION_INDEX.erase(),
    RUNNING_SESSIONS.erase(),
    EVENTS.erase(),
    ROWS.erase(),
    RECEIPTS.erase(),
    SESSION_RECEIPTS.erase(),
    PROPOSALS.erase(),
    WEBHOOKS.erase(),
    WEBHOOK_INDEX.erase(),
    DELETED_WEBHOOKS.erase(),
    OUTBOX.erase(),
    ATTEMPTS.erase(),
    ATTEMPT_KEYS.erase(),
    DEAD_LETTERS.erase(),
    MESSAGES.erase(),
    MONITORS.erase(),
    MONITOR_RUNS.erase(),
    META.erase(),
    COUNTERS.erase(),
    NODES.erase(),
    LEASES.erase(),
    PENDING_CLAIMS.erase(),
    OUTBOX_CLAIMS.erase(),
    STOP_REQUESTS.erase(),
    RUNNING_BY_SCOPE.erase(),
];
