//! Property tests of the ledger's money: random concurrent top-ups,
//! reservations, settlements and releases, with every invariant re-checked
//! from the entries after every step.

use std::sync::Arc;

use fnhost::accounts::Mode;
use fnhost::ledger::{self, LedgerError};
use fnhost::money::Micros;
use fnhost::store::{Seq, Store, Table};

/// The legacy ledger as older versions wrote it (raw JSON entries), and the
/// balances, as this test writes them directly.
const LEGACY_LEDGER: Table<Seq<serde_json::Value>> = fnhost::store::GLOBAL_LEDGER.holding();
const BALANCES: Table<ledger::Balance> = fnhost::store::BALANCES.holding();
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    TopUp {
        account: usize,
        amount: i64,
    },
    Reserve {
        account: usize,
        amount: i64,
    },
    /// Resolve the n-th open reservation of this worker, settling this share (per mille) of it over `receipts` receipts.
    Resolve {
        nth: usize,
        share: i64,
        receipts: usize,
    },
    /// Try to resolve something already resolved.
    ResolveAgain {
        nth: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3usize, 1..5_000_000i64).prop_map(|(account, amount)| Op::TopUp { account, amount }),
        (0..3usize, 0..8_000_000i64).prop_map(|(account, amount)| Op::Reserve { account, amount }),
        (0..8usize, 0..=1000i64, 1..4usize).prop_map(|(nth, share, receipts)| Op::Resolve {
            nth,
            share,
            receipts
        }),
        (0..8usize).prop_map(|nth| Op::ResolveAgain { nth }),
    ]
}

const ACCOUNTS: [&str; 3] = ["acct_a", "acct_b", "acct_c"];

fn check(store: &Store) {
    let audit = store.read(ledger::audit).unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    for a in ACCOUNTS {
        for mode in [Mode::Live, Mode::Test] {
            let b = store.read(|tx| ledger::balance(tx, a, mode)).unwrap();
            assert!(b.available() >= Micros::ZERO, "available below zero: {b:?}");
            assert!(b.open_reserves >= Micros::ZERO && b.balance >= Micros::ZERO);
        }
    }
}

/// A durable write, on the calling thread or through the writer thread's
/// group commit.
fn write<R, E>(
    store: &Store,
    queued: bool,
    f: impl FnOnce(&fnhost::store::Tx) -> Result<R, E> + Send + 'static,
) -> Result<R, E>
where
    R: Send + 'static,
    E: From<anyhow::Error> + Send + 'static,
{
    if queued {
        futures::executor::block_on(store.write_async(f))
    } else {
        store.write(f)
    }
}

/// Odd workers write through the group commit, even ones on their own thread.
fn run_worker(store: &Store, worker: usize, ops: &[Op]) {
    let mode = if worker.is_multiple_of(2) {
        Mode::Live
    } else {
        Mode::Test
    };
    let queued = !worker.is_multiple_of(2);
    let mut open: Vec<(String, i64)> = Vec::new();
    let mut resolved: Vec<String> = Vec::new();
    for op in ops {
        match op {
            Op::TopUp { account, amount } => {
                let (account, amount) = (ACCOUNTS[*account], *amount);
                write(store, queued, move |tx| {
                    ledger::top_up(tx, account, mode, Micros(amount), "top-up")
                })
                .unwrap();
            }
            Op::Reserve { account, amount } => {
                let (account, amount) = (ACCOUNTS[*account], *amount);
                let before = store.read(|tx| ledger::balance(tx, account, mode)).unwrap();
                match write(store, queued, move |tx| {
                    ledger::reserve(tx, account, mode, Micros(amount), "prop")
                }) {
                    Ok(r) => open.push((r.id, amount)),
                    // Refused only when it truly did not fit (others may have reserved meanwhile).
                    Err(LedgerError::Insufficient(b)) => {
                        assert!(b.available() < Micros(amount), "{before:?} {b:?}")
                    }
                    Err(e) => panic!("{e}"),
                }
            }
            Op::Resolve {
                nth,
                share,
                receipts,
            } => {
                if open.is_empty() {
                    continue;
                }
                let (id, amount) = open.remove(nth % open.len());
                let settle = amount * share / 1000;
                let n = *receipts as i64;
                let mut costs: Vec<(String, Micros)> = (0..n)
                    .map(|i| (format!("rcpt_{id}_{i}"), Micros(settle / n)))
                    .collect();
                costs[0].1 = Micros(settle - settle / n * (n - 1));
                let costs: Vec<_> = costs
                    .into_iter()
                    .filter(|(_, c)| *c > Micros::ZERO)
                    .collect();
                let rid = id.clone();
                let r = write(store, queued, move |tx| ledger::resolve(tx, &rid, &costs)).unwrap();
                assert_eq!(r.settled + r.released, Micros(amount));
                resolved.push(id);
            }
            Op::ResolveAgain { nth } => {
                if resolved.is_empty() {
                    continue;
                }
                let id = resolved[nth % resolved.len()].clone();
                let again = write(store, queued, move |tx| ledger::resolve(tx, &id, &[]));
                assert!(
                    matches!(again, Err(LedgerError::AlreadyResolved(_))),
                    "resolved twice"
                );
            }
        }
        check(store);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn concurrent_money_keeps_every_invariant(workers in prop::collection::vec(prop::collection::vec(op(), 1..25), 2..5)) {
        let store = Arc::new(Store::in_memory().unwrap());
        std::thread::scope(|s| {
            for (i, ops) in workers.iter().enumerate() {
                let store = store.clone();
                s.spawn(move || run_worker(&store, i, ops));
            }
        });
        check(&store);
    }
}

#[test]
fn a_reservation_that_does_not_fit_writes_nothing() {
    let store = Store::in_memory().unwrap();
    store
        .write(|tx| ledger::top_up(tx, "acct_a", Mode::Live, Micros(1_000_000), "t"))
        .unwrap();
    let r = store.write(|tx| ledger::reserve(tx, "acct_a", Mode::Live, Micros(1_000_001), "x"));
    assert!(matches!(r, Err(LedgerError::Insufficient(_))));
    let audit = store.read(ledger::audit).unwrap();
    assert_eq!(audit.entries, 1);
    assert_eq!(audit.reservations, 0);
}

#[test]
fn settlement_above_the_reservation_is_refused() {
    let store = Store::in_memory().unwrap();
    store
        .write(|tx| ledger::top_up(tx, "acct_a", Mode::Live, Micros(5_000_000), "t"))
        .unwrap();
    let r = store
        .write(|tx| ledger::reserve(tx, "acct_a", Mode::Live, Micros(1_000_000), "x"))
        .unwrap();
    let over =
        store.write(|tx| ledger::resolve(tx, &r.id, &[("rcpt_1".into(), Micros(1_000_001))]));
    assert!(matches!(
        over,
        Err(LedgerError::SettleExceedsReservation { .. })
    ));
    let ok = store
        .write(|tx| ledger::resolve(tx, &r.id, &[("rcpt_1".into(), Micros(400_000))]))
        .unwrap();
    assert_eq!(
        (ok.settled, ok.released),
        (Micros(400_000), Micros(600_000))
    );
    let b = store
        .read(|tx| ledger::balance(tx, "acct_a", Mode::Live))
        .unwrap();
    assert_eq!(b.balance, Micros(4_600_000));
    assert_eq!(b.open_reserves, Micros::ZERO);
}

/// Many concurrent durable writers share one commit: a writer whose closure
/// fails (after writing) or panics is rolled back alone, every other lands
/// exactly once, and each is answered only once its batch is on disk.
#[test]
fn group_commit_isolates_a_failing_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fnhost.redb");
    let store = Store::open(&path).unwrap();
    store
        .write(|tx| ledger::top_up(tx, "acct_g", Mode::Live, Micros::from_usd(1000), "t"))
        .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    let (accepted, before, after) = rt.block_on(async {
        // Hold the writer until every write below is queued: they then
        // form one batch.
        let (open_gate, gate) = std::sync::mpsc::channel::<()>();
        let held = tokio::spawn({
            let store = store.clone();
            async move {
                store
                    .write_async(move |_| -> anyhow::Result<()> {
                        gate.recv().unwrap();
                        Ok(())
                    })
                    .await
            }
        });
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let before = store.commit_stats();
        let mut tasks = Vec::new();
        for i in 0..100 {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                store
                    .write_async(move |tx| {
                        let r = ledger::reserve(tx, "acct_g", Mode::Live, Micros(1_000_000), "g")?;
                        if i == 50 {
                            panic!("a write that panics after writing");
                        }
                        if i % 10 == 3 {
                            // Refused after it wrote: none of it may stay.
                            return Err(LedgerError::NonPositive);
                        }
                        Ok(r.id)
                    })
                    .await
            }));
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        open_gate.send(()).unwrap();
        held.await.unwrap().unwrap();
        let mut accepted = Vec::new();
        for (i, t) in tasks.into_iter().enumerate() {
            match t.await.unwrap() {
                Ok(id) => accepted.push(id),
                Err(LedgerError::NonPositive) => assert_eq!(i % 10, 3),
                Err(e) => assert_eq!(i, 50, "unexpected failure of write {i}: {e}"),
            }
        }
        (accepted, before, store.commit_stats())
    });
    assert_eq!(accepted.len(), 89);
    // 89 commits (and the held one), in far fewer fsyncs than writes.
    assert_eq!(after.commits - before.commits, 89 + 1);
    assert!(
        after.flushes - before.flushes <= 3,
        "{before:?} → {after:?}: the queued writes did not share their fsync"
    );
    let expect = |store: &Store| {
        let audit = store.read(ledger::audit).unwrap();
        assert!(audit.problems.is_empty(), "{:?}", audit.problems);
        assert_eq!(audit.reservations, 89);
        assert_eq!(audit.entries, 1 + 89);
        for id in &accepted {
            assert!(store
                .read(|tx| ledger::reservation(tx, id))
                .unwrap()
                .is_some());
        }
        let b = store
            .read(|tx| ledger::balance(tx, "acct_g", Mode::Live))
            .unwrap();
        assert_eq!(b.open_reserves, Micros::from_usd(89));
    };
    expect(&store);
    // What the callers were told is on disk is there after a reopen.
    drop(store);
    drop(rt);
    let store = Store::open(&path).unwrap();
    expect(&store);
}

#[test]
fn entries_of_one_installation_sequence_are_renumbered_per_account_with_their_balances() {
    let store = Store::in_memory().unwrap();
    // A database as written before per-account numbering: one sequence, accounts interleaved.
    let legacy = [
        ("acct_a", "top_up", 5_000_000),
        ("acct_b", "top_up", 2_000_000),
        ("acct_a", "top_up", 1_000_000),
        ("acct_b", "top_up", 500_000),
        ("acct_a", "top_up", 250_000),
    ];
    store
        .write(|tx| -> anyhow::Result<()> {
            for (n, (account, kind, amount)) in legacy.iter().enumerate() {
                let entry = serde_json::json!({
                    "seq": n + 1, "kind": kind, "account": account, "mode": "live",
                    "amount": amount, "reservation": null, "memo": "", "at": "2026-01-01T00:00:00Z",
                });
                tx.put_seq(LEGACY_LEDGER, n as u64 + 1, &entry)?;
            }
            for (account, total) in [("acct_a", 6_250_000), ("acct_b", 2_500_000)] {
                let b = ledger::Balance {
                    balance: Micros(total),
                    open_reserves: Micros::ZERO,
                };
                tx.put_json(BALANCES, &format!("{account}:live"), &b)?;
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(ledger::adopt_account_sequences(&store).unwrap(), 5);
    assert_eq!(ledger::adopt_account_sequences(&store).unwrap(), 0, "once");
    let audit = store.read(ledger::audit).unwrap();
    assert_eq!(audit.entries, 5);
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    // New entries continue each account's own sequence.
    store
        .write(|tx| ledger::top_up(tx, "acct_b", Mode::Live, Micros(1), "more"))
        .unwrap();
    let audit = store.read(ledger::audit).unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    let b = store
        .read(|tx| ledger::balance(tx, "acct_b", Mode::Live))
        .unwrap();
    assert_eq!(b.balance, Micros(2_500_001));
}
