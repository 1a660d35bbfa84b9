//! Storage: every table declared in one place, one transaction type
//! ([`Tx`]) for domain code, and two engines behind it: redb, embedded, the
//! default; PostgreSQL, shared by several nodes. Nothing outside this module
//! names either engine.
//!
//! Writes are closures run in a transaction of their own; request paths
//! queue them to the node's writer (`write_async`, `queue_relaxed`), which
//! applies the writes of one [`Scope`] in queue order. Reads run on the
//! caller's thread (`read`) or a blocking thread (`read_async`).

mod connect;
pub mod key;
mod locks;
mod postgres;
mod redb_engine;
mod tables;
pub mod tls;
mod tx;
mod writer;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use anyhow::Context;
use redb::ReadableDatabase;
use serde::{de::DeserializeOwned, Serialize};
use tokio::sync::oneshot;

pub use connect::KEYS_POLL;
pub use locks::{account_lock_key, INSTALLATION_LOCK};
pub use postgres::schema_version as postgres_schema_version;
use tables::ALL;
pub use tables::*;
pub use tx::{put_json, Tx};
use writer::{dropped_write, lane_of, postgres_writer, redb_writer, Done, Job, POSTGRES_LANES};

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

/// Encode a value for a JSON table.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("values serialize")
}

/// Decode a value read from a JSON table.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> anyhow::Result<T> {
    serde_json::from_slice(bytes).context("failed to decode a stored value")
}
