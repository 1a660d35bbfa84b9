//! The embedded engine: redb, one file, one writer. Each table keeps the
//! key and value types it has always had on disk, so data files written by
//! earlier versions open unchanged.

use std::ops::Bound;

use redb::{ReadTransaction, ReadableTable, TableDefinition, WriteTransaction};

use super::tx::Engine;
use super::{Kind, Table};

fn json(t: Table) -> TableDefinition<'static, &'static str, &'static [u8]> {
    TableDefinition::new(t.name)
}
fn index(t: Table) -> TableDefinition<'static, &'static str, &'static str> {
    TableDefinition::new(t.name)
}
fn seq(t: Table) -> TableDefinition<'static, u64, &'static [u8]> {
    TableDefinition::new(t.name)
}
fn counter(t: Table) -> TableDefinition<'static, &'static str, i64> {
    TableDefinition::new(t.name)
}

fn text(key: &[u8]) -> anyhow::Result<&str> {
    Ok(std::str::from_utf8(key)?)
}

fn number(key: &[u8]) -> anyhow::Result<u64> {
    Ok(u64::from_be_bytes(key.try_into()?))
}

fn text_bound(b: Bound<&[u8]>) -> anyhow::Result<Bound<&str>> {
    Ok(match b {
        Bound::Included(k) => Bound::Included(text(k)?),
        Bound::Excluded(k) => Bound::Excluded(text(k)?),
        Bound::Unbounded => Bound::Unbounded,
    })
}

fn number_bound(b: Bound<&[u8]>) -> anyhow::Result<Bound<u64>> {
    Ok(match b {
        Bound::Included(k) => Bound::Included(number(k)?),
        Bound::Excluded(k) => Bound::Excluded(number(k)?),
        Bound::Unbounded => Bound::Unbounded,
    })
}

/// Collect up to `limit` rows of a redb range, converting keys and values.
fn collect<K: redb::Key + 'static, V: redb::Value + 'static>(
    range: redb::Range<'_, K, V>,
    rev: bool,
    limit: usize,
    convert: impl Fn(K::SelfType<'_>, V::SelfType<'_>) -> (Vec<u8>, Vec<u8>),
) -> anyhow::Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut out = Vec::new();
    let rows: Box<dyn Iterator<Item = _>> = if rev {
        Box::new(range.rev())
    } else {
        Box::new(range)
    };
    for row in rows {
        if out.len() >= limit {
            break;
        }
        let (k, v) = row?;
        out.push(convert(k.value(), v.value()));
    }
    Ok(out)
}

/// Reads, the same on read and write transactions.
macro_rules! reads {
    ($tx:expr, $table:expr, $key:expr) => {{
        let (tx, t, key) = ($tx, $table, $key);
        Ok(match t.kind {
            Kind::Json => tx
                .open_table(json(t))?
                .get(text(key)?)?
                .map(|v| v.value().to_vec()),
            Kind::Index => tx
                .open_table(index(t))?
                .get(text(key)?)?
                .map(|v| v.value().as_bytes().to_vec()),
            Kind::Seq => tx
                .open_table(seq(t))?
                .get(number(key)?)?
                .map(|v| v.value().to_vec()),
            Kind::Counter => tx
                .open_table(counter(t))?
                .get(text(key)?)?
                .map(|v| v.value().to_be_bytes().to_vec()),
        })
    }};
}

macro_rules! ranges {
    ($tx:expr, $table:expr, $lo:expr, $hi:expr, $rev:expr, $limit:expr) => {{
        let (tx, t, lo, hi, rev, limit) = ($tx, $table, $lo, $hi, $rev, $limit);
        match t.kind {
            Kind::Json => collect(
                tx.open_table(json(t))?
                    .range::<&str>((text_bound(lo)?, text_bound(hi)?))?,
                rev,
                limit,
                |k, v| (k.as_bytes().to_vec(), v.to_vec()),
            ),
            Kind::Index => collect(
                tx.open_table(index(t))?
                    .range::<&str>((text_bound(lo)?, text_bound(hi)?))?,
                rev,
                limit,
                |k, v| (k.as_bytes().to_vec(), v.as_bytes().to_vec()),
            ),
            Kind::Seq => collect(
                tx.open_table(seq(t))?
                    .range::<u64>((number_bound(lo)?, number_bound(hi)?))?,
                rev,
                limit,
                |k, v| (k.to_be_bytes().to_vec(), v.to_vec()),
            ),
            Kind::Counter => collect(
                tx.open_table(counter(t))?
                    .range::<&str>((text_bound(lo)?, text_bound(hi)?))?,
                rev,
                limit,
                |k, v| (k.as_bytes().to_vec(), v.to_be_bytes().to_vec()),
            ),
        }
    }};
}

impl Engine for ReadTransaction {
    fn get(&self, table: Table, key: &[u8]) -> anyhow::Result<Option<Vec<u8>>> {
        reads!(self, table, key)
    }
    fn put(&self, table: Table, _: &[u8], _: &[u8]) -> anyhow::Result<()> {
        anyhow::bail!("a read transaction cannot write {}", table.name)
    }
    fn remove(&self, table: Table, _: &[u8]) -> anyhow::Result<bool> {
        anyhow::bail!("a read transaction cannot write {}", table.name)
    }
    fn range(
        &self,
        table: Table,
        lo: Bound<&[u8]>,
        hi: Bound<&[u8]>,
        rev: bool,
        limit: usize,
    ) -> anyhow::Result<Vec<(Vec<u8>, Vec<u8>)>> {
        ranges!(self, table, lo, hi, rev, limit)
    }
}

impl Engine for WriteTransaction {
    fn get(&self, table: Table, key: &[u8]) -> anyhow::Result<Option<Vec<u8>>> {
        reads!(self, table, key)
    }
    fn put(&self, t: Table, key: &[u8], value: &[u8]) -> anyhow::Result<()> {
        match t.kind {
            Kind::Json => {
                self.open_table(json(t))?.insert(text(key)?, value)?;
            }
            Kind::Index => {
                self.open_table(index(t))?
                    .insert(text(key)?, text(value)?)?;
            }
            Kind::Seq => {
                self.open_table(seq(t))?.insert(number(key)?, value)?;
            }
            Kind::Counter => {
                let n = i64::from_be_bytes(value.try_into()?);
                self.open_table(counter(t))?.insert(text(key)?, n)?;
            }
        }
        Ok(())
    }
    fn remove(&self, t: Table, key: &[u8]) -> anyhow::Result<bool> {
        Ok(match t.kind {
            Kind::Json => self.open_table(json(t))?.remove(text(key)?)?.is_some(),
            Kind::Index => self.open_table(index(t))?.remove(text(key)?)?.is_some(),
            Kind::Seq => self.open_table(seq(t))?.remove(number(key)?)?.is_some(),
            Kind::Counter => self.open_table(counter(t))?.remove(text(key)?)?.is_some(),
        })
    }
    fn range(
        &self,
        table: Table,
        lo: Bound<&[u8]>,
        hi: Bound<&[u8]>,
        rev: bool,
        limit: usize,
    ) -> anyhow::Result<Vec<(Vec<u8>, Vec<u8>)>> {
        ranges!(self, table, lo, hi, rev, limit)
    }
}

/// Create every table a fresh file lacks.
pub(super) fn init(db: &redb::Database, tables: &[Table]) -> anyhow::Result<()> {
    let tx = db.begin_write()?;
    for &t in tables {
        match t.kind {
            Kind::Json => drop(tx.open_table(json(t))?),
            Kind::Index => drop(tx.open_table(index(t))?),
            Kind::Seq => drop(tx.open_table(seq(t))?),
            Kind::Counter => drop(tx.open_table(counter(t))?),
        }
    }
    tx.commit()?;
    Ok(())
}
