//! The redb database: every table declared in one place, opened together,
//! and small helpers for JSON values and for running transactions off the
//! async executor.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use anyhow::Context;
use redb::{
    Database, ReadTransaction, ReadableDatabase, ReadableTable, TableDefinition, TableHandle,
    WriteTransaction,
};
use serde::{de::DeserializeOwned, Serialize};
use tokio::sync::oneshot;

/// Accounts by id.
pub const ACCOUNTS: TableDefinition<&str, &[u8]> = TableDefinition::new("accounts");
/// API keys by id.
pub const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("keys");
/// Key id by the hex SHA-256 of the key text (the key itself is never stored).
pub const KEY_HASHES: TableDefinition<&str, &str> = TableDefinition::new("key_hashes");
/// The ledger's immutable entries by sequence number.
pub const LEDGER: TableDefinition<u64, &[u8]> = TableDefinition::new("ledger_entries");
/// Balance and open reserves per `account:mode`, maintained in the same
/// transaction as the entries they sum.
pub const BALANCES: TableDefinition<&str, &[u8]> = TableDefinition::new("balances");
/// Reservations by id.
pub const RESERVATIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("reservations");
/// Settled micro-dollars per `account:mode:YYYY-MM-DD`.
pub const SPEND_BY_DAY: TableDefinition<&str, i64> = TableDefinition::new("spend_by_day");
/// Idempotency records by `account:mode:key`.
pub const IDEMPOTENCY: TableDefinition<&str, &[u8]> = TableDefinition::new("idempotency");
/// Sessions by id.
pub const SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions");
/// Listing index: `account:mode:<created micros, 20 digits>:<id>` → id.
pub const SESSION_INDEX: TableDefinition<&str, &str> = TableDefinition::new("session_index");
/// Sessions marked running, by id: what the watchdog checks against the
/// live runs without reading every session.
pub const RUNNING_SESSIONS: TableDefinition<&str, &str> = TableDefinition::new("running_sessions");
/// A session's event log: `session_id:<seq, 10 digits>` → event.
pub const EVENTS: TableDefinition<&str, &[u8]> = TableDefinition::new("session_events");
/// A session's rows: `session_id:<n, 10 digits>` → row.
pub const ROWS: TableDefinition<&str, &[u8]> = TableDefinition::new("session_rows");
/// Receipts by id.
pub const RECEIPTS: TableDefinition<&str, &[u8]> = TableDefinition::new("receipts");
/// A session's receipts: `session_id:<n, 10 digits>` → receipt id.
pub const SESSION_RECEIPTS: TableDefinition<&str, &str> = TableDefinition::new("session_receipts");
/// Proposals for follow-up turns by id.
pub const PROPOSALS: TableDefinition<&str, &[u8]> = TableDefinition::new("proposals");
/// Webhook endpoints by id.
pub const WEBHOOKS: TableDefinition<&str, &[u8]> = TableDefinition::new("webhooks");
/// Listing index of webhook endpoints: `account:mode:<created micros, 20 digits>:<id>` → id.
pub const WEBHOOK_INDEX: TableDefinition<&str, &str> = TableDefinition::new("webhook_index");
/// Messages waiting for delivery (the durable outbox):
/// `<due unix ms, 20 digits>:<msg_id>:<endpoint id or "run">` → entry.
pub const OUTBOX: TableDefinition<&str, &[u8]> = TableDefinition::new("webhook_outbox");
/// Every delivery attempt: `<endpoint id or run:account:mode>:<at micros, 20 digits>:<attempt id>` → attempt.
pub const ATTEMPTS: TableDefinition<&str, &[u8]> = TableDefinition::new("webhook_attempts");
/// An attempt's key in ATTEMPTS by attempt id.
pub const ATTEMPT_KEYS: TableDefinition<&str, &str> = TableDefinition::new("webhook_attempt_keys");
/// Dead-lettered messages, kept with their bytes: `<endpoint id or run:account:mode>:<msg_id>` → entry.
pub const DEAD_LETTERS: TableDefinition<&str, &[u8]> = TableDefinition::new("webhook_dead_letters");
/// Every message queued for an endpoint, kept for a manual redelivery:
/// `<endpoint id>:<msg_id>` → entry (its first form, with its bytes).
pub const MESSAGES: TableDefinition<&str, &[u8]> = TableDefinition::new("webhook_messages");
/// Monitors (`monitors::*` reads and writes them): id → monitor.
pub const MONITORS: TableDefinition<&str, &[u8]> = TableDefinition::new("monitors");
/// Monitor runs: `<monitor id>:<run number, padded>` → run.
pub const MONITOR_RUNS: TableDefinition<&str, &[u8]> = TableDefinition::new("monitor_runs");
/// Small singletons: schema version, the receipt signing key, secrets.
pub const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// A handle on the database, cheap to clone.
///
/// The writes of request paths (`write_async`, `queue_relaxed`) go
/// through one writer thread (redb allows one write transaction at a time
/// anyway), which takes the writes queued while it was busy as one batch
/// and gives them a single fsync (group commit):
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
/// a prefix of them: a batch is durable as a whole or not at all. Readers
/// may see a batch's commits while its fsync is under way; none of its
/// callers has been answered by then. `write` and `write_relaxed` commit
/// on the calling thread, between the writer's transactions.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    db: Arc<Database>,
    queue: Option<mpsc::Sender<Job>>,
    writer: Option<std::thread::JoinHandle<()>>,
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
        // Closing the queue ends the writer once it has applied what is
        // queued; waiting for it releases the database file for a reopen.
        self.queue.take();
        if let Some(writer) = self.writer.take() {
            if writer.thread().id() != std::thread::current().id() {
                let _ = writer.join();
            }
        }
    }
}

/// The most writes one batch takes.
const MAX_BATCH: usize = 256;

/// A queued write: its closure, and whether its caller waits for the fsync.
struct Job {
    durable: bool,
    run: Box<dyn FnOnce(&WriteTransaction) -> Done + Send>,
}

/// A write's closure has run: commit or roll back, then answer with the
/// outcome of the commit (and, for a durable write, of the fsync).
struct Done {
    commit: bool,
    answer: Answer,
}

/// Tells a write's caller how its commit went.
type Answer = Box<dyn FnOnce(Result<(), String>) + Send>;

thread_local! {
    /// Set by `put_json` when a write touches KEYS or ACCOUNTS.
    static KEYS_TOUCHED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Store {
    /// Open (or create) the database file and every table.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("failed to create {}", dir.display()))?;
        }
        let db = Database::create(path)
            .with_context(|| format!("failed to open the database {}", path.display()))?;
        Store::start(db)
    }

    /// A database in memory, for unit tests.
    pub fn in_memory() -> anyhow::Result<Store> {
        let db = Database::builder().create_with_backend(redb::backends::InMemoryBackend::new())?;
        Store::start(db)
    }

    fn start(db: Database) -> anyhow::Result<Store> {
        init(&db)?;
        let db = Arc::new(db);
        let keys_generation = Arc::new(AtomicU64::new(0));
        let stats = Arc::new(Counters::default());
        let (queue, jobs) = mpsc::channel();
        let writer = {
            let (db, generation, stats) = (db.clone(), keys_generation.clone(), stats.clone());
            std::thread::Builder::new()
                .name("fnhost-db-writer".into())
                .spawn(move || writer(&db, &generation, &stats, jobs))
                .context("failed to start the database writer")?
        };
        Ok(Store {
            inner: Arc::new(Inner {
                db,
                queue: Some(queue),
                writer: Some(writer),
                keys_generation,
                stats,
            }),
        })
    }

    /// Changes after every committed write that touched a key or an account
    /// (before that write's caller is answered): what a cache of them is
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
        f: impl FnOnce(&WriteTransaction) -> Result<R, E> + Send + 'static,
    ) -> oneshot::Receiver<Result<R, E>>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let run = Box::new(move |tx: &WriteTransaction| {
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
        if let Some(queue) = &self.inner.queue {
            // A closed queue drops the job, and so the reply: the caller sees an error.
            let _ = queue.send(Job { durable, run });
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
    pub fn write<R, E>(&self, f: impl FnOnce(&WriteTransaction) -> Result<R, E>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        self.write_here(redb::Durability::Immediate, f)
    }

    /// Like `write`, but the commit is not flushed to disk: it becomes
    /// durable with the next durable commit, and a crash before that rolls
    /// it back as a whole. For progress that may be lost but never
    /// half-applied (a run's pages before its end); never for ledger entries.
    pub fn write_relaxed<R, E>(
        &self,
        f: impl FnOnce(&WriteTransaction) -> Result<R, E>,
    ) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        self.write_here(redb::Durability::None, f)
    }

    fn write_here<R, E>(
        &self,
        durability: redb::Durability,
        f: impl FnOnce(&WriteTransaction) -> Result<R, E>,
    ) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        let mut tx = self.inner.db.begin_write().map_err(|e| E::from(e.into()))?;
        tx.set_durability(durability)
            .map_err(|e| E::from(anyhow::anyhow!("{e}")))?;
        let touched = KEYS_TOUCHED.with(|t| t.replace(false));
        let out = f(&tx);
        let touched_here = KEYS_TOUCHED.with(|t| t.replace(touched));
        let out = out?;
        tx.commit().map_err(|e| E::from(e.into()))?;
        if touched_here {
            self.inner.keys_generation.fetch_add(1, Ordering::SeqCst);
        }
        Ok(out)
    }

    /// `write_relaxed` through the writer thread, queued now and awaited
    /// later (or polled): writes queued one after another apply in that
    /// order, whatever their callers do meanwhile.
    pub fn queue_relaxed<R, E>(
        &self,
        f: impl FnOnce(&WriteTransaction) -> Result<R, E> + Send + 'static,
    ) -> Queued<R, E>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        Queued(self.submit(false, f))
    }

    /// Run `f` in a read transaction. Reads never block writes.
    pub fn read<R, E>(&self, f: impl FnOnce(&ReadTransaction) -> Result<R, E>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        let tx = self.inner.db.begin_read().map_err(|e| E::from(e.into()))?;
        f(&tx)
    }

    /// `write` through the writer thread (group commit), awaited: answered
    /// once the commit is on disk, and the executor never waits on redb.
    pub async fn write_async<R, E>(
        &self,
        f: impl FnOnce(&WriteTransaction) -> Result<R, E> + Send + 'static,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        Store::wait(self.submit(true, f).await)
    }

    /// `read` on a blocking thread.
    pub async fn read_async<R, E>(
        &self,
        f: impl FnOnce(&ReadTransaction) -> Result<R, E> + Send + 'static,
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
        "database write failed: the writer dropped it (a panic in the write)"
    ))
}

fn init(db: &Database) -> anyhow::Result<()> {
    let tx = db.begin_write()?;
    tx.open_table(ACCOUNTS)?;
    tx.open_table(KEYS)?;
    tx.open_table(KEY_HASHES)?;
    tx.open_table(LEDGER)?;
    tx.open_table(BALANCES)?;
    tx.open_table(RESERVATIONS)?;
    tx.open_table(SPEND_BY_DAY)?;
    tx.open_table(IDEMPOTENCY)?;
    tx.open_table(SESSIONS)?;
    tx.open_table(SESSION_INDEX)?;
    tx.open_table(RUNNING_SESSIONS)?;
    tx.open_table(EVENTS)?;
    tx.open_table(ROWS)?;
    tx.open_table(RECEIPTS)?;
    tx.open_table(SESSION_RECEIPTS)?;
    tx.open_table(PROPOSALS)?;
    tx.open_table(WEBHOOKS)?;
    tx.open_table(OUTBOX)?;
    tx.open_table(WEBHOOK_INDEX)?;
    tx.open_table(ATTEMPTS)?;
    tx.open_table(ATTEMPT_KEYS)?;
    tx.open_table(DEAD_LETTERS)?;
    tx.open_table(MESSAGES)?;
    tx.open_table(MONITORS)?;
    tx.open_table(MONITOR_RUNS)?;
    tx.open_table(META)?;
    tx.commit()?;
    Ok(())
}

/// The writer thread: batches of queued writes, one fsync per batch.
fn writer(db: &Database, keys_generation: &AtomicU64, stats: &Counters, jobs: mpsc::Receiver<Job>) {
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
            let mut tx = match db.begin_write() {
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
            if let Err(e) = tx.set_durability(durability) {
                tracing::error!(error = %e, "cannot set a write's durability");
                continue;
            }
            KEYS_TOUCHED.with(|t| t.set(false));
            let run = job.run;
            let done = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&tx))) {
                Ok(done) => done,
                Err(_) => {
                    // The write panicked: roll it back; its caller sees an error.
                    let _ = tx.abort();
                    continue;
                }
            };
            if !done.commit {
                // The closure refused: roll back this write alone.
                let _ = tx.abort();
                (done.answer)(Ok(()));
                continue;
            }
            let committed = tx.commit().map_err(|e| e.to_string());
            if committed.is_ok() {
                stats.commits.fetch_add(1, Ordering::Relaxed);
                if flush {
                    stats.flushes.fetch_add(1, Ordering::Relaxed);
                }
                if KEYS_TOUCHED.with(|t| t.replace(false)) {
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

fn answer_all(waiting: &mut Vec<Answer>, outcome: Result<(), String>) {
    for answer in waiting.drain(..) {
        answer(outcome.clone());
    }
}

/// Flush the batch's earlier commits when its last durable write did not commit.
fn empty_durable_commit(db: &Database) -> Result<(), String> {
    let tx = db.begin_write().map_err(|e| e.to_string())?;
    tx.commit().map_err(|e| e.to_string())
}

/// Encode a value for a `&[u8]` table.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("values serialize")
}

/// Decode a value read from a `&[u8]` table.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> anyhow::Result<T> {
    serde_json::from_slice(bytes).context("failed to decode a stored value")
}

/// Reading JSON values by key and by key prefix, the same way in read and
/// write transactions.
pub trait Tables {
    /// One value by key.
    fn get_json<T: DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        key: &str,
    ) -> anyhow::Result<Option<T>>;
    /// Values whose keys start with `prefix`, in key order, starting after
    /// `after` (a full key) when given, at most `limit`; `rev` walks backwards.
    fn scan_json<T: DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
        rev: bool,
    ) -> anyhow::Result<Vec<(String, T)>>;
}

/// One JSON value from an open table.
pub fn get_from_table<T: DeserializeOwned>(
    t: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
) -> anyhow::Result<Option<T>> {
    get_from(t, key)
}

fn get_from<T: DeserializeOwned>(
    t: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
) -> anyhow::Result<Option<T>> {
    match t.get(key)? {
        Some(v) => Ok(Some(decode(v.value())?)),
        None => Ok(None),
    }
}

fn scan_from<T: DeserializeOwned>(
    t: &impl ReadableTable<&'static str, &'static [u8]>,
    prefix: &str,
    after: Option<&str>,
    limit: usize,
    rev: bool,
) -> anyhow::Result<Vec<(String, T)>> {
    // Every key with the prefix sorts between `prefix` and `prefix + U+10FFFF`.
    let end = format!("{prefix}\u{10FFFF}");
    let mut out = Vec::new();
    let range: Box<dyn Iterator<Item = _>> = match (after, rev) {
        (None, false) => Box::new(t.range(prefix..end.as_str())?),
        (None, true) => Box::new(t.range(prefix..end.as_str())?.rev()),
        (Some(a), false) => {
            let mut it = t.range(a..end.as_str())?.peekable();
            if let Some(Ok((k, _))) = it.peek() {
                if k.value() == a {
                    it.next();
                }
            }
            Box::new(it)
        }
        (Some(a), true) => Box::new(t.range(prefix..a)?.rev()),
    };
    for row in range {
        let (k, v) = row?;
        out.push((k.value().to_string(), decode(v.value())?));
        if out.len() >= limit {
            break;
        }
    }
    Ok(out)
}

impl Tables for redb::ReadTransaction {
    fn get_json<T: DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        key: &str,
    ) -> anyhow::Result<Option<T>> {
        get_from(&self.open_table(table)?, key)
    }
    fn scan_json<T: DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
        rev: bool,
    ) -> anyhow::Result<Vec<(String, T)>> {
        scan_from(&self.open_table(table)?, prefix, after, limit, rev)
    }
}

impl Tables for WriteTransaction {
    fn get_json<T: DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        key: &str,
    ) -> anyhow::Result<Option<T>> {
        get_from(&self.open_table(table)?, key)
    }
    fn scan_json<T: DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
        rev: bool,
    ) -> anyhow::Result<Vec<(String, T)>> {
        scan_from(&self.open_table(table)?, prefix, after, limit, rev)
    }
}

/// Encode and insert one JSON value.
pub fn put_json<T: Serialize>(
    tx: &WriteTransaction,
    table: TableDefinition<&str, &[u8]>,
    key: &str,
    value: &T,
) -> anyhow::Result<()> {
    if table.name() == KEYS.name() || table.name() == ACCOUNTS.name() {
        KEYS_TOUCHED.with(|t| t.set(true));
    }
    tx.open_table(table)?
        .insert(key, encode(value).as_slice())?;
    Ok(())
}

/// Zero-padded decimal, so that keys sort by number.
pub fn pad(n: u64) -> String {
    format!("{n:020}")
}
