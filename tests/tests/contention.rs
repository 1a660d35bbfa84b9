//! Money under load: concurrent creations against a small balance, one
//! idempotency key raced, and storms across accounts cut by kill -9.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;

use fnhost_tests::*;

fn busy_server(extra: &[(&str, &str)]) -> Server {
    let mut b = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_RATE_LIMIT_PER_S", "100000")
        .env("FNHOST_RATE_LIMIT_BURST", "100000")
        .env("FNHOST_MAX_RUNS_IN_FLIGHT", "100000");
    for (k, v) in extra {
        b = b.env(k, v);
    }
    b.start()
}

#[test]
fn five_hundred_creations_against_a_balance_that_covers_fifty() {
    let site = Site::start("outdoor-gear.example");
    site.slow(20_000); // runs stay in flight for the whole storm
    let s = busy_server(&[]);
    let a = s.account("50");
    let c = s.client(&a.live);
    let body = json!({"query": format!("tents from {}/", site.origin), "max_spend_usd": 1});

    // Watch the balance the whole time: available never below zero.
    let stop = Arc::new(AtomicBool::new(false));
    let lowest = Arc::new(AtomicI64::new(i64::MAX));
    let watcher = {
        let (c, stop, lowest) = (c.clone(), stop.clone(), lowest.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let b = c.get("/balance").ok();
                lowest.fetch_min(micros(&b["available_usd"]), Ordering::SeqCst);
            }
        })
    };
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..500)
            .map(|_| {
                let (c, body) = (c.clone(), body.clone());
                scope.spawn(move || c.post("/sessions", body).status)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    stop.store(true, Ordering::SeqCst);
    watcher.join().unwrap();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        50,
        "exactly the covered ones are accepted"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 402).count(),
        450,
        "the rest get 402: {statuses:?}"
    );
    assert!(
        lowest.load(Ordering::SeqCst) >= 0,
        "available went below zero"
    );
    let b = c.get("/balance").ok();
    assert_eq!(b["open_reserves_usd"], json!(50));
    assert_eq!(b["available_usd"], json!(0));
    // Stop them all; only receipts settle.
    let sessions = c.get("/sessions?limit=100").ok();
    for sess in sessions["data"].as_array().unwrap() {
        let id = sess["id"].as_str().unwrap();
        let r = c.post(&format!("/sessions/{id}/stop"), json!({}));
        assert!(r.status == 200 || r.status == 409, "{}", r.text);
    }
    let b = c.get("/balance").ok();
    assert_eq!(b["open_reserves_usd"], json!(0));
    s.audit();
}

#[test]
fn one_idempotency_key_raced_a_hundred_times() {
    let s = busy_server(&[]);
    let a = s.account("10");
    let c = s.client(&a.test);
    let body = json!({"query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 1});
    let responses: Vec<Response> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..100)
            .map(|_| {
                let (c, body) = (c.clone(), body.clone());
                scope.spawn(move || {
                    c.send(
                        c.request("POST", "/sessions")
                            .header("Idempotency-Key", "same-key")
                            .json(&body),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let created: Vec<&Response> = responses.iter().filter(|r| r.status == 201).collect();
    assert!(!created.is_empty());
    let id = created[0].json()["id"].clone();
    for r in &responses {
        match r.status {
            201 => assert_eq!(r.json()["id"], id, "every success is the same session"),
            409 => {
                r.error(409, "idempotency_conflict");
            }
            other => panic!("unexpected {other}: {}", r.text),
        }
    }
    result(&c, id.as_str().unwrap());
    assert_eq!(
        c.get("/sessions").ok()["data"].as_array().unwrap().len(),
        1,
        "one session"
    );
    let audit = s.audit();
    assert_eq!(audit["reservations"], json!(1), "one reservation");
}

#[test]
fn storms_across_accounts_then_kill_9_keep_the_ledger_exact() {
    let mut s = busy_server(&[]);
    let accounts: Vec<Account> = (0..8).map(|_| s.account("3")).collect();
    std::thread::scope(|scope| {
        for a in &accounts {
            let c = s.client(&a.test);
            scope.spawn(move || {
                for i in 0..6 {
                    let q = match i % 3 {
                        0 => "tents under $200 from outdoor-gear.example",
                        1 => "tents FN_TEST_DECLINE",
                        _ => "tents FN_TEST_SPEND_STOP",
                    };
                    let r = c.post("/sessions", json!({"query": q, "max_spend_usd": 0.4}));
                    assert!(r.status == 201 || r.status == 402, "{}", r.text);
                }
            });
        }
        // Cut the storm while runs are in flight.
        std::thread::sleep(std::time::Duration::from_millis(400));
    });
    s.restart();
    s.audit();
    for a in &accounts {
        let c = s.client(&a.test);
        let b = c.get("/balance").ok();
        assert_eq!(
            b["open_reserves_usd"],
            json!(0),
            "every reservation resolved after restart"
        );
        let mut settled = 0i64;
        for sess in c.get("/sessions?limit=100").ok()["data"]
            .as_array()
            .unwrap()
        {
            assert_ne!(sess["status"], "running");
            let receipts = c
                .get(&format!(
                    "/sessions/{}/receipts?limit=100",
                    sess["id"].as_str().unwrap()
                ))
                .ok();
            let cost: i64 = receipts["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| micros(&r["cost_usd"]))
                .sum();
            assert_eq!(
                micros(&sess["settled_usd"]),
                cost,
                "a session settled exactly its receipts"
            );
            settled += cost;
        }
        assert_eq!(
            micros(&b["balance_usd"]),
            3_000_000 - settled,
            "balance sums up to the micro-dollar"
        );
    }
}

/// Keys are cached in memory, but a revocation holds from the very next
/// request: with a key busy on several threads, every request sent after
/// the revocation was answered is refused.
#[test]
fn a_busy_key_is_refused_from_the_request_after_its_revocation() {
    let s = busy_server(&[]);
    let a = s.account("10");
    let k = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "test",
        "--name",
        "busy",
    ]);
    let id = k["id"].as_str().unwrap().to_string();
    let busy = s.client(k["key"].as_str().unwrap());
    let revoked = Arc::new(AtomicBool::new(false));
    let late_successes = Arc::new(AtomicI64::new(0));
    std::thread::scope(|scope| {
        for _ in 0..6 {
            let (busy, revoked, late) = (busy.clone(), revoked.clone(), late_successes.clone());
            scope.spawn(move || {
                for _ in 0..300 {
                    let sent_after = revoked.load(Ordering::SeqCst);
                    let r = busy.get("/balance");
                    if sent_after && r.status == 200 {
                        late.fetch_add(1, Ordering::SeqCst);
                    }
                    if sent_after {
                        r.error(401, "key_revoked");
                    }
                }
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        s.client(&a.test)
            .post(&format!("/keys/{id}/revoke"), json!({}))
            .ok();
        revoked.store(true, Ordering::SeqCst);
    });
    assert_eq!(late_successes.load(Ordering::SeqCst), 0);
    busy.get("/balance").error(401, "key_revoked");
}
