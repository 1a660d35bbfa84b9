//! The redb database: every table declared in one place, opened together,
//! and small helpers for JSON values and for running transactions off the
//! async executor.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use redb::{
    Database, ReadTransaction, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction,
};
use serde::{de::DeserializeOwned, Serialize};

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
/// Small singletons: schema version, the receipt signing key, secrets.
pub const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// A handle on the database, cheap to clone.
#[derive(Clone)]
pub struct Store {
    db: Arc<Database>,
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
        let store = Store { db: Arc::new(db) };
        store.init()?;
        Ok(store)
    }

    /// A database in memory, for unit tests.
    pub fn in_memory() -> anyhow::Result<Store> {
        let db = Database::builder().create_with_backend(redb::backends::InMemoryBackend::new())?;
        let store = Store { db: Arc::new(db) };
        store.init()?;
        Ok(store)
    }

    fn init(&self) -> anyhow::Result<()> {
        let tx = self.db.begin_write()?;
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
        tx.open_table(META)?;
        tx.commit()?;
        Ok(())
    }

    /// Run `f` in a write transaction and commit it durably if `f` succeeds.
    /// Blocking: call from a blocking thread (see `write_async`).
    pub fn write<R, E>(&self, f: impl FnOnce(&WriteTransaction) -> Result<R, E>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        let tx = self.db.begin_write().map_err(|e| E::from(e.into()))?;
        let out = f(&tx)?;
        tx.commit().map_err(|e| E::from(e.into()))?;
        Ok(out)
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
        let mut tx = self.db.begin_write().map_err(|e| E::from(e.into()))?;
        tx.set_durability(redb::Durability::None)
            .map_err(|e| E::from(anyhow::anyhow!("{e}")))?;
        let out = f(&tx)?;
        tx.commit().map_err(|e| E::from(e.into()))?;
        Ok(out)
    }

    /// `write_relaxed` on a blocking thread.
    pub async fn write_relaxed_async<R, E>(
        &self,
        f: impl FnOnce(&WriteTransaction) -> Result<R, E> + Send + 'static,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.write_relaxed(f))
            .await
            .map_err(|e| E::from(anyhow::anyhow!("database task failed: {e}")))?
    }

    /// Run `f` in a read transaction. Reads never block writes.
    pub fn read<R, E>(&self, f: impl FnOnce(&ReadTransaction) -> Result<R, E>) -> Result<R, E>
    where
        E: From<anyhow::Error>,
    {
        let tx = self.db.begin_read().map_err(|e| E::from(e.into()))?;
        f(&tx)
    }

    /// `write` on a blocking thread, so redb's fsync never stalls the executor.
    pub async fn write_async<R, E>(
        &self,
        f: impl FnOnce(&WriteTransaction) -> Result<R, E> + Send + 'static,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<anyhow::Error> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.write(f))
            .await
            .map_err(|e| E::from(anyhow::anyhow!("database task failed: {e}")))?
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
    tx.open_table(table)?
        .insert(key, encode(value).as_slice())?;
    Ok(())
}

/// Zero-padded decimal, so that keys sort by number.
pub fn pad(n: u64) -> String {
    format!("{n:020}")
}
