//! Several fnhost nodes on one PostgreSQL database (a real server, started
//! by the test library): the money exact across nodes, Idempotency-Key
//! claims global, revocations seen everywhere, events read from any node,
//! and a node killed mid-run whose sessions another node ends.

use std::time::{Duration, Instant};

use fnhost_tests::*;

/// `n` nodes on one fresh database.
fn nodes(n: usize, extra: &[(&str, &str)]) -> (String, Vec<Server>) {
    let url = postgres::new_database();
    let nodes = (0..n)
        .map(|_| {
            let mut b = Server::builder()
                .postgres(&url)
                .arg("--allow-private-targets")
                .env("FNHOST_RATE_LIMIT_PER_S", "100000")
                .env("FNHOST_RATE_LIMIT_BURST", "100000")
                .env("FNHOST_MAX_RUNS_IN_FLIGHT", "100000");
            for (k, v) in extra {
                b = b.env(k, v);
            }
            b.start()
        })
        .collect();
    (url, nodes)
}

#[test]
fn five_hundred_creations_over_three_nodes_against_a_balance_that_covers_fifty() {
    let site = Site::start("outdoor-gear.example");
    site.slow(20_000); // runs stay in flight for the whole storm
    let (_, ns) = nodes(3, &[]);
    let a = ns[0].account("50");
    let clients: Vec<Client> = ns.iter().map(|s| s.client(&a.live)).collect();
    let body = json!({"query": format!("tents from {}/", site.origin), "max_spend_usd": 1});
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..500)
            .map(|i| {
                let (c, body) = (clients[i % 3].clone(), body.clone());
                scope.spawn(move || c.post("/sessions", body).status)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        50,
        "exactly the covered ones are accepted, whichever node took them"
    );
    assert_eq!(statuses.iter().filter(|s| **s == 402).count(), 450);
    for c in &clients {
        let b = c.get("/balance").ok();
        assert_eq!(
            b["open_reserves_usd"],
            json!(50),
            "every node sees the same ledger"
        );
        assert_eq!(b["available_usd"], json!(0));
    }
    // Stop each through a node that (mostly) does not run it: the stop
    // reaches the run's own node.
    let sessions = clients[0].get("/sessions?limit=100").ok();
    for (i, sess) in sessions["data"].as_array().unwrap().iter().enumerate() {
        let id = sess["id"].as_str().unwrap();
        let r = clients[(i + 1) % 3].post(&format!("/sessions/{id}/stop"), json!({}));
        assert!(r.status == 200 || r.status == 409, "{}", r.text);
        assert_ne!(r.json()["status"], "running", "{}", r.text);
    }
    let b = clients[2].get("/balance").ok();
    assert_eq!(b["open_reserves_usd"], json!(0));
    ns[1].audit();
}

#[test]
fn one_idempotency_key_sent_to_two_nodes_at_once_makes_one_session() {
    let (_, ns) = nodes(2, &[]);
    let a = ns[0].account("10");
    let body = json!({"query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 1});
    for round in 0..5 {
        let key = format!("raced-{round}");
        let responses: Vec<Response> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..20)
                .map(|i| {
                    let c = ns[i % 2].client(&a.test);
                    let (body, key) = (body.clone(), key.clone());
                    scope.spawn(move || {
                        c.send(
                            c.request("POST", "/sessions")
                                .header("Idempotency-Key", key)
                                .json(&body),
                        )
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let ids: std::collections::HashSet<String> = responses
            .iter()
            .filter(|r| r.status == 201)
            .map(|r| r.json()["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids.len(), 1, "one session per key: {ids:?}");
        for r in &responses {
            assert!(r.status == 201 || r.status == 409, "{}", r.text);
        }
    }
    let c = ns[1].client(&a.test);
    assert_eq!(c.get("/sessions").ok()["data"].as_array().unwrap().len(), 5);
    let audit = ns[0].audit();
    assert_eq!(audit["reservations"], json!(5), "one reservation per key");
}

#[test]
fn a_key_revoked_on_one_node_is_refused_by_every_node_within_a_second() {
    let (_, ns) = nodes(2, &[]);
    let a = ns[0].account("10");
    let k = ns[0].admin(&["create-key", "--account", &a.id, "--mode", "test"]);
    let key = k["key"].as_str().unwrap().to_string();
    let c1 = ns[1].client(&key);
    c1.get("/balance").ok(); // cached on node 1
    let id = k["id"].as_str().unwrap();
    ns[0]
        .client(&a.test)
        .post(&format!("/keys/{id}/revoke"), json!({}))
        .ok();
    let revoked = Instant::now();
    wait_for(5, || (c1.get("/balance").status == 401).then_some(()));
    c1.get("/balance").error(401, "key_revoked");
    assert!(
        revoked.elapsed() < Duration::from_secs(1),
        "seen after {:?}",
        revoked.elapsed()
    );
}

#[test]
fn a_session_started_on_one_node_is_streamed_and_long_polled_on_another() {
    let (_, ns) = nodes(2, &[]);
    let a = ns[0].account("10");
    let created = ns[0]
        .client(&a.test)
        .post(
            "/sessions",
            json!({"query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 1}),
        )
        .ok();
    let id = created["id"].as_str().unwrap();
    let other = ns[1].client(&a.test);
    let done = result(&other, id);
    assert_eq!(done["status"], "answered", "{done}");
    let log = events(&other, id);
    assert!(
        log.iter()
            .any(|e| e["phase"] == "answered" || e["type"] == "answered"),
        "{log:?}"
    );
}

#[test]
fn a_node_killed_mid_run_has_its_sessions_ended_by_another_with_the_money_exact() {
    let site = Site::start("outdoor-gear.example");
    site.slow(30_000);
    let receiver = PlainReceiver::start();
    let (_, mut ns) = nodes(2, &[("FNHOST_NODE_LEASE_MS", "2000")]);
    let a = ns[0].account("10");
    let endpoint = ns[1].client(&a.live).post(
        "/webhooks",
        json!({
            "url": format!("http://127.0.0.1:{}/hook", receiver.port),
            "events": ["session.answered", "session.abstained", "session.error", "session.stopped"],
        }),
    );
    assert_eq!(endpoint.status, 201, "{}", endpoint.text);
    let c0 = ns[0].client(&a.live);
    let mut ids = Vec::new();
    for _ in 0..3 {
        let r = c0
            .post(
                "/sessions",
                json!({"query": format!("tents from {}/", site.origin), "max_spend_usd": 1}),
            )
            .ok();
        ids.push(r["id"].as_str().unwrap().to_string());
    }
    ns[0].kill9();
    let killed = Instant::now();
    let c1 = ns[1].client(&a.live);
    for id in &ids {
        let s = wait_for(30, || {
            let s = c1.get(&format!("/sessions/{id}")).ok();
            (s["status"] != "running").then_some(s)
        });
        assert_eq!(s["status"], "error", "{s}");
        let cost = receipts_cost(&c1, id);
        assert_eq!(
            micros(&s["settled_usd"]),
            cost,
            "settled exactly its receipts"
        );
    }
    eprintln!("a dead node's runs ended after {:?}", killed.elapsed());
    assert_eq!(c1.get("/balance").ok()["open_reserves_usd"], json!(0));
    // Their webhooks are delivered by the node still alive.
    let delivered = wait_for(30, || {
        let bodies = receiver.bodies.lock().unwrap().clone();
        let ended: Vec<&Value> = bodies
            .iter()
            .filter(|b| b["type"] == "session.error")
            .collect();
        (ended.len() >= ids.len()).then_some(ended.len())
    });
    assert!(delivered >= ids.len());
    ns[1].audit();
}

#[test]
fn the_runs_in_flight_cap_holds_across_nodes() {
    let site = Site::start("outdoor-gear.example");
    site.slow(20_000); // runs stay in flight
    let (_, ns) = nodes(2, &[("FNHOST_MAX_RUNS_IN_FLIGHT", "2")]);
    let a = ns[0].account("10");
    let body = json!({"query": format!("tents from {}/", site.origin), "max_spend_usd": 1});
    let (c0, c1) = (ns[0].client(&a.live), ns[1].client(&a.live));
    let first = c0.post("/sessions", body.clone()).ok();
    c1.post("/sessions", body.clone()).ok();
    // Each node runs one: a third, on either node, is over the account's cap.
    c0.post("/sessions", body.clone())
        .error(429, "concurrency_cap");
    let refused = c1.post("/sessions", body.clone());
    let e = refused.error(429, "concurrency_cap");
    assert_eq!(e["limit"], json!(2), "{e}");
    assert_eq!(e["in_flight"], json!(2), "{e}");
    assert_eq!(refused.header("retry-after").as_deref(), Some("1"));
    // A place frees when a run ends, whichever node ran it.
    let id = first["id"].as_str().unwrap();
    c1.post(&format!("/sessions/{id}/stop"), json!({})).ok();
    let third = c1.post("/sessions", body);
    assert_eq!(third.status, 201, "{}", third.text);
    ns[0].audit();
}

#[test]
fn one_accounts_held_transaction_does_not_hold_another_accounts_run_on_another_node() {
    let site = Site::start("outdoor-gear.example");
    let (url, ns) = nodes(2, &[]);
    let (a, b) = (ns[0].account("10"), ns[0].account("10"));
    let (ca, cb) = (ns[0].client(&a.live), ns[1].client(&b.live));
    let body = json!({"query": format!("tents from {}/", site.origin), "max_spend_usd": 1});
    // A transaction of A's left open (on a node that froze mid-write): it
    // holds A's lock and the installation's, shared, as A's writes do.
    let held = postgres::hold(
        &url,
        &format!(
            "SELECT pg_advisory_xact_lock({}); SELECT pg_advisory_xact_lock_shared({})",
            fnhost::store::account_lock_key(&a.id),
            fnhost::store::INSTALLATION_LOCK
        ),
    );
    let waiting = {
        let (ca, body) = (ca.clone(), body.clone());
        std::thread::spawn(move || ca.post("/sessions", body))
    };
    // B opens, runs and settles on the other node meanwhile.
    let started = Instant::now();
    let s = cb.post("/sessions", body.clone()).ok();
    let id = s["id"].as_str().unwrap().to_string();
    let done = wait_for(30, || {
        let s = cb.get(&format!("/sessions/{id}")).ok();
        (s["status"] != "running").then_some(s)
    });
    assert_eq!(done["status"], "answered", "{done}");
    assert!(
        cb.get("/balance").ok()["open_reserves_usd"] == json!(0),
        "B's run settled"
    );
    let b_took = started.elapsed();
    assert!(
        !waiting.is_finished(),
        "A's session waits for A's lock (it is real) while B's ran"
    );
    drop(held);
    let r = waiting.join().unwrap();
    assert_eq!(r.status, 201, "{}", r.text);
    assert!(b_took < Duration::from_secs(30));
    ns[1].audit();
}
