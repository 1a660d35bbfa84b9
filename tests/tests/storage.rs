//! The store's contract, checked the same way on both engines: redb (a
//! file) and PostgreSQL (a real server started by the test library).
//! Ordering, prefixes, paging both ways, the kinds of tables, rollback of a
//! refused write, snapshot reads, and the ledger's money with several
//! handles (several nodes) writing at once.

use std::sync::Arc;

use fnhost::accounts::Mode;
use fnhost::ledger::{self, LedgerError};
use fnhost::money::Micros;
use fnhost::store::{Location, Seq, Store, Table, Tx, COUNTERS, KEY_HASHES, META, SPEND_BY_DAY};

/// META read as text and as numbers, for these tests (the host binds each
/// of its META singletons to its own type).
const TEXT: Table<String> = META.holding();
const NUMBERS: Table<i64> = META.holding();
const LEDGER_NUMBERS: Table<Seq<u64>> = fnhost::store::GLOBAL_LEDGER.holding();
use fnhost_tests::postgres;

fn engines() -> Vec<(&'static str, Location, tempfile::TempDir)> {
    let dir = tempfile::tempdir().unwrap();
    let redb = Location::Redb(dir.path().join("fnhost.redb"));
    let pg = Location::Postgres(postgres::new_database());
    vec![
        ("redb", redb, dir),
        ("postgres", pg, tempfile::tempdir().unwrap()),
    ]
}

#[test]
fn keys_sort_by_their_bytes_and_scans_page_both_ways() {
    for (name, at, _dir) in engines() {
        let store = Store::open_at(&at).unwrap();
        let keys = ["a:1", "a:10", "a:2", "a:é", "a:\u{10000}", "ab", "b"];
        store
            .write(|tx| -> anyhow::Result<()> {
                for k in keys {
                    tx.put_json(TEXT, k, &k.to_string())?;
                }
                Ok(())
            })
            .unwrap();
        store
            .read(|tx| -> anyhow::Result<()> {
                let all: Vec<(String, String)> = tx.scan_json(TEXT, "a:", None, 100, false)?;
                let got: Vec<&str> = all.iter().map(|(k, _)| k.as_str()).collect();
                assert_eq!(got, ["a:1", "a:10", "a:2", "a:é", "a:\u{10000}"], "{name}");
                let page: Vec<(String, String)> =
                    tx.scan_json(TEXT, "a:", Some("a:10"), 2, false)?;
                assert_eq!(page[0].0, "a:2", "{name}");
                assert_eq!(page.len(), 2, "{name}");
                let back: Vec<(String, String)> =
                    tx.scan_json(TEXT, "a:", Some("a:é"), 10, true)?;
                let got: Vec<&str> = back.iter().map(|(k, _)| k.as_str()).collect();
                assert_eq!(got, ["a:2", "a:10", "a:1"], "{name}");
                let newest: Vec<(String, String)> = tx.scan_json(TEXT, "a:", None, 1, true)?;
                assert_eq!(newest[0].0, "a:\u{10000}", "{name}");
                assert_eq!(
                    tx.get_json::<String>(TEXT, "ab")?,
                    Some("ab".into()),
                    "{name}"
                );
                assert_eq!(tx.get_json::<String>(TEXT, "zz")?, None, "{name}");
                Ok(())
            })
            .unwrap();
    }
}

#[test]
fn every_kind_of_table_round_trips() {
    for (name, at, _dir) in engines() {
        let store = Store::open_at(&at).unwrap();
        store
            .write(|tx| -> anyhow::Result<()> {
                tx.put_str(KEY_HASHES, "h1", "key_1")?;
                tx.put_i64(SPEND_BY_DAY, "acct:live:2026-11-01", -5)?;
                tx.put_i64(SPEND_BY_DAY, "acct:live:2026-11-02", 7)?;
                tx.put_i64(COUNTERS, "x", i64::MAX)?;
                for n in [1u64, 2, 300, 70_000] {
                    tx.put_seq(LEDGER_NUMBERS, n, &n)?;
                }
                tx.put_bytes(META, "raw", &[0, 255, 1])?;
                Ok(())
            })
            .unwrap();
        store
            .read(|tx| -> anyhow::Result<()> {
                assert_eq!(
                    tx.get_str(KEY_HASHES, "h1")?.as_deref(),
                    Some("key_1"),
                    "{name}"
                );
                assert_eq!(
                    tx.scan_i64(SPEND_BY_DAY, "acct:live:2026-11")?.len(),
                    2,
                    "{name}"
                );
                assert_eq!(
                    tx.range_i64(SPEND_BY_DAY, "acct:live:2026-11-02", "acct:live:2026-11-30")?,
                    vec![("acct:live:2026-11-02".to_string(), 7)],
                    "{name}"
                );
                assert_eq!(tx.get_i64(COUNTERS, "x")?, Some(i64::MAX), "{name}");
                assert_eq!(tx.last_seq(LEDGER_NUMBERS)?, Some(70_000), "{name}");
                let after: Vec<(u64, u64)> = tx.scan_seq(LEDGER_NUMBERS, 2, 10)?;
                assert_eq!(after, vec![(300, 300), (70_000, 70_000)], "{name}");
                assert_eq!(tx.get_bytes(META, "raw")?, Some(vec![0, 255, 1]), "{name}");
                Ok(())
            })
            .unwrap();
        assert!(
            store.write(|tx| tx.remove(KEY_HASHES, "h1")).unwrap(),
            "{name}"
        );
        assert!(
            !store.write(|tx| tx.remove(KEY_HASHES, "h1")).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn a_refused_write_leaves_nothing_and_reads_cannot_write() {
    for (name, at, _dir) in engines() {
        let store = Store::open_at(&at).unwrap();
        let refused: anyhow::Result<()> = store.write(|tx| {
            tx.put_json(NUMBERS, "half", &1)?;
            anyhow::bail!("refused")
        });
        assert!(refused.is_err(), "{name}");
        let queued: anyhow::Result<()> =
            futures::executor::block_on(store.write_async(|tx: &Tx| {
                tx.put_json(NUMBERS, "half-queued", &1)?;
                anyhow::bail!("refused")
            }));
        assert!(queued.is_err(), "{name}");
        let seen = store
            .read(|tx| -> anyhow::Result<_> {
                Ok((
                    tx.get_json::<i64>(NUMBERS, "half")?,
                    tx.get_json::<i64>(NUMBERS, "half-queued")?,
                ))
            })
            .unwrap();
        assert_eq!(seen, (None, None), "{name}");
        let write_in_read: anyhow::Result<()> = store.read(|tx| tx.put_json(NUMBERS, "x", &1));
        assert!(write_in_read.is_err(), "{name}");
    }
}

/// Three handles on one database (three nodes, on PostgreSQL; three
/// threads of one node, on redb) race reservations against one balance:
/// exactly what fits is reserved, and the audit is clean.
#[test]
fn reservations_raced_from_several_handles_never_overdraw() {
    for (name, at, _dir) in engines() {
        let handles: Vec<Store> = match &at {
            Location::Postgres(_) => (0..3).map(|_| Store::open_at(&at).unwrap()).collect(),
            Location::Redb(_) => vec![Store::open_at(&at).unwrap(); 3],
        };
        handles[0]
            .write(|tx| ledger::top_up(tx, "acct_race", Mode::Live, Micros(10_000_000), "seed"))
            .unwrap();
        let handles = Arc::new(handles);
        let accepted: usize = std::thread::scope(|scope| {
            let tasks: Vec<_> = (0..60)
                .map(|i| {
                    let handles = handles.clone();
                    scope.spawn(move || {
                        let store = &handles[i % 3];
                        let r = futures::executor::block_on(store.write_async(|tx| {
                            ledger::reserve(tx, "acct_race", Mode::Live, Micros(1_000_000), "race")
                        }));
                        match r {
                            Ok(_) => 1,
                            Err(LedgerError::Insufficient(_)) => 0,
                            Err(e) => panic!("{e}"),
                        }
                    })
                })
                .collect();
            tasks.into_iter().map(|t| t.join().unwrap()).sum()
        });
        assert_eq!(accepted, 10, "{name}: exactly the ten that fit");
        let audit = handles[1].read(ledger::audit).unwrap();
        assert!(audit.problems.is_empty(), "{name}: {:?}", audit.problems);
        assert_eq!(audit.reservations, 10, "{name}");
    }
}

/// A write transaction reads what it wrote (gets, removals and ranges),
/// however the engine holds its writes until the commit.
#[test]
fn a_transaction_reads_its_own_writes() {
    for (name, at, _dir) in engines() {
        let store = Store::open_at(&at).unwrap();
        store
            .write(|tx| tx.put_json(NUMBERS, "w:kept", &0))
            .unwrap();
        store
            .write(|tx| -> anyhow::Result<()> {
                tx.put_json(NUMBERS, "w:a", &1)?;
                tx.put_json(NUMBERS, "w:a", &2)?;
                assert_eq!(tx.get_json::<i64>(NUMBERS, "w:a")?, Some(2), "{name}");
                assert!(
                    tx.remove(META, "w:kept")?,
                    "{name}: removing a committed key"
                );
                assert!(!tx.remove(META, "w:kept")?, "{name}: removing it twice");
                assert_eq!(tx.get_json::<i64>(NUMBERS, "w:kept")?, None, "{name}");
                tx.put_json(NUMBERS, "w:b", &3)?;
                assert!(
                    tx.remove(META, "w:b")?,
                    "{name}: removing a key written here"
                );
                tx.put_json(NUMBERS, "w:c", &4)?;
                let seen: Vec<(String, i64)> = tx.scan_json(NUMBERS, "w:", None, 10, false)?;
                assert_eq!(seen, vec![("w:a".into(), 2), ("w:c".into(), 4)], "{name}");
                let n = tx.last_seq(LEDGER_NUMBERS)?.unwrap_or(0);
                tx.put_seq(LEDGER_NUMBERS, n + 1, &(n + 1))?;
                assert_eq!(tx.last_seq(LEDGER_NUMBERS)?, Some(n + 1), "{name}");
                Ok(())
            })
            .unwrap();
        let after: Vec<(String, i64)> = store
            .read(|tx| tx.scan_json(NUMBERS, "w:", None, 10, false))
            .unwrap();
        assert_eq!(after, vec![("w:a".into(), 2), ("w:c".into(), 4)], "{name}");
    }
}

/// Are the other connections to the database at `url` encrypted? (all, any)
fn encrypted(url: &str) -> (bool, bool) {
    let out = postgres::query(
        url,
        "SELECT coalesce(bool_and(s.ssl), false), coalesce(bool_or(s.ssl), false) \
         FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
         WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()",
    );
    (out.starts_with('t'), out.ends_with('t'))
}

#[test]
fn tls_to_postgres_checks_the_server_as_sslmode_says() {
    let by_address = postgres::new_database();
    let db = by_address.rsplit('/').next().unwrap().to_string();
    let ca = postgres::ca_file();
    let ca = ca.display();
    // The server's certificate names `localhost`; the socket is 127.0.0.1 either way.
    let by_name = format!(
        "postgres://postgres@localhost:{}/{db}?hostaddr=127.0.0.1",
        postgres::port()
    );
    let open = |url: String| Store::open_at(&Location::Postgres(url));

    // verify-full: the chain and the name checked; the connection encrypted.
    let store = open(format!("{by_name}&sslmode=verify-full&sslrootcert={ca}")).unwrap();
    store
        .write(|tx| tx.put_json(TEXT, "tls", &"yes".to_string()))
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.get_json::<String>(TEXT, "tls")).unwrap(),
        Some("yes".to_string())
    );
    assert_eq!(
        encrypted(&by_address),
        (true, true),
        "every connection is TLS"
    );
    drop(store);

    // A name the certificate does not hold: refused by verify-full, let
    // through by verify-ca (the chain alone).
    let refused = open(format!("{by_address}?sslmode=verify-full&sslrootcert={ca}"))
        .err()
        .expect("verify-full refuses a certificate for another name");
    assert!(
        format!("{refused:#}").contains("certificate"),
        "{refused:#}"
    );
    open(format!("{by_address}?sslmode=verify-ca&sslrootcert={ca}")).unwrap();

    // A CA that did not sign it: refused by both verifying modes.
    let other = tempfile::tempdir().unwrap();
    let other_ca = other.path().join("other-ca.pem");
    let stranger = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    std::fs::write(&other_ca, stranger.cert.pem()).unwrap();
    for mode in ["verify-full", "verify-ca"] {
        let url = format!(
            "{by_name}&sslmode={mode}&sslrootcert={}",
            other_ca.display()
        );
        assert!(
            open(url).is_err(),
            "{mode} with a CA that did not sign the certificate"
        );
    }
    // A CA file that is not there: a clear error before any connection.
    let missing = open(format!(
        "{by_name}&sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"
    ))
    .err()
    .unwrap();
    assert!(
        format!("{missing:#}").contains("/nonexistent/ca.pem"),
        "{missing:#}"
    );

    // require: encrypted, unchecked; disable: plain.
    let required = open(format!("{by_address}?sslmode=require")).unwrap();
    assert_eq!(encrypted(&by_address), (true, true));
    drop(required);
    let plain = open(format!("{by_address}?sslmode=disable")).unwrap();
    // (once the dropped store's connections have gone)
    fnhost_tests::wait_for(10, || {
        (encrypted(&by_address) == (false, false)).then_some(())
    });
    drop(plain);

    // A node configured for verify-full (the settings in its configuration).
    let node = fnhost_tests::Server::builder()
        .postgres(&by_name)
        .env("FNHOST_POSTGRES_SSLMODE", "verify-full")
        .env(
            "FNHOST_POSTGRES_CA_FILE",
            &postgres::ca_file().display().to_string(),
        )
        .start();
    let a = node.account("5");
    assert_eq!(
        node.client(&a.live).get("/balance").ok()["balance_usd"],
        serde_json::json!(5)
    );
}
