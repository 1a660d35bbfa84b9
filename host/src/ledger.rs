//! The ledger: every movement of money, as immutable entries.
//!
//! Invariants (each enforced here and nowhere else, and checked by `audit`):
//! 1. Entries are append-only: top-up, reserve, settle, release.
//! 2. A reservation resolves exactly once: settle ≤ reserved, the rest is
//!    released, and settled + released = reserved.
//! 3. balance = top-ups − settlements; open reserves = reservations − their
//!    settlements and releases; available = balance − open reserves.
//! 4. available never goes below zero: a reservation that does not fit is
//!    refused in the same transaction that would write it.
//! 5. Every settlement names the receipts behind it, and their costs sum to
//!    the settled amount.
//!
//! Balances are also kept per `account:mode` in BALANCES, written in the
//! same transaction as the entry; `audit` re-derives them from the entries.
//!
//! Entries are numbered per account and mode (`account:mode:seq`, gapless
//! from 1), not in one sequence for the installation: a transaction touches
//! only its own account's keys, so transactions of different accounts never
//! contend (on PostgreSQL they run at once, each under its account's lock).

use serde::{Deserialize, Serialize};

use crate::accounts::Mode;
use crate::money::Micros;
use crate::store::{self, Seq, Store, Table, Tx, SPEND_BY_DAY};

/// The ledger as databases written before per-account numbering kept it.
const GLOBAL_LEDGER: Table<Seq<Entry>> = store::GLOBAL_LEDGER.holding();

/// `ledger`, read and written through this module only.
const LEDGER: store::Table<Entry> = store::LEDGER.holding();

/// `balances`, read and written through this module only.
const BALANCES: store::Table<Balance> = store::BALANCES.holding();

/// `reservations`, read and written through this module only.
const RESERVATIONS: store::Table<Reservation> = store::RESERVATIONS.holding();

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    TopUp,
    Reserve,
    Settle,
    Release,
}

/// One immutable ledger entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// The entry's number among its account's entries in its mode.
    pub seq: u64,
    pub kind: EntryKind,
    pub account: String,
    pub mode: Mode,
    pub amount: Micros,
    /// The reservation a reserve, settle or release entry belongs to.
    pub reservation: Option<String>,
    /// The receipts a settlement pays for, with their costs.
    #[serde(default)]
    pub receipts: Vec<(String, Micros)>,
    pub memo: String,
    pub at: String,
}

/// An account's money in one mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Balance {
    pub balance: Micros,
    pub open_reserves: Micros,
}

impl Balance {
    pub fn available(&self) -> Micros {
        self.balance - self.open_reserves
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReservationState {
    Open,
    Resolved,
}

/// Money held for a run until it ends.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reservation {
    pub id: String,
    pub account: String,
    pub mode: Mode,
    pub amount: Micros,
    pub state: ReservationState,
    pub settled: Micros,
    pub released: Micros,
    /// What the money is held for (a session id).
    pub purpose: String,
    pub created_at: String,
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("available balance cannot cover the reservation")]
    Insufficient(Balance),
    #[error("reservation {0} is unknown")]
    UnknownReservation(String),
    #[error("reservation {0} is already resolved")]
    AlreadyResolved(String),
    #[error("settlement of {settle} exceeds the reservation of {reserved}")]
    SettleExceedsReservation { settle: Micros, reserved: Micros },
    #[error("amounts must be positive")]
    NonPositive,
    #[error(transparent)]
    Store(#[from] anyhow::Error),
}

fn balance_key(account: &str, mode: Mode) -> String {
    crate::key!(account, mode)
}

/// The current balance of an account in one mode.
pub fn balance(tx: &Tx, account: &str, mode: Mode) -> anyhow::Result<Balance> {
    Ok(tx
        .get_json(BALANCES, &balance_key(account, mode))?
        .unwrap_or_default())
}

fn put_balance(tx: &Tx, account: &str, mode: Mode, b: &Balance) -> anyhow::Result<()> {
    store::put_json(tx, BALANCES, &balance_key(account, mode), b)
}

fn append(tx: &Tx, mut entry: Entry) -> anyhow::Result<Entry> {
    let prefix = crate::prefix!(entry.account, entry.mode);
    let last: Vec<(String, Entry)> = tx.scan_json(LEDGER, &prefix, None, 1, true)?;
    entry.seq = last.first().map_or(1, |(_, e)| e.seq + 1);
    store::put_json(
        tx,
        LEDGER,
        &crate::key!(entry.account, entry.mode, entry.seq),
        &entry,
    )?;
    Ok(entry)
}

/// Renumber the entries of a database written before entries were numbered
/// per account (one sequence for the installation) into their accounts'
/// sequences, in their old order; the balances they add up to do not
/// change. Runs at start-up, once: afterwards the old table is empty.
pub fn adopt_account_sequences(store: &Store) -> anyhow::Result<u64> {
    store.write(|tx| -> anyhow::Result<u64> {
        let mut moved = 0;
        loop {
            let page: Vec<(u64, Entry)> = tx.scan_seq(GLOBAL_LEDGER, 0, 10_000)?;
            if page.is_empty() {
                return Ok(moved);
            }
            for (n, e) in page {
                append(tx, e)?;
                tx.remove_seq(GLOBAL_LEDGER, n)?;
                moved += 1;
            }
        }
    })
}

fn entry(
    kind: EntryKind,
    account: &str,
    mode: Mode,
    amount: Micros,
    reservation: Option<&str>,
    memo: &str,
) -> Entry {
    Entry {
        seq: 0,
        kind,
        account: account.to_string(),
        mode,
        amount,
        reservation: reservation.map(str::to_string),
        receipts: Vec::new(),
        memo: memo.to_string(),
        at: crate::time::now(),
    }
}

/// Add money to a balance.
pub fn top_up(
    tx: &Tx,
    account: &str,
    mode: Mode,
    amount: Micros,
    memo: &str,
) -> Result<Balance, LedgerError> {
    if amount <= Micros::ZERO {
        return Err(LedgerError::NonPositive);
    }
    let mut b = balance(tx, account, mode)?;
    b.balance = b
        .balance
        .checked_add(amount)
        .ok_or(LedgerError::NonPositive)?;
    append(
        tx,
        entry(EntryKind::TopUp, account, mode, amount, None, memo),
    )?;
    put_balance(tx, account, mode, &b)?;
    Ok(b)
}

/// Hold `amount` for a run. Refused, writing nothing, when available cannot cover it.
pub fn reserve(
    tx: &Tx,
    account: &str,
    mode: Mode,
    amount: Micros,
    purpose: &str,
) -> Result<Reservation, LedgerError> {
    if amount < Micros::ZERO {
        return Err(LedgerError::NonPositive);
    }
    let mut b = balance(tx, account, mode)?;
    if b.available() < amount {
        return Err(LedgerError::Insufficient(b));
    }
    let r = Reservation {
        id: crate::ids::new_id("rsv"),
        account: account.to_string(),
        mode,
        amount,
        state: ReservationState::Open,
        settled: Micros::ZERO,
        released: Micros::ZERO,
        purpose: purpose.to_string(),
        created_at: crate::time::now(),
    };
    b.open_reserves += amount;
    append(
        tx,
        entry(
            EntryKind::Reserve,
            account,
            mode,
            amount,
            Some(&r.id),
            purpose,
        ),
    )?;
    put_balance(tx, account, mode, &b)?;
    store::put_json(tx, RESERVATIONS, &r.id, &r)?;
    Ok(r)
}

/// Resolve a reservation exactly once: settle what the receipts cost and
/// release the rest. Returns the resolved reservation.
pub fn resolve(
    tx: &Tx,
    reservation_id: &str,
    receipts: &[(String, Micros)],
) -> Result<Reservation, LedgerError> {
    let mut r: Reservation = tx
        .get_json(RESERVATIONS, reservation_id)?
        .ok_or_else(|| LedgerError::UnknownReservation(reservation_id.to_string()))?;
    if r.state == ReservationState::Resolved {
        return Err(LedgerError::AlreadyResolved(r.id));
    }
    if receipts.iter().any(|(_, c)| c.is_negative()) {
        return Err(LedgerError::NonPositive);
    }
    let settle: Micros = receipts.iter().map(|(_, c)| *c).sum();
    if settle > r.amount {
        return Err(LedgerError::SettleExceedsReservation {
            settle,
            reserved: r.amount,
        });
    }
    let release = r.amount - settle;
    let mut b = balance(tx, &r.account, r.mode)?;
    b.balance = b.balance - settle;
    b.open_reserves = b.open_reserves - r.amount;
    if settle > Micros::ZERO {
        let mut e = entry(
            EntryKind::Settle,
            &r.account,
            r.mode,
            settle,
            Some(&r.id),
            &r.purpose,
        );
        e.receipts = receipts.to_vec();
        append(tx, e)?;
        let day = crate::key!(r.account, r.mode, crate::time::today());
        let before = tx.get_i64(SPEND_BY_DAY, &day)?.unwrap_or(0);
        tx.put_i64(SPEND_BY_DAY, &day, before + settle.0)?;
    }
    if release > Micros::ZERO || settle == Micros::ZERO {
        append(
            tx,
            entry(
                EntryKind::Release,
                &r.account,
                r.mode,
                release,
                Some(&r.id),
                &r.purpose,
            ),
        )?;
    }
    put_balance(tx, &r.account, r.mode, &b)?;
    r.state = ReservationState::Resolved;
    r.settled = settle;
    r.released = release;
    store::put_json(tx, RESERVATIONS, &r.id, &r)?;
    Ok(r)
}

pub fn reservation(tx: &Tx, id: &str) -> anyhow::Result<Option<Reservation>> {
    tx.get_json(RESERVATIONS, id)
}

/// The open reservations of an account and mode.
pub fn open_reservations(tx: &Tx, account: &str, mode: Mode) -> anyhow::Result<Vec<Reservation>> {
    let all: Vec<(String, Reservation)> =
        tx.scan_json(RESERVATIONS, "", None, usize::MAX, false)?;
    Ok(all
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| r.account == account && r.mode == mode && r.state == ReservationState::Open)
        .collect())
}

/// Settled spend per day for an account and mode, from `from` to `to` (inclusive, `YYYY-MM-DD`).
pub fn spend_by_day(
    tx: &Tx,
    account: &str,
    mode: Mode,
    from: &str,
    to: &str,
) -> anyhow::Result<Vec<(String, Micros)>> {
    let prefix = crate::prefix!(account, mode);
    let lo = format!("{prefix}{from}");
    let hi = format!("{prefix}{to}");
    Ok(tx
        .range_i64(SPEND_BY_DAY, &lo, &hi)?
        .into_iter()
        .map(|(k, v)| (k[prefix.len()..].to_string(), Micros(v)))
        .collect())
}

/// Settled spend this calendar month (UTC).
pub fn spent_this_month(tx: &Tx, account: &str, mode: Mode) -> anyhow::Result<Micros> {
    let month = &crate::time::today()[..8];
    let prefix = crate::key!(account, mode, month);
    Ok(Micros(
        tx.scan_i64(SPEND_BY_DAY, &prefix)?
            .into_iter()
            .map(|(_, v)| v)
            .sum(),
    ))
}

/// What `audit` found.
#[derive(Debug, Default, Serialize)]
pub struct Audit {
    pub entries: u64,
    pub reservations: u64,
    pub open_reservations: u64,
    pub problems: Vec<String>,
}

/// Re-derive every balance from the entries and check every invariant.
pub fn audit(tx: &Tx) -> anyhow::Result<Audit> {
    use std::collections::HashMap;
    let mut report = Audit::default();
    let mut derived: HashMap<String, Balance> = HashMap::new();
    let mut per_reservation: HashMap<String, (Micros, Micros, Micros)> = HashMap::new();
    // The last entry number seen per account and mode.
    let mut last_seq: HashMap<String, u64> = HashMap::new();
    let mut after: Option<String> = None;
    loop {
        let page: Vec<(String, Entry)> =
            tx.scan_json(LEDGER, "", after.as_deref(), 10_000, false)?;
        let Some((last_key, _)) = page.last() else {
            break;
        };
        after = Some(last_key.clone());
        for (key, e) in page {
            report.entries += 1;
            let scope = balance_key(&e.account, e.mode);
            if key != crate::key!(e.account, e.mode, e.seq) {
                report
                    .problems
                    .push(format!("entry {key} is stored under another key"));
            }
            let last = last_seq.entry(scope.clone()).or_default();
            if e.seq != *last + 1 {
                report.problems.push(format!(
                    "entry sequence of {scope} jumps from {last} to {}",
                    e.seq
                ));
            }
            *last = e.seq;
            let b = derived.entry(scope).or_default();
            let res = e.reservation.clone().unwrap_or_default();
            match e.kind {
                EntryKind::TopUp => b.balance += e.amount,
                EntryKind::Reserve => {
                    b.open_reserves += e.amount;
                    per_reservation.entry(res).or_default().0 = e.amount;
                }
                EntryKind::Settle => {
                    b.balance = b.balance - e.amount;
                    let named: Micros = e.receipts.iter().map(|(_, c)| *c).sum();
                    if named != e.amount || e.receipts.is_empty() {
                        report
                            .problems
                            .push(format!("settlement {} does not equal its receipts", e.seq));
                    }
                    per_reservation.entry(res).or_default().1 += e.amount;
                }
                EntryKind::Release => per_reservation.entry(res).or_default().2 += e.amount,
            }
            if b.balance.is_negative() {
                report.problems.push(format!(
                    "balance of {} negative after entry {}",
                    e.account, e.seq
                ));
            }
        }
    }
    let reservations: Vec<(String, Reservation)> =
        tx.scan_json(RESERVATIONS, "", None, usize::MAX, false)?;
    for (_, r) in reservations {
        report.reservations += 1;
        let (reserved, settled, released) = per_reservation.get(&r.id).copied().unwrap_or_default();
        if reserved != r.amount {
            report.problems.push(format!(
                "reservation {} has no matching reserve entry",
                r.id
            ));
        }
        let b = derived.entry(balance_key(&r.account, r.mode)).or_default();
        match r.state {
            ReservationState::Open => {
                report.open_reservations += 1;
                if settled != Micros::ZERO || released != Micros::ZERO {
                    report.problems.push(format!(
                        "open reservation {} has settle or release entries",
                        r.id
                    ));
                }
            }
            ReservationState::Resolved => {
                b.open_reserves = b.open_reserves - r.amount;
                if settled + released != r.amount || settled != r.settled || released != r.released
                {
                    report.problems.push(format!(
                        "reservation {} does not resolve to its amount",
                        r.id
                    ));
                }
            }
        }
    }
    for (key, b) in &derived {
        let s: Balance = tx.get_json(BALANCES, key)?.unwrap_or_default();
        if s != *b {
            report.problems.push(format!(
                "stored balance of {key} {s:?} differs from its entries {b:?}"
            ));
        }
        if b.available().is_negative() {
            report
                .problems
                .push(format!("available balance of {key} is negative"));
        }
    }
    Ok(report)
}
