//! Storage: every table declared in one place, one transaction type
//! ([`Tx`]) for domain code, and two engines behind it: redb, embedded, the
//! default; PostgreSQL, shared by several nodes. Nothing outside this module
//! names either engine.
//!
//! Writes are closures run in a transaction of their own; request paths
//! queue them to the node's writer (`write_async`, `queue_relaxed`), which
//! applies the writes of one [`Scope`] in queue order. Reads run on the
//! caller's thread (`read`) or a blocking thread (`read_async`).

pub mod key;
mod postgres;
mod redb_engine;
pub mod tls;
mod tx;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use anyhow::Context;
use redb::ReadableDatabase;
use serde::{de::DeserializeOwned, Serialize};
use tokio::sync::oneshot;

pub use postgres::{
    account_lock_key, schema_version as postgres_schema_version, INSTALLATION_LOCK, KEYS_POLL,
};
pub use tx::{put_json, Tx};

/// Whose data a write transaction reads and writes: what it waits for on a
/// shared database, and which of the node's writer lanes runs it.
///
/// - `All` (the default): anything. It runs alone, after every other write
///   and before the next.
/// - `Account`: one account's rows (its balances, ledger entries, runs,
///   keys of Idempotency, events and rows of its sessions) and rows under
///   fresh ids (receipts, outbox messages). Writes of different accounts run
///   at once, on any node; writes of one account one after another.
/// - `Object`: one installation-wide object that only writes of its own
///   scope change (the scheduler's lease, the webhook outbox's claims and
///   attempts), beside account writes.
///
/// A write that declares a scope must keep to it: it is what makes the
/// ledger exact without one lock for the installation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Scope {
    All,
    Account(String),
    Object(&'static str),
}

impl Scope {
    pub fn account(id: &str) -> Scope {
        Scope::Account(id.to_string())
    }
}

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
const ALL: &[Table] = &[
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

/// Where an installation keeps its data.
#[derive(Debug, Clone)]
pub enum Location {
    /// A redb file: one node.
    Redb(std::path::PathBuf),
    /// A PostgreSQL connection URL: any number of nodes.
    Postgres(String),
}

/// A handle on the database, cheap to clone.
///
/// On redb, the writer thread takes the writes queued while it was busy as
/// one batch and gives them a single fsync (group commit):
///
/// - each write runs in its own transaction, committed without a flush, so
///   a write whose closure fails is rolled back alone and never touches
///   the others of its batch;
/// - the last durable write of the batch commits with `Durability::Immediate`
///   (or an empty durable commit follows when that one failed), which makes
///   every earlier commit of the batch durable too;
/// - a durable write's caller is answered only after that fsync; a relaxed
///   write's caller right after its own commit.
///
/// Writes are applied in queue order, so after a crash the database holds
/// a prefix of them: a batch is durable as a whole or not at all. On
/// PostgreSQL each write is a transaction of its own under the locks of its
/// [`Scope`] (see `postgres.rs`), run by one of the node's writer lanes: the
/// writes of one scope in queue order, those of different scopes at once.
/// `write` and `write_relaxed` commit on the calling thread (`Scope::All`).
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

enum Engine {
    Redb(Arc<redb::Database>),
    Postgres(Arc<postgres::Pg>),
}

struct Inner {
    engine: Engine,
    node: Arc<str>,
    /// The writer lanes' queues (one on redb).
    queues: Vec<mpsc::Sender<Job>>,
    writers: Vec<std::thread::JoinHandle<()>>,
    keys_generation: Arc<AtomicU64>,
    stats: Arc<Counters>,
}

/// What the writer thread has done, for benchmarks and tests.
#[derive(Debug, Default)]
struct Counters {
    commits: AtomicU64,
    flushes: AtomicU64,
}

/// Commits made by the writer thread, and the fsyncs they shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommitStats {
    /// Writes committed (durable and relaxed).
    pub commits: u64,
    /// Durable commits, each one fsync.
    pub flushes: u64,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Closing the queues ends the writers once they have applied what
        // is queued; waiting for them releases the database file for a reopen.
        self.queues.clear();
        for writer in self.writers.drain(..) {
            if writer.thread().id() != std::thread::current().id() {
                let _ = writer.join();
            }
        }
    }
}

/// The most writes one batch takes.
const MAX_BATCH: usize = 256;

/// A queued write: its closure, whether its caller waits for the fsync,
/// and what it locks.
struct Job {
    durable: bool,
    scope: Scope,
    run: Box<dyn FnOnce(&Tx) -> Done + Send>,
}

/// PostgreSQL writer lanes per node: writes of different scopes commit at
/// once, each lane on a connection of its own; one scope always takes the
/// same lane, so its writes keep their queue order.
const POSTGRES_LANES: usize = 4;

/// The lane of a scope among `lanes`.
fn lane_of(scope: &Scope, lanes: usize) -> usize {
    use std::hash::{Hash, Hasher};
    match scope {
        Scope::All => 0,
        other => {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            other.hash(&mut h);
            (h.finish() % lanes as u64) as usize
        }
    }
}

/// A write's closure has run: commit or roll back, then answer with the
/// outcome of the commit (and, for a durable write, of the fsync).
struct Done {
    commit: bool,
    answer: Answer,
}

/// Tells a write's caller how its commit went.
type Answer = Box<dyn FnOnce(Result<(), String>) + Send>;

impl Store {
    /// Open the store at `location`, as a node of a new id.
    pub fn open_at(location: &Location) -> anyhow::Result<Store> {
        Store::open_as(location, &crate::ids::new_id("node"))
    }

    /// Open the store at `location` as node `node` (a server keeps its id
    /// across restarts, so that it ends its own runs when it starts again).
    pub fn open_as(location: &Location, node: &str) -> anyhow::Result<Store> {
        match location {
            Location::Redb(path) => Store::open_redb(path, node),
            Location::Postgres(url) => {
                let keys_generation = Arc::new(AtomicU64::new(0));
                let pg = postgres::Pg::open(url, keys_generation.clone())?;
                Store::start(Engine::Postgres(pg), keys_generation, node)
            }
        }
    }

    /// Open (or create) the redb file and every table.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        Store::open_redb(path, &crate::ids::new_id("node"))
    }

    fn open_redb(path: &Path, node: &str) -> anyhow::Result<Store> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("failed to create {}", dir.display()))?;
        }
        let db = redb::Database::create(path)
            .with_context(|| format!("failed to open the database {}", path.display()))?;
        Store::start_redb(db, node)
    }

    /// A redb database in memory, for unit tests.
    pub fn in_memory() -> anyhow::Result<Store> {
        let db =
            redb::Database::builder().create_with_backend(redb::backends::InMemoryBackend::new())?;
        Store::start_redb(db, &crate::ids::new_id("node"))
    }

    /// Connect to PostgreSQL and bring its schema to this build's version.
    pub fn open_postgres(url: &str) -> anyhow::Result<Store> {
        Store::open_as(&Location::Postgres(url.into()), &crate::ids::new_id("node"))
    }

    fn start_redb(db: redb::Database, node: &str) -> anyhow::Result<Store> {
        redb_engine::init(&db, ALL)?;
        Store::start(
            Engine::Redb(Arc::new(db)),
            Arc::new(AtomicU64::new(0)),
            node,
        )
    }

    fn start(engine: Engine, keys_generation: Arc<AtomicU64>, node: &str) -> anyhow::Result<Store> {
        let node: Arc<str> = node.into();
        let stats = Arc::new(Counters::default());
        let lanes = match engine {
            Engine::Redb(_) => 1,
            Engine::Postgres(_) => POSTGRES_LANES,
        };
        let (mut queues, mut writers) = (Vec::new(), Vec::new());
        for lane in 0..lanes {
            let (queue, jobs) = mpsc::channel();
            let (generation, stats, node) = (keys_generation.clone(), stats.clone(), node.clone());
            let engine = match &engine {
                Engine::Redb(db) => Engine::Redb(db.clone()),
                Engine::Postgres(pg) => Engine::Postgres(pg.clone()),
            };
            let writer = std::thread::Builder::new()
                .name(format!("fnhost-db-writer-{lane}"))
                .spawn(move || match engine {
                    Engine::Redb(db) => redb_writer(&db, &node, &generation, &stats, jobs),
                    Engine::Postgres(pg) => postgres_writer(&pg, &node, &generation, &stats, jobs),
                })
                .context("failed to start the database writer")?;
            queues.push(queue);
            writers.push(writer);
        }
        Ok(Store {
            inner: Arc::new(Inner {
                engine,
                node,
                queues,
                writers,
                keys_generation,
                stats,
            }),
        })
    }

    /// This process's node id (fresh at every start).
    pub fn node(&self) -> &str {
        &self.inner.node
    }

    /// Is the database shared with other nodes (PostgreSQL)?
    pub fn is_shared(&self) -> bool {
        matches!(self.inner.engine, Engine::Postgres(_))
    }

    /// The engine's name, for logs and the admin report.
    pub fn engine_name(&self) -> &'static str {
        match self.inner.engine {
            Engine::Redb(_) => "redb",
            Engine::Postgres(_) => "postgres",
        }
    }

    /// Changes after every committed write that touched a key or an account
    /// (before that write's caller is answered; on PostgreSQL, within
    /// [`KEYS_POLL`] of another node's write): what a cache of them is
    /// checked against.
    pub fn keys_generation(&self) -> u64 {
        self.inner.keys_generation.load(Ordering::SeqCst)
    }

    /// Commits and fsyncs of the writer thread so far.
    pub fn commit_stats(&self) -> CommitStats {
        CommitStats {
            commits: self.inner.stats.commits.load(Ordering::Relaxed),
            flushes: self.inner.stats.flushes.load(Ordering::Relaxed),
        }
    }

    /// Queue `f`; the receiver gets its result once committed (and flushed
    /// when `durable`).
    fn submit<R, E>(
        &self,
        durable: bool,
        scope: Scope,
        f: impl FnOnce(&Tx) -> Result<R, E> + Send + 'static,
    ) -> oneshot::Receiver<Result<R, E>>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let run = Box::new(move |tx: &Tx| {
            let out = f(tx);
            Done {
                commit: out.is_ok(),
                answer: Box::new(move |committed: Result<(), String>| {
                    let out = match committed {
                        Ok(()) => out,
                        Err(e) => Err(E::from(anyhow::anyhow!("{e}"))),
                    };
                    let _ = reply.send(out);
                }),
            }
        });
        let queues = &self.inner.queues;
        if let Some(queue) = queues.get(lane_of(&scope, queues.len())) {
            // A closed queue drops the job, and so the reply: the caller sees an error.
            let _ = queue.send(Job {
                durable,
                scope,
                run,
            });
        }
        answer
    }

    fn wait<R, E>(answer: Result<Result<R, E>, oneshot::error::RecvError>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        answer.map_err(|_| dropped_write::<E>())?
    }

    /// Run `f` in a write transaction of its own on this thread and commit
    /// it durably if `f` succeeds. Blocking, and outside the group commit:
    /// for start-up, operator commands and tests; request paths use
    /// `write_async`.
    pub fn write<R, E>(&self, f: impl FnOnce(&Tx) -> Result<R, E>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        self.write_here(true, f)
    }

    /// Like `write`, but the commit is not flushed to disk: it becomes
    /// durable with the next durable commit, and a crash before that rolls
    /// it back as a whole. For progress that may be lost but never
    /// half-applied (a run's pages before its end); never for ledger entries.
    pub fn write_relaxed<R, E>(&self, f: impl FnOnce(&Tx) -> Result<R, E>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        self.write_here(false, f)
    }

    fn write_here<R, E>(&self, durable: bool, f: impl FnOnce(&Tx) -> Result<R, E>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        let node = &*self.inner.node;
        let (out, touched) = match &self.inner.engine {
            Engine::Redb(db) => {
                let mut wtx = db.begin_write().map_err(|e| E::from(e.into()))?;
                wtx.set_durability(if durable {
                    redb::Durability::Immediate
                } else {
                    redb::Durability::None
                })
                .map_err(|e| E::from(anyhow::anyhow!("{e}")))?;
                let (out, touched) = {
                    let tx = Tx::new(&wtx, true, node);
                    let out = f(&tx);
                    (out, tx.touched_keys())
                };
                let out = out?;
                wtx.commit().map_err(|e| E::from(e.into()))?;
                (out, touched)
            }
            Engine::Postgres(pg) => {
                let written = pg.write(node, durable, &Scope::All, |tx| {
                    let out = f(tx);
                    (out.is_ok(), (out, tx.touched_keys()))
                })?;
                let (out, touched) = written.out;
                (out?, touched)
            }
        };
        if touched {
            self.inner.keys_generation.fetch_add(1, Ordering::SeqCst);
        }
        Ok(out)
    }

    /// A durable write of rows that only this node writes (its heartbeat),
    /// on the calling thread: on PostgreSQL it does not take the write
    /// lock, so it never waits behind other nodes' transactions. Anything
    /// another node may write goes through `write` or `write_async`.
    pub fn write_own_rows<R, E>(&self, f: impl FnOnce(&Tx) -> Result<R, E>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        match &self.inner.engine {
            Engine::Redb(_) => self.write(f),
            Engine::Postgres(pg) => {
                let written = pg.write_unlocked(&self.inner.node, |tx| {
                    let out = f(tx);
                    (out.is_ok(), out)
                })?;
                written.out
            }
        }
    }

    /// `write_relaxed` through the writer thread, queued now and awaited
    /// later (or polled): writes queued one after another apply in that
    /// order, whatever their callers do meanwhile.
    pub fn queue_relaxed<R, E>(
        &self,
        f: impl FnOnce(&Tx) -> Result<R, E> + Send + 'static,
    ) -> Queued<R, E>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        Queued(self.submit(false, Scope::All, f))
    }

    /// `queue_relaxed` of a write that keeps to `scope`.
    pub fn queue_relaxed_in<R, E>(
        &self,
        scope: Scope,
        f: impl FnOnce(&Tx) -> Result<R, E> + Send + 'static,
    ) -> Queued<R, E>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        Queued(self.submit(false, scope, f))
    }

    /// Run `f` in a read transaction. Reads never block writes.
    pub fn read<R, E>(&self, f: impl FnOnce(&Tx) -> Result<R, E>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        let node = &*self.inner.node;
        match &self.inner.engine {
            Engine::Redb(db) => {
                let rtx = db.begin_read().map_err(|e| E::from(e.into()))?;
                f(&Tx::new(&rtx, false, node))
            }
            Engine::Postgres(pg) => pg.read(node, f)?,
        }
    }

    /// `write` through the writer thread (group commit), awaited: answered
    /// once the commit is durable, and the executor never waits on the database.
    pub async fn write_async<R, E>(
        &self,
        f: impl FnOnce(&Tx) -> Result<R, E> + Send + 'static,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        Store::wait(self.submit(true, Scope::All, f).await)
    }

    /// `write_async` of a write that keeps to `scope`: on a shared
    /// database it runs beside writes of other scopes.
    pub async fn write_async_in<R, E>(
        &self,
        scope: Scope,
        f: impl FnOnce(&Tx) -> Result<R, E> + Send + 'static,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        Store::wait(self.submit(true, scope, f).await)
    }

    /// `read` on a blocking thread.
    pub async fn read_async<R, E>(
        &self,
        f: impl FnOnce(&Tx) -> Result<R, E> + Send + 'static,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.read(f))
            .await
            .map_err(|e| E::from(anyhow::anyhow!("database task failed: {e}")))?
    }
}

/// A write queued with [`Store::queue_relaxed`].
pub struct Queued<R, E>(oneshot::Receiver<Result<R, E>>);

impl<R, E> Queued<R, E>
where
    E: From<anyhow::Error>,
{
    /// Its outcome once committed (or refused).
    pub async fn wait(self) -> Result<R, E> {
        Store::wait(self.0.await)
    }

    /// Its outcome if the writer has dealt with it, else `None`.
    pub fn try_take(&mut self) -> Option<Result<R, E>> {
        match self.0.try_recv() {
            Err(oneshot::error::TryRecvError::Empty) => None,
            Ok(out) => Some(out),
            Err(oneshot::error::TryRecvError::Closed) => Some(Err(dropped_write())),
        }
    }
}

/// What a caller gets when the writer dropped its write unanswered.
fn dropped_write<E: From<anyhow::Error>>() -> E {
    E::from(anyhow::anyhow!(
        "database write failed: the writer dropped it (the write panicked, or the database could not be reached)"
    ))
}

/// The redb writer thread: batches of queued writes, one fsync per batch.
fn redb_writer(
    db: &redb::Database,
    node: &str,
    keys_generation: &AtomicU64,
    stats: &Counters,
    jobs: mpsc::Receiver<Job>,
) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let last_durable = batch.iter().rposition(|j| j.durable);
        // Committed durable writes waiting for the batch's fsync.
        let mut waiting: Vec<Answer> = Vec::new();
        for (i, job) in batch.into_iter().enumerate() {
            let flush = Some(i) == last_durable;
            let mut wtx = match db.begin_write() {
                Ok(tx) => tx,
                Err(e) => {
                    // Dropping the job drops its reply: the caller sees an error.
                    tracing::error!(error = %e, "cannot begin a write transaction");
                    drop(job);
                    continue;
                }
            };
            let durability = if flush {
                redb::Durability::Immediate
            } else {
                redb::Durability::None
            };
            if let Err(e) = wtx.set_durability(durability) {
                tracing::error!(error = %e, "cannot set a write's durability");
                continue;
            }
            let run = job.run;
            let ran = {
                let tx = Tx::new(&wtx, true, node);
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&tx)))
                    .map(|done| (done, tx.touched_keys()))
            };
            let (done, touched) = match ran {
                Ok(x) => x,
                Err(_) => {
                    // The write panicked: roll it back; its caller sees an error.
                    let _ = wtx.abort();
                    continue;
                }
            };
            if !done.commit {
                // The closure refused: roll back this write alone.
                let _ = wtx.abort();
                (done.answer)(Ok(()));
                continue;
            }
            let committed = wtx.commit().map_err(|e| e.to_string());
            if committed.is_ok() {
                stats.commits.fetch_add(1, Ordering::Relaxed);
                if flush {
                    stats.flushes.fetch_add(1, Ordering::Relaxed);
                }
                if touched {
                    keys_generation.fetch_add(1, Ordering::SeqCst);
                }
            }
            match (committed, job.durable, flush) {
                (Err(e), _, _) => {
                    (done.answer)(Err(e.clone()));
                    if flush {
                        answer_all(&mut waiting, Err(e));
                    }
                }
                (Ok(()), false, _) => (done.answer)(Ok(())),
                (Ok(()), true, false) => waiting.push(done.answer),
                (Ok(()), true, true) => {
                    waiting.push(done.answer);
                    answer_all(&mut waiting, Ok(()));
                }
            }
        }
        // The last durable write did not commit: flush the earlier ones.
        if !waiting.is_empty() {
            let flushed = empty_durable_commit(db);
            if flushed.is_ok() {
                stats.flushes.fetch_add(1, Ordering::Relaxed);
            }
            answer_all(&mut waiting, flushed);
        }
    }
}

/// The PostgreSQL writer thread: each queued write in a transaction of its
/// own, in queue order, on a connection of its own (opened again if lost).
fn postgres_writer(
    pg: &postgres::Pg,
    node: &str,
    keys_generation: &AtomicU64,
    stats: &Counters,
    jobs: mpsc::Receiver<Job>,
) {
    let mut conn: Option<postgres::Conn> = None;
    while let Ok(job) = jobs.recv() {
        if conn.as_ref().is_none_or(|c| c.is_closed()) {
            conn = match pg.connect() {
                Ok(c) => Some(c),
                Err(e) => {
                    tracing::error!(error = ?e, "cannot connect the database writer; the write fails");
                    continue;
                }
            };
        }
        let c = conn.as_ref().expect("connected");
        let durable = job.durable;
        let scope = job.scope;
        let run = job.run;
        // The caller's answer, kept here once the closure has run, so that a
        // failed commit is answered with its error.
        let mut answer: Option<Answer> = None;
        let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            postgres::write_on(c, node, durable, &scope, |tx| {
                let done = run(tx);
                let commit = done.commit;
                answer = Some(done.answer);
                (commit, tx.touched_keys())
            })
        }));
        match written {
            Err(_) => {
                // The write panicked: its transaction is rolled back with the
                // connection, and its caller sees an error.
                conn = None;
            }
            Ok(Err(e)) => {
                tracing::error!(error = ?e, "a database write failed");
                if let Some(answer) = answer {
                    answer(Err(format!("database write failed: {e:#}")));
                }
            }
            Ok(Ok(w)) => {
                let touched = w.out;
                if w.committed {
                    stats.commits.fetch_add(1, Ordering::Relaxed);
                    if durable {
                        stats.flushes.fetch_add(1, Ordering::Relaxed);
                    }
                    if touched {
                        keys_generation.fetch_add(1, Ordering::SeqCst);
                    }
                }
                if let Some(answer) = answer {
                    answer(Ok(()));
                }
            }
        }
    }
}

fn answer_all(waiting: &mut Vec<Answer>, outcome: Result<(), String>) {
    for answer in waiting.drain(..) {
        answer(outcome.clone());
    }
}

/// Flush the batch's earlier commits when its last durable write did not commit.
fn empty_durable_commit(db: &redb::Database) -> Result<(), String> {
    let tx = db.begin_write().map_err(|e| e.to_string())?;
    tx.commit().map_err(|e| e.to_string())
}

/// Encode a value for a JSON table.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("values serialize")
}

/// Decode a value read from a JSON table.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> anyhow::Result<T> {
    serde_json::from_slice(bytes).context("failed to decode a stored value")
}
