//! A transaction, whichever engine runs it: the one way domain code reads
//! and writes tables. Keys are strings ordered by their bytes (the ledger's
//! are sequence numbers); values are JSON, short strings or counters,
//! according to the table's [`Kind`].

use std::cell::Cell;
use std::ops::Bound;

use serde::{de::DeserializeOwned, Serialize};

use super::{decode, encode, Counter, Index, Kind, Seq, Table, ACCOUNTS, KEYS};

/// What the engine of a transaction does with raw keys and values.
pub(super) trait Engine {
    fn get(&self, table: Table, key: &[u8]) -> anyhow::Result<Option<Vec<u8>>>;
    fn put(&self, table: Table, key: &[u8], value: &[u8]) -> anyhow::Result<()>;
    fn remove(&self, table: Table, key: &[u8]) -> anyhow::Result<bool>;
    /// Rows with keys in the bounds, in key order (backwards when `rev`), at most `limit`.
    fn range(
        &self,
        table: Table,
        lo: Bound<&[u8]>,
        hi: Bound<&[u8]>,
        rev: bool,
        limit: usize,
    ) -> anyhow::Result<Vec<(Vec<u8>, Vec<u8>)>>;
}

/// A read or write transaction. Reads see one consistent snapshot; a write
/// transaction commits whole or not at all.
pub struct Tx<'a> {
    engine: &'a dyn Engine,
    writable: bool,
    node: &'a str,
    keys_touched: Cell<bool>,
}

/// Every key that starts with a prefix sorts below the prefix followed by
/// the highest code point.
fn prefix_end(prefix: &str) -> String {
    format!("{prefix}\u{10FFFF}")
}

impl<'a> Tx<'a> {
    pub(super) fn new(engine: &'a dyn Engine, writable: bool, node: &'a str) -> Tx<'a> {
        Tx {
            engine,
            writable,
            node,
            keys_touched: Cell::new(false),
        }
    }

    /// The node this transaction runs on (what running sessions and claims
    /// are marked with).
    pub fn node(&self) -> &str {
        self.node
    }

    /// Did this transaction write a key or an account (caches of them are
    /// invalidated once it commits)?
    pub(super) fn touched_keys(&self) -> bool {
        self.keys_touched.get()
    }

    fn check_write<V>(&self, table: Table<V>) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.writable,
            "a read transaction cannot write {}",
            table.name
        );
        if table.name == KEYS.name || table.name == ACCOUNTS.name {
            self.keys_touched.set(true);
        }
        Ok(())
    }

    // JSON values by string key.

    /// One value by key.
    pub fn get_json<T: DeserializeOwned>(
        &self,
        table: Table<T>,
        key: &str,
    ) -> anyhow::Result<Option<T>> {
        match self.engine.get(table.erase(), key.as_bytes())? {
            Some(v) => Ok(Some(decode(&v)?)),
            None => Ok(None),
        }
    }

    /// Encode and insert one value.
    pub fn put_json<T: Serialize>(
        &self,
        table: Table<T>,
        key: &str,
        value: &T,
    ) -> anyhow::Result<()> {
        self.check_write(table)?;
        self.engine
            .put(table.erase(), key.as_bytes(), &encode(value))
    }

    /// A value's stored bytes, whatever the table holds (for singletons
    /// that are not JSON, and for checking what an engine keeps).
    pub fn get_bytes<V>(&self, table: Table<V>, key: &str) -> anyhow::Result<Option<Vec<u8>>> {
        anyhow::ensure!(table.kind == Kind::Json, "{} holds no records", table.name);
        self.engine.get(table.erase(), key.as_bytes())
    }

    pub fn put_bytes<V>(&self, table: Table<V>, key: &str, value: &[u8]) -> anyhow::Result<()> {
        anyhow::ensure!(table.kind == Kind::Json, "{} holds no records", table.name);
        self.check_write(table)?;
        self.engine.put(table.erase(), key.as_bytes(), value)
    }

    /// Values whose keys start with `prefix`, in key order, starting after
    /// `after` (a full key) when given, at most `limit`; `rev` walks backwards.
    pub fn scan_json<T: DeserializeOwned>(
        &self,
        table: Table<T>,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
        rev: bool,
    ) -> anyhow::Result<Vec<(String, T)>> {
        self.scan_raw(table.erase(), prefix, after, limit, rev)?
            .into_iter()
            .map(|(k, v)| Ok((k, decode(&v)?)))
            .collect()
    }

    fn scan_raw(
        &self,
        table: Table,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
        rev: bool,
    ) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        let end = prefix_end(prefix);
        let (lo, hi) = match (after, rev) {
            (None, _) => (Bound::Included(prefix), Bound::Excluded(end.as_str())),
            (Some(a), false) => (Bound::Excluded(a), Bound::Excluded(end.as_str())),
            (Some(a), true) => (Bound::Included(prefix), Bound::Excluded(a)),
        };
        self.range_str(table, lo, hi, rev, limit)
    }

    fn range_str(
        &self,
        table: Table,
        lo: Bound<&str>,
        hi: Bound<&str>,
        rev: bool,
        limit: usize,
    ) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        self.engine
            .range(
                table,
                lo.map(str::as_bytes),
                hi.map(str::as_bytes),
                rev,
                limit,
            )?
            .into_iter()
            .map(|(k, v)| Ok((String::from_utf8(k)?, v)))
            .collect()
    }

    /// Remove a key from any string-keyed table; true if it was there.
    pub fn remove<V>(&self, table: Table<V>, key: &str) -> anyhow::Result<bool> {
        anyhow::ensure!(
            table.kind != Kind::Seq,
            "{} is keyed by numbers",
            table.name
        );
        self.check_write(table)?;
        self.engine.remove(table.erase(), key.as_bytes())
    }

    // Index tables: string → string.

    pub fn get_str(&self, table: Table<Index>, key: &str) -> anyhow::Result<Option<String>> {
        match self.engine.get(table.erase(), key.as_bytes())? {
            Some(v) => Ok(Some(String::from_utf8(v)?)),
            None => Ok(None),
        }
    }

    pub fn put_str(&self, table: Table<Index>, key: &str, value: &str) -> anyhow::Result<()> {
        self.check_write(table)?;
        self.engine
            .put(table.erase(), key.as_bytes(), value.as_bytes())
    }

    /// Like [`Tx::scan_json`], for an index table.
    pub fn scan_str(
        &self,
        table: Table<Index>,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
        rev: bool,
    ) -> anyhow::Result<Vec<(String, String)>> {
        self.scan_raw(table.erase(), prefix, after, limit, rev)?
            .into_iter()
            .map(|(k, v)| Ok((k, String::from_utf8(v)?)))
            .collect()
    }

    // Counter tables: string → i64.

    pub fn get_i64(&self, table: Table<Counter>, key: &str) -> anyhow::Result<Option<i64>> {
        let v = self.engine.get(table.erase(), key.as_bytes())?;
        Ok(v.map(|v| counter(&v)))
    }

    pub fn put_i64(&self, table: Table<Counter>, key: &str, value: i64) -> anyhow::Result<()> {
        self.check_write(table)?;
        self.engine
            .put(table.erase(), key.as_bytes(), &value.to_be_bytes())
    }

    /// Counters with keys from `lo` to `hi`, both included, in key order.
    pub fn range_i64(
        &self,
        table: Table<Counter>,
        lo: &str,
        hi: &str,
    ) -> anyhow::Result<Vec<(String, i64)>> {
        self.range_str(
            table.erase(),
            Bound::Included(lo),
            Bound::Included(hi),
            false,
            usize::MAX,
        )?
        .into_iter()
        .map(|(k, v)| Ok((k, counter(&v))))
        .collect()
    }

    /// Counters whose keys start with `prefix`.
    pub fn scan_i64(
        &self,
        table: Table<Counter>,
        prefix: &str,
    ) -> anyhow::Result<Vec<(String, i64)>> {
        self.scan_raw(table.erase(), prefix, None, usize::MAX, false)?
            .into_iter()
            .map(|(k, v)| Ok((k, counter(&v))))
            .collect()
    }

    // Sequence tables: u64 → JSON, appended in order.

    /// The highest sequence number written, if any.
    pub fn last_seq<T>(&self, table: Table<Seq<T>>) -> anyhow::Result<Option<u64>> {
        let last = self
            .engine
            .range(table.erase(), Bound::Unbounded, Bound::Unbounded, true, 1)?;
        Ok(last.first().map(|(k, _)| seq(k)))
    }

    pub fn put_seq<T: Serialize>(
        &self,
        table: Table<Seq<T>>,
        n: u64,
        value: &T,
    ) -> anyhow::Result<()> {
        self.check_write(table)?;
        self.engine
            .put(table.erase(), &n.to_be_bytes(), &encode(value))
    }

    pub fn remove_seq<T>(&self, table: Table<Seq<T>>, n: u64) -> anyhow::Result<bool> {
        self.check_write(table)?;
        self.engine.remove(table.erase(), &n.to_be_bytes())
    }

    /// Values after sequence number `after` (exclusive), in order, at most `limit`.
    pub fn scan_seq<T: DeserializeOwned>(
        &self,
        table: Table<Seq<T>>,
        after: u64,
        limit: usize,
    ) -> anyhow::Result<Vec<(u64, T)>> {
        let from = after.to_be_bytes();
        self.engine
            .range(
                table.erase(),
                Bound::Excluded(&from),
                Bound::Unbounded,
                false,
                limit,
            )?
            .into_iter()
            .map(|(k, v)| Ok((seq(&k), decode(&v)?)))
            .collect()
    }
}

fn counter(v: &[u8]) -> i64 {
    i64::from_be_bytes(v.try_into().unwrap_or([0; 8]))
}

fn seq(k: &[u8]) -> u64 {
    u64::from_be_bytes(k.try_into().unwrap_or([0; 8]))
}

/// Encode and insert one JSON value (the free-function form).
pub fn put_json<T: Serialize>(
    tx: &Tx,
    table: Table<T>,
    key: &str,
    value: &T,
) -> anyhow::Result<()> {
    tx.put_json(table, key, value)
}
