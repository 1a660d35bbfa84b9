//! Ledger throughput with durable commits, beside the disk's own fsync rate
//! measured in the same run. A benchmark that prints figures: `cargo xtask bench`.

use std::io::Write;
use std::time::Instant;

use fnhost::accounts::Mode;
use fnhost::ledger;
use fnhost::money::Micros;
use fnhost::store::Store;

#[test]
#[ignore = "a benchmark: cargo xtask bench"]
fn bench_ledger_reserve_settle_durable() {
    let dir = tempfile::tempdir().unwrap();
    let n = 500;

    // The disk: write a page and fsync, n times.
    let mut f = std::fs::File::create(dir.path().join("fsync.probe")).unwrap();
    let page = [7u8; 4096];
    let t = Instant::now();
    for _ in 0..n {
        f.write_all(&page).unwrap();
        f.sync_data().unwrap();
    }
    let fsync_rate = n as f64 / t.elapsed().as_secs_f64();

    // The ledger: each reservation and each settlement is its own durable commit.
    let store = Store::open(&dir.path().join("fnhost.redb")).unwrap();
    store
        .write(|tx| {
            ledger::top_up(
                tx,
                "acct_bench",
                Mode::Live,
                Micros::from_usd(1_000_000),
                "bench",
            )
        })
        .unwrap();
    let t = Instant::now();
    for i in 0..n {
        let r = store
            .write(|tx| ledger::reserve(tx, "acct_bench", Mode::Live, Micros(1_000_000), "bench"))
            .unwrap();
        store
            .write(|tx| ledger::resolve(tx, &r.id, &[(format!("rcpt_{i}"), Micros(1_000))]))
            .unwrap();
    }
    let secs = t.elapsed().as_secs_f64();
    println!("disk fsync (4 KiB write + fdatasync): {fsync_rate:.0}/s");
    println!(
        "ledger reserve+settle pairs, one caller, 2 durable commits each: {:.0} pairs/s ({:.0} commits/s)",
        n as f64 / secs,
        2.0 * n as f64 / secs
    );

    // Many callers at once, as the server's requests are: their durable
    // commits share fsyncs (group commit); each caller is answered once
    // its commit is on disk.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    for callers in [16usize, 64] {
        let per_caller = 4 * n / callers;
        let before = store.commit_stats();
        let t = Instant::now();
        rt.block_on(async {
            let mut tasks = Vec::new();
            for c in 0..callers {
                let store = store.clone();
                tasks.push(tokio::spawn(async move {
                    for i in 0..per_caller {
                        let r = store
                            .write_async(|tx| {
                                ledger::reserve(
                                    tx,
                                    "acct_bench",
                                    Mode::Live,
                                    Micros(1_000_000),
                                    "bench",
                                )
                            })
                            .await
                            .unwrap();
                        store
                            .write_async(move |tx| {
                                ledger::resolve(
                                    tx,
                                    &r.id,
                                    &[(format!("rcpt_{c}_{i}"), Micros(1_000))],
                                )
                            })
                            .await
                            .unwrap();
                    }
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
        });
        let secs = t.elapsed().as_secs_f64();
        let after = store.commit_stats();
        let pairs = (callers * per_caller) as f64;
        let commits = after.commits - before.commits;
        let flushes = after.flushes - before.flushes;
        println!(
            "ledger reserve+settle pairs, {callers} concurrent callers, group commit: {:.0} pairs/s ({:.0} durable commits/s in {:.0} fsyncs/s, {:.1} commits per fsync)",
            pairs / secs,
            commits as f64 / secs,
            flushes as f64 / secs,
            commits as f64 / flushes.max(1) as f64
        );
    }
    let audit = store.read(ledger::audit).unwrap();
    assert!(audit.problems.is_empty());
}
