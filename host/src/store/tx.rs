//! A transaction, whichever engine runs it: the one way domain code reads
//! and writes tables. Keys are strings ordered by their bytes (the ledger's
//! are sequence numbers); values are JSON, short strings or counters,
//! according to the table's [`Kind`].

use std::cell::Cell;
use std::ops::Bound;

use serde::{de::DeserializeOwned, Serialize};

use super::{decode, encode, Kind, Table, ACCOUNTS, KEYS};

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

    fn check_write(&self, table: Table) -> anyhow::Result<()> {
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

    fn expect(table: Table, kind: Kind) {
        debug_assert!(
            table.kind == kind,
            "table {} is {:?}, not {kind:?}",
            table.name,
            table.kind
        );
    }

    // JSON values by string key.

    /// One value by key.
    pub fn get_json<T: DeserializeOwned>(
        &self,
        table: Table,
        key: &str,
    ) -> anyhow::Result<Option<T>> {
        Self::expect(table, Kind::Json);
        match self.engine.get(table, key.as_bytes())? {
            Some(v) => Ok(Some(decode(&v)?)),
            None => Ok(None),
        }
    }

    /// Encode and insert one value.
    pub fn put_json<T: Serialize>(&self, table: Table, key: &str, value: &T) -> anyhow::Result<()> {
        Self::expect(table, Kind::Json);
        self.check_write(table)?;
        self.engine.put(table, key.as_bytes(), &encode(value))
    }

    /// A value's stored bytes (for singletons that are not JSON).
    pub fn get_bytes(&self, table: Table, key: &str) -> anyhow::Result<Option<Vec<u8>>> {
        Self::expect(table, Kind::Json);
        self.engine.get(table, key.as_bytes())
    }

    pub fn put_bytes(&self, table: Table, key: &str, value: &[u8]) -> anyhow::Result<()> {
        Self::expect(table, Kind::Json);
        self.check_write(table)?;
        self.engine.put(table, key.as_bytes(), value)
    }

    /// Values whose keys start with `prefix`, in key order, starting after
    /// `after` (a full key) when given, at most `limit`; `rev` walks backwards.
    pub fn scan_json<T: DeserializeOwned>(
        &self,
        table: Table,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
        rev: bool,
    ) -> anyhow::Result<Vec<(String, T)>> {
        Self::expect(table, Kind::Json);
        self.scan_raw(table, prefix, after, limit, rev)?
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
    pub fn remove(&self, table: Table, key: &str) -> anyhow::Result<bool> {
        debug_assert!(table.kind != Kind::Seq);
        self.check_write(table)?;
        self.engine.remove(table, key.as_bytes())
    }

    // Index tables: string → string.

    pub fn get_str(&self, table: Table, key: &str) -> anyhow::Result<Option<String>> {
        Self::expect(table, Kind::Index);
        match self.engine.get(table, key.as_bytes())? {
            Some(v) => Ok(Some(String::from_utf8(v)?)),
            None => Ok(None),
        }
    }

    pub fn put_str(&self, table: Table, key: &str, value: &str) -> anyhow::Result<()> {
        Self::expect(table, Kind::Index);
        self.check_write(table)?;
        self.engine.put(table, key.as_bytes(), value.as_bytes())
    }

    /// Like [`Tx::scan_json`], for an index table.
    pub fn scan_str(
        &self,
        table: Table,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
        rev: bool,
    ) -> anyhow::Result<Vec<(String, String)>> {
        Self::expect(table, Kind::Index);
        self.scan_raw(table, prefix, after, limit, rev)?
            .into_iter()
            .map(|(k, v)| Ok((k, String::from_utf8(v)?)))
            .collect()
    }

    // Counter tables: string → i64.

    pub fn get_i64(&self, table: Table, key: &str) -> anyhow::Result<Option<i64>> {
        Self::expect(table, Kind::Counter);
        Ok(self.engine.get(table, key.as_bytes())?.map(|v| counter(&v)))
    }

    pub fn put_i64(&self, table: Table, key: &str, value: i64) -> anyhow::Result<()> {
        Self::expect(table, Kind::Counter);
        self.check_write(table)?;
        self.engine.put(table, key.as_bytes(), &value.to_be_bytes())
    }

    /// Counters with keys from `lo` to `hi`, both included, in key order.
    pub fn range_i64(
        &self,
        table: Table,
        lo: &str,
        hi: &str,
    ) -> anyhow::Result<Vec<(String, i64)>> {
        Self::expect(table, Kind::Counter);
        self.range_str(
            table,
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
    pub fn scan_i64(&self, table: Table, prefix: &str) -> anyhow::Result<Vec<(String, i64)>> {
        Self::expect(table, Kind::Counter);
        self.scan_raw(table, prefix, None, usize::MAX, false)?
            .into_iter()
            .map(|(k, v)| Ok((k, counter(&v))))
            .collect()
    }

    // Sequence tables: u64 → JSON, appended in order.

    /// The highest sequence number written, if any.
    pub fn last_seq(&self, table: Table) -> anyhow::Result<Option<u64>> {
        Self::expect(table, Kind::Seq);
        let last = self
            .engine
            .range(table, Bound::Unbounded, Bound::Unbounded, true, 1)?;
        Ok(last.first().map(|(k, _)| seq(k)))
    }

    pub fn put_seq<T: Serialize>(&self, table: Table, n: u64, value: &T) -> anyhow::Result<()> {
        Self::expect(table, Kind::Seq);
        self.check_write(table)?;
        self.engine.put(table, &n.to_be_bytes(), &encode(value))
    }

    pub fn remove_seq(&self, table: Table, n: u64) -> anyhow::Result<bool> {
        Self::expect(table, Kind::Seq);
        self.check_write(table)?;
        self.engine.remove(table, &n.to_be_bytes())
    }

    /// Values after sequence number `after` (exclusive), in order, at most `limit`.
    pub fn scan_seq<T: DeserializeOwned>(
        &self,
        table: Table,
        after: u64,
        limit: usize,
    ) -> anyhow::Result<Vec<(u64, T)>> {
        Self::expect(table, Kind::Seq);
        let from = after.to_be_bytes();
        self.engine
            .range(
                table,
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
pub fn put_json<T: Serialize>(tx: &Tx, table: Table, key: &str, value: &T) -> anyhow::Result<()> {
    tx.put_json(table, key, value)
}
