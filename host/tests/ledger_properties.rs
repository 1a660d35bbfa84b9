//! Property tests of the ledger's money: random concurrent top-ups,
//! reservations, settlements and releases, with every invariant re-checked
//! from the entries after every step.

use std::sync::Arc;

use fnhost::accounts::Mode;
use fnhost::ledger::{self, LedgerError};
use fnhost::money::Micros;
use fnhost::store::Store;
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
    let audit = store.read(|tx| ledger::audit(tx)).unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    for a in ACCOUNTS {
        for mode in [Mode::Live, Mode::Test] {
            let b = store.read(|tx| ledger::balance(tx, a, mode)).unwrap();
            assert!(b.available() >= Micros::ZERO, "available below zero: {b:?}");
            assert!(b.open_reserves >= Micros::ZERO && b.balance >= Micros::ZERO);
        }
    }
}

fn run_worker(store: &Store, worker: usize, ops: &[Op]) {
    let mode = if worker % 2 == 0 {
        Mode::Live
    } else {
        Mode::Test
    };
    let mut open: Vec<(String, i64)> = Vec::new();
    let mut resolved: Vec<String> = Vec::new();
    for op in ops {
        match op {
            Op::TopUp { account, amount } => {
                store
                    .write(|tx| {
                        ledger::top_up(tx, ACCOUNTS[*account], mode, Micros(*amount), "top-up")
                    })
                    .unwrap();
            }
            Op::Reserve { account, amount } => {
                let before = store
                    .read(|tx| ledger::balance(tx, ACCOUNTS[*account], mode))
                    .unwrap();
                match store.write(|tx| {
                    ledger::reserve(tx, ACCOUNTS[*account], mode, Micros(*amount), "prop")
                }) {
                    Ok(r) => open.push((r.id, *amount)),
                    // Refused only when it truly did not fit (others may have reserved meanwhile).
                    Err(LedgerError::Insufficient(b)) => {
                        assert!(b.available() < Micros(*amount), "{before:?} {b:?}")
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
                let r = store.write(|tx| ledger::resolve(tx, &id, &costs)).unwrap();
                assert_eq!(r.settled + r.released, Micros(amount));
                resolved.push(id);
            }
            Op::ResolveAgain { nth } => {
                if resolved.is_empty() {
                    continue;
                }
                let id = &resolved[nth % resolved.len()];
                let again = store.write(|tx| ledger::resolve(tx, id, &[]));
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
    let audit = store.read(|tx| ledger::audit(tx)).unwrap();
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
