//! The shared engine: PostgreSQL, for several nodes on one database.
//!
//! Every table is a key range of one relation, `fnhost_kv (tbl, k, v)`,
//! ordered by the key's bytes exactly as redb orders them, so domain code
//! runs unchanged on either engine. What each engine promises:
//!
//! - **Writes are serialized per scope across every node** (see
//!   [`Scope`]): a write transaction first takes transaction-level advisory
//!   locks, so it sees every write of its scope committed before it and
//!   none commits between its reads and its writes. A write of one account
//!   takes the installation lock shared and its account's lock exclusive;
//!   a write of one object (a lease, the outbox claims) the installation
//!   lock shared and the object's; a write of `Scope::All` the installation
//!   lock exclusive, so it runs alone. That is redb's one-writer rule per
//!   account, stretched over the nodes: the ledger's invariants,
//!   idempotency claims and run claims hold as they do on one machine, and
//!   writes of different accounts do not wait for each other.
//! - **Reads are snapshots** (`REPEATABLE READ, READ ONLY`) and never wait
//!   for the lock.
//! - Durable writes wait for PostgreSQL's own commit (its WAL flush);
//!   relaxed ones commit with `synchronous_commit = off`.
//!
//! A write transaction keeps its puts and removes in memory (reads see
//! them) and sends them as two statements, before its next range read and
//! at its commit: a transaction of many small writes costs a few round
//! trips, not one per write.
//!
//! The driver is tokio-postgres. Its connections are driven by a runtime of
//! their own (one thread), and a transaction's statements are awaited with
//! a plain executor on the calling thread, so the store's synchronous
//! closures work unchanged, from any thread.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use anyhow::Context;
use futures::executor::block_on;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Statement};

use super::connect::{connection_config, watch_keys, Connect, KEYS_GENERATION, KEYS_POLL};
use super::locks::{generation_mark, opening};
use super::tx::{Engine, Tx};
use super::{Scope, Table, COUNTERS};

/// The lock migrations run under.
const MIGRATION_LOCK: i64 = 0x666e_686f_7374_02;
/// Connections for reads and blocking writes, per node.
const POOL_SIZE: usize = 16;

/// The schema, one migration per version, applied in order and never edited.
const MIGRATIONS: &[(i32, &str, &str)] = &[(
    1,
    "key-value tables",
    include_str!("../../migrations/postgres/0001_kv.sql"),
)];

/// The newest schema version this build knows.
pub fn schema_version() -> i32 {
    MIGRATIONS.last().map(|m| m.0).unwrap_or(0)
}

/// One connection and its prepared statements.
pub(super) struct Conn {
    client: Client,
    get: Statement,
    put: Statement,
    del: Statement,
    ranges: RefCell<HashMap<(u8, u8, bool), Statement>>,
    in_tx: std::cell::Cell<bool>,
    /// The open transaction's opening statements, until they go out with
    /// its first statement.
    opening: RefCell<Option<String>>,
    /// A statement of the open transaction failed: the server has aborted
    /// it, and it must not be reported committed (PostgreSQL answers the
    /// COMMIT of an aborted transaction with a rollback, not an error).
    failed: std::cell::Cell<bool>,
    /// The open transaction's writes not sent yet: the value, or `None`
    /// for a removal.
    unsent: RefCell<BTreeMap<(&'static str, Vec<u8>), Option<Vec<u8>>>>,
}

/// The engine: a runtime for the connections, and a pool of them.
pub(super) struct Pg {
    connect: Connect,
    runtime: Mutex<Option<tokio::runtime::Runtime>>,
    handle: tokio::runtime::Handle,
    pool: Mutex<Vec<Conn>>,
    returned: Condvar,
    open: AtomicUsize,
}

impl Drop for Pg {
    fn drop(&mut self) {
        if let Some(rt) = self
            .runtime
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            rt.shutdown_background();
        }
    }
}

fn db_err(e: tokio_postgres::Error) -> anyhow::Error {
    match e.as_db_error() {
        Some(db) => anyhow::anyhow!("postgres: {} ({})", db.message(), db.code().code()),
        None => {
            // The driver's message names the step; its sources say why
            // (e.g. which certificate check failed).
            let mut text = format!("postgres: {e}");
            let mut source = std::error::Error::source(&e);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            anyhow::anyhow!(text)
        }
    }
}

impl Pg {
    /// Connect, migrate the schema to this build's version, and start
    /// watching other nodes' key changes.
    pub(super) fn open(url: &str, keys_generation: Arc<AtomicU64>) -> anyhow::Result<Arc<Pg>> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("fnhost-postgres")
            .enable_all()
            .build()
            .context("failed to start the database runtime")?;
        let pg = Arc::new(Pg {
            connect: connection_config(url)?,
            handle: runtime.handle().clone(),
            runtime: Mutex::new(Some(runtime)),
            pool: Mutex::new(Vec::new()),
            returned: Condvar::new(),
            open: AtomicUsize::new(0),
        });
        let client = pg.client().context("failed to connect to PostgreSQL")?;
        migrate(&client)?;
        drop(client);
        let first = pg.connect()?;
        pg.open.fetch_add(1, Ordering::SeqCst);
        pg.pool.lock().unwrap().push(first);
        pg.watch_keys(keys_generation)?;
        Ok(pg)
    }

    /// A bare client whose connection runs on the engine's runtime.
    fn client(&self) -> anyhow::Result<Client> {
        let Connect { config, tls } = self.connect.clone();
        let connected = block_on(self.handle.spawn(async move {
            let (client, connection) = config.connect(tls).await?;
            tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::warn!(error = %e, "a PostgreSQL connection ended");
                }
            });
            Ok::<_, tokio_postgres::Error>(client)
        }))
        .context("the database runtime stopped")?;
        connected.map_err(db_err)
    }

    /// A new connection with its statements prepared.
    pub(super) fn connect(&self) -> anyhow::Result<Conn> {
        let client = self.client()?;
        let prepare = |sql: &str| block_on(client.prepare(sql)).map_err(db_err);
        let get = prepare("SELECT v FROM fnhost_kv WHERE tbl = $1 AND k = $2")?;
        let put = prepare(
            "INSERT INTO fnhost_kv (tbl, k, v) \
             SELECT * FROM unnest($1::text[], $2::bytea[], $3::bytea[]) \
             ON CONFLICT (tbl, k) DO UPDATE SET v = EXCLUDED.v",
        )?;
        let del = prepare(
            "DELETE FROM fnhost_kv WHERE (tbl, k) IN \
             (SELECT * FROM unnest($1::text[], $2::bytea[]))",
        )?;
        Ok(Conn {
            client,
            get,
            put,
            del,
            ranges: RefCell::new(HashMap::new()),
            in_tx: std::cell::Cell::new(false),
            opening: RefCell::new(None),
            failed: std::cell::Cell::new(false),
            unsent: RefCell::new(BTreeMap::new()),
        })
    }

    /// Take a pooled connection (opening one while under the pool's size,
    /// else waiting for one to come back).
    fn checkout(&self) -> anyhow::Result<Pooled<'_>> {
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(conn) = pool.pop() {
                if conn.is_closed() {
                    // Lost while idle: open another instead.
                    self.open.fetch_sub(1, Ordering::SeqCst);
                    continue;
                }
                return Ok(Pooled {
                    pg: self,
                    conn: Some(conn),
                });
            }
            if self.open.load(Ordering::SeqCst) < POOL_SIZE {
                self.open.fetch_add(1, Ordering::SeqCst);
                drop(pool);
                return match self.connect() {
                    Ok(conn) => Ok(Pooled {
                        pg: self,
                        conn: Some(conn),
                    }),
                    Err(e) => {
                        self.open.fetch_sub(1, Ordering::SeqCst);
                        self.returned.notify_one();
                        Err(e)
                    }
                };
            }
            pool = self.returned.wait(pool).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Run `f` in a read-only snapshot.
    pub(super) fn read<R>(&self, node: &str, f: impl FnOnce(&Tx) -> R) -> anyhow::Result<R> {
        let conn = self.checkout()?;
        let conn = conn.get();
        conn.begin("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")?;
        let out = f(&Tx::new(conn, false, node));
        conn.end("COMMIT")?;
        Ok(out)
    }

    /// Run `f` in a write transaction on a pooled connection (see [`write_on`]).
    pub(super) fn write<R>(
        &self,
        node: &str,
        durable: bool,
        scope: &Scope,
        f: impl FnOnce(&Tx) -> (bool, R),
    ) -> anyhow::Result<Written<R>> {
        let conn = self.checkout()?;
        write_on(conn.get(), node, durable, scope, f)
    }

    /// A write that takes no lock: only for rows no other
    /// node writes (a node's own heartbeat), so that it never waits behind
    /// other nodes' transactions.
    pub(super) fn write_unlocked<R>(
        &self,
        node: &str,
        f: impl FnOnce(&Tx) -> (bool, R),
    ) -> anyhow::Result<Written<R>> {
        let conn = self.checkout()?;
        let conn = conn.get();
        conn.begin("BEGIN")?;
        let tx = Tx::new(conn, true, node);
        let (commit, out) = f(&tx);
        if commit {
            conn.commit()?;
        } else {
            conn.end("ROLLBACK")?;
        }
        Ok(Written {
            out,
            committed: commit,
        })
    }

    /// Bump the local keys generation whenever another node moves the
    /// shared one. A lost connection is opened again; until it is, the
    /// local generation moves every poll, so the cache reads keys afresh
    /// rather than trust what it holds.
    fn watch_keys(&self, local: Arc<AtomicU64>) -> anyhow::Result<()> {
        let connect = self.connect.clone();
        // Watched: if the watch ever ends (a panic), it is logged and
        // started again, and keys are read afresh meanwhile.
        self.handle.spawn(async move {
            loop {
                let watch = tokio::spawn(watch_keys(connect.clone(), local.clone()));
                let ended = watch.await;
                tracing::error!(?ended, "watching key changes stopped; starting it again");
                local.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(KEYS_POLL).await;
            }
        });
        Ok(())
    }
}

/// A transaction's unsent writes, as the arrays the batch statements take.
#[derive(Default)]
struct Unsent {
    put_tables: Vec<&'static str>,
    put_keys: Vec<Vec<u8>>,
    put_values: Vec<Vec<u8>>,
    del_tables: Vec<&'static str>,
    del_keys: Vec<Vec<u8>>,
}

/// A pooled connection, given back when dropped (or closed, if broken).
struct Pooled<'a> {
    pg: &'a Pg,
    conn: Option<Conn>,
}

impl Pooled<'_> {
    fn get(&self) -> &Conn {
        self.conn.as_ref().expect("a pooled connection")
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else { return };
        // A transaction left open by a panic is rolled back before reuse.
        let healthy =
            !conn.client.is_closed() && (!conn.in_tx.get() || conn.end("ROLLBACK").is_ok());
        if healthy {
            self.pg
                .pool
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(conn);
        } else {
            self.pg.open.fetch_sub(1, Ordering::SeqCst);
        }
        self.pg.returned.notify_one();
    }
}

/// What a write transaction did.
pub(super) struct Written<R> {
    pub out: R,
    pub committed: bool,
}

/// Run `f` in a write transaction on `conn`, after taking the locks of
/// `scope`; commit when `f` says so (its first value), else roll back. A
/// panic in `f` rolls back and carries on up.
pub(super) fn write_on<R>(
    conn: &Conn,
    node: &str,
    durable: bool,
    scope: &Scope,
    f: impl FnOnce(&Tx) -> (bool, R),
) -> anyhow::Result<Written<R>> {
    conn.begin(&opening(scope, durable))?;
    let tx = Tx::new(conn, true, node);
    let (commit, out) = f(&tx);
    if !commit {
        conn.end("ROLLBACK")?;
        return Ok(Written {
            out,
            committed: false,
        });
    }
    if tx.touched_keys() {
        // Any new value tells the other nodes' watches that keys changed:
        // one no other write gives, so that writes of two accounts at once
        // need not read each other's (no lost change).
        tx.put_i64(COUNTERS, KEYS_GENERATION, generation_mark())?;
    }
    conn.commit()?;
    Ok(Written {
        out,
        committed: true,
    })
}

impl Conn {
    pub(super) fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// Open a transaction. Its opening statements go out with its first
    /// statement, in the same round trip (the server runs them in order, so
    /// that statement's snapshot is taken after its locks are held).
    fn begin(&self, sql: &str) -> anyhow::Result<()> {
        if self.in_tx.get() {
            self.end("ROLLBACK")?;
        }
        self.unsent.borrow_mut().clear();
        *self.opening.borrow_mut() = Some(sql.to_string());
        self.failed.set(false);
        self.in_tx.set(true);
        Ok(())
    }

    /// End the transaction with `sql` (a transaction that sent nothing has
    /// nothing to end).
    fn end(&self, sql: &str) -> anyhow::Result<()> {
        self.in_tx.set(false);
        self.unsent.borrow_mut().clear();
        if self.opening.borrow_mut().take().is_some() {
            return Ok(());
        }
        block_on(self.client.batch_execute(sql)).map_err(db_err)
    }

    /// Await one statement, preceded by the transaction's opening if it has
    /// not gone out yet.
    fn send<T>(
        &self,
        statement: impl std::future::Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> anyhow::Result<T> {
        let opening = self.opening.borrow_mut().take();
        let out = match opening {
            None => block_on(statement).map_err(db_err),
            Some(open) => {
                let (opened, out) = block_on(futures::future::join(
                    self.client.batch_execute(&open),
                    statement,
                ));
                opened.map_err(db_err).and_then(|()| out.map_err(db_err))
            }
        };
        if out.is_err() {
            self.failed.set(true);
        }
        out
    }

    /// The unsent writes as the arrays of the two batch statements.
    fn take_unsent(&self) -> Unsent {
        let mut out = Unsent::default();
        for ((table, key), value) in std::mem::take(&mut *self.unsent.borrow_mut()) {
            match value {
                Some(v) => {
                    out.put_tables.push(table);
                    out.put_keys.push(key);
                    out.put_values.push(v);
                }
                None => {
                    out.del_tables.push(table);
                    out.del_keys.push(key);
                }
            }
        }
        out
    }

    /// The two batch statements of `w` (the puts, then the removals),
    /// pipelined on the connection when awaited.
    async fn write_batches(&self, w: &Unsent) -> Result<(), tokio_postgres::Error> {
        let puts = async {
            if w.put_tables.is_empty() {
                return Ok(0);
            }
            let params: [&(dyn ToSql + Sync); 3] = [&w.put_tables, &w.put_keys, &w.put_values];
            self.client.execute(&self.put, &params).await
        };
        let dels = async {
            if w.del_tables.is_empty() {
                return Ok(0);
            }
            let params: [&(dyn ToSql + Sync); 2] = [&w.del_tables, &w.del_keys];
            self.client.execute(&self.del, &params).await
        };
        let (put, del) = futures::future::join(puts, dels).await;
        put.and(del).map(|_| ())
    }

    /// Send the transaction's unsent writes, in one round trip.
    fn send_writes(&self) -> anyhow::Result<()> {
        let w = self.take_unsent();
        if w.put_tables.is_empty() && w.del_tables.is_empty() {
            return Ok(());
        }
        self.send(self.write_batches(&w))
    }

    /// Send the unsent writes and COMMIT, in one round trip.
    fn commit(&self) -> anyhow::Result<()> {
        if self.failed.get() {
            self.end("ROLLBACK")?;
            anyhow::bail!("a statement of the transaction failed; it was rolled back");
        }
        if self.opening.borrow().is_some() && self.unsent.borrow().is_empty() {
            // Nothing was read or written.
            return self.end("COMMIT");
        }
        self.in_tx.set(false);
        let opening = self.opening.borrow_mut().take();
        let w = self.take_unsent();
        let open = async {
            match &opening {
                Some(sql) => self.client.batch_execute(sql).await,
                None => Ok(()),
            }
        };
        // After a failed statement the server answers COMMIT by rolling
        // back, so the first error below is the outcome.
        let (opened, written, committed) = block_on(futures::future::join3(
            open,
            self.write_batches(&w),
            self.client.batch_execute("COMMIT"),
        ));
        opened.map_err(db_err)?;
        written.map_err(db_err)?;
        committed.map_err(db_err)
    }

    fn get_sent(&self, table: Table, key: &[u8]) -> anyhow::Result<Option<Vec<u8>>> {
        let params: [&(dyn ToSql + Sync); 2] = [&table.name, &key];
        let row = self.send(self.client.query_opt(&self.get, &params))?;
        Ok(row.map(|r| r.get(0)))
    }

    fn range_statement(&self, lo: u8, hi: u8, rev: bool) -> anyhow::Result<Statement> {
        if let Some(s) = self.ranges.borrow().get(&(lo, hi, rev)) {
            return Ok(s.clone());
        }
        let mut sql = String::from("SELECT k, v FROM fnhost_kv WHERE tbl = $1");
        let mut n = 1;
        for (bound, op_in, op_ex) in [(lo, ">=", ">"), (hi, "<=", "<")] {
            if bound != 0 {
                n += 1;
                let op = if bound == 1 { op_in } else { op_ex };
                sql.push_str(&format!(" AND k {op} ${n}"));
            }
        }
        sql.push_str(&format!(
            " ORDER BY k {} LIMIT ${}",
            if rev { "DESC" } else { "ASC" },
            n + 1
        ));
        let s = block_on(self.client.prepare(&sql)).map_err(db_err)?;
        self.ranges.borrow_mut().insert((lo, hi, rev), s.clone());
        Ok(s)
    }
}

fn bound_kind(b: &Bound<&[u8]>) -> u8 {
    match b {
        Bound::Unbounded => 0,
        Bound::Included(_) => 1,
        Bound::Excluded(_) => 2,
    }
}

impl Engine for Conn {
    fn get(&self, table: Table, key: &[u8]) -> anyhow::Result<Option<Vec<u8>>> {
        if let Some(v) = self.unsent.borrow().get(&(table.name, key.to_vec())) {
            return Ok(v.clone());
        }
        self.get_sent(table, key)
    }

    fn put(&self, table: Table, key: &[u8], value: &[u8]) -> anyhow::Result<()> {
        self.unsent
            .borrow_mut()
            .insert((table.name, key.to_vec()), Some(value.to_vec()));
        Ok(())
    }

    fn remove(&self, table: Table, key: &[u8]) -> anyhow::Result<bool> {
        let existed = self.get(table, key)?.is_some();
        self.unsent
            .borrow_mut()
            .insert((table.name, key.to_vec()), None);
        Ok(existed)
    }

    fn range(
        &self,
        table: Table,
        lo: Bound<&[u8]>,
        hi: Bound<&[u8]>,
        rev: bool,
        limit: usize,
    ) -> anyhow::Result<Vec<(Vec<u8>, Vec<u8>)>> {
        // A range reads what the transaction wrote, so its writes go first.
        self.send_writes()?;
        let statement = self.range_statement(bound_kind(&lo), bound_kind(&hi), rev)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&table.name];
        let (lo_key, hi_key);
        if let Bound::Included(k) | Bound::Excluded(k) = lo {
            lo_key = k;
            params.push(&lo_key);
        }
        if let Bound::Included(k) | Bound::Excluded(k) = hi {
            hi_key = k;
            params.push(&hi_key);
        }
        params.push(&limit);
        let rows = self.send(self.client.query(&statement, &params))?;
        Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
    }
}

/// Bring the schema to this build's version, one migration at a time,
/// under a lock so that nodes starting together apply each once.
fn migrate(client: &Client) -> anyhow::Result<()> {
    let run = |sql: &str| block_on(client.batch_execute(sql)).map_err(db_err);
    run(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))?;
    let out = (|| -> anyhow::Result<()> {
        run("CREATE TABLE IF NOT EXISTS fnhost_schema_migrations (\
               version integer PRIMARY KEY, \
               name text NOT NULL, \
               applied_at timestamptz NOT NULL DEFAULT now())")?;
        let row = block_on(client.query_one(
            "SELECT coalesce(max(version), 0) FROM fnhost_schema_migrations",
            &[],
        ))
        .map_err(db_err)?;
        let current: i32 = row.get(0);
        anyhow::ensure!(
            current <= schema_version(),
            "the database's schema is version {current}, newer than this fnhost knows ({}); run a newer fnhost",
            schema_version()
        );
        for (version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > current) {
            run("BEGIN")?;
            let applied = run(sql).and_then(|()| {
                block_on(client.execute(
                    "INSERT INTO fnhost_schema_migrations (version, name) VALUES ($1, $2)",
                    &[version, name],
                ))
                .map_err(db_err)
            });
            match applied {
                Ok(_) => run("COMMIT")?,
                Err(e) => {
                    let _ = run("ROLLBACK");
                    return Err(e.context(format!("schema migration {version} ({name}) failed")));
                }
            }
            tracing::info!(version, name, "applied a schema migration");
        }
        Ok(())
    })();
    let _ = run(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"));
    out
}
