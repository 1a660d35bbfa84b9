//! Failures under load: three nodes on one PostgreSQL database, clients
//! creating sessions with Idempotency-Key retries across the nodes, nodes
//! killed with SIGKILL and started again over and over, and the database
//! itself restarted in the middle. Afterwards: one session per key, every
//! session ended, every cent settled exactly once against its receipts,
//! every end notified, the ledger's audit clean.
//!
//! Its own test binary: it restarts its PostgreSQL server, which no other
//! test shares. It runs in the PostgreSQL pass of the suite.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use fnhost_tests::*;

const NODES: usize = 3;
const WRITERS: usize = 4;
/// Keys each client sends at least (it goes on until the failures end).
const MIN_KEYS_PER_WRITER: usize = 10;
const KILLS: usize = 12;
const TERMINAL: [&str; 4] = [
    "session.answered",
    "session.abstained",
    "session.error",
    "session.stopped",
];

/// Create a session under `key`, trying the nodes in turn until one
/// answers 201 (a first answer or its replay): the session's id.
fn create_with_retries(
    http: &reqwest::blocking::Client,
    bases: &RwLock<Vec<String>>,
    api_key: &str,
    key: &str,
    body: &Value,
    start: usize,
) -> (String, usize) {
    let started = Instant::now();
    for attempt in 0.. {
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "key {key} got no answer in 180 s"
        );
        let base = {
            let b = bases.read().unwrap();
            b[(start + attempt) % b.len()].clone()
        };
        let sent = http
            .post(format!("{base}/sessions"))
            .bearer_auth(api_key)
            .header("Idempotency-Key", key)
            .json(body)
            .send();
        match sent {
            Ok(r) if r.status().as_u16() == 201 => {
                let v: Value = r.json().unwrap();
                return (v["id"].as_str().unwrap().to_string(), attempt);
            }
            Ok(r) => {
                let status = r.status().as_u16();
                // A node or the database going away (5xx), or the key held
                // by a request still running or left by a killed node (409):
                // the client retries, as a client of the API would.
                assert!(
                    status >= 500 || status == 409,
                    "key {key}: unexpected {status}: {}",
                    r.text().unwrap_or_default()
                );
            }
            Err(_) => {} // the node was killed mid-request
        }
        std::thread::sleep(Duration::from_millis(150));
    }
    unreachable!()
}

/// Every session of the caller's account, page by page.
fn all_sessions(client: &Client) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    loop {
        let after = out
            .last()
            .map(|s| format!("&starting_after={}", s["id"].as_str().unwrap()))
            .unwrap_or_default();
        let page = client.get(&format!("/sessions?limit=100{after}")).ok();
        out.extend(page["data"].as_array().unwrap().iter().cloned());
        if page["has_more"] != json!(true) {
            return out;
        }
    }
}

#[test]
fn nodes_killed_and_the_database_restarted_under_load_lose_nothing_and_bill_nothing_twice() {
    if !postgres::selected() {
        eprintln!("chaos: PostgreSQL pass only (TEST_FNHOST_STORAGE=postgres)");
        return;
    }
    let site = Site::start("outdoor-gear.example");
    site.slow(150);
    let receiver = PlainReceiver::start();
    let url = postgres::new_database();
    let mut nodes: Vec<Server> = (0..NODES)
        .map(|_| {
            Server::builder()
                .postgres(&url)
                .arg("--allow-private-targets")
                .env("FNHOST_NODE_LEASE_MS", "2000")
                .env("FNHOST_RATE_LIMIT_PER_S", "100000")
                .env("FNHOST_RATE_LIMIT_BURST", "100000")
                .env("FNHOST_MAX_RUNS_IN_FLIGHT", "100000")
                .start()
        })
        .collect();
    let account = nodes[0].account("1000");
    let hook = nodes[1].client(&account.live).post(
        "/webhooks",
        json!({
            "url": format!("http://127.0.0.1:{}/hook", receiver.port),
            "events": TERMINAL,
        }),
    );
    assert_eq!(hook.status, 201, "{}", hook.text);
    let bases = Arc::new(RwLock::new(
        nodes.iter().map(|n| n.url("")).collect::<Vec<_>>(),
    ));
    let body = json!({"query": format!("tents from {}/", site.origin), "max_spend_usd": 0.5});
    let retries = Arc::new(AtomicUsize::new(0));
    let failing = Arc::new(AtomicBool::new(true));

    // The clients: every key sent until a node answers it, then once more
    // (the replay must name the same session); on and on while nodes die.
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (bases, body, key) = (bases.clone(), body.clone(), account.live.clone());
            let (retries, failing) = (retries.clone(), failing.clone());
            std::thread::spawn(move || {
                let http = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(20))
                    .build()
                    .unwrap();
                let mut made = Vec::new();
                while made.len() < MIN_KEYS_PER_WRITER || failing.load(Ordering::SeqCst) {
                    let i = made.len();
                    let idem = format!("chaos-{w}-{i}");
                    let (id, tries) = create_with_retries(&http, &bases, &key, &idem, &body, w + i);
                    retries.fetch_add(tries, Ordering::Relaxed);
                    let (again, _) =
                        create_with_retries(&http, &bases, &key, &idem, &body, w + i + 1);
                    assert_eq!(again, id, "one session per Idempotency-Key");
                    made.push((idem, id));
                    std::thread::sleep(Duration::from_millis(500));
                }
                made
            })
        })
        .collect();

    // The failures: a node killed and started again every 1.2 s, the
    // database restarted half-way.
    for kill in 0..KILLS {
        std::thread::sleep(Duration::from_millis(1200));
        if kill == KILLS / 2 {
            postgres::restart(Duration::from_secs(1));
        }
        let n = kill % NODES;
        nodes[n].restart(); // SIGKILL, then the same node id and data again
        bases.write().unwrap()[n] = nodes[n].url("");
    }
    failing.store(false, Ordering::SeqCst);
    let mut sessions: HashMap<String, String> = HashMap::new();
    for w in writers {
        for (idem, id) in w.join().unwrap() {
            assert!(sessions.insert(idem, id).is_none());
        }
    }
    eprintln!(
        "chaos: {} keys answered after {} retries in all",
        sessions.len(),
        retries.load(Ordering::Relaxed)
    );
    let ids: HashSet<&String> = sessions.values().collect();
    assert_eq!(ids.len(), sessions.len(), "a session per key, none shared");

    // Every session ends (those of killed nodes ended by their next life
    // or by another node), with nothing made that no key asked for.
    let client = nodes[0].client(&account.live);
    let listed = wait_for(120, || {
        let data = all_sessions(&client);
        data.iter()
            .all(|s| s["status"] != "running")
            .then_some(data)
    });
    assert_eq!(listed.len(), ids.len(), "no session without a key");
    let mut settled_total = 0;
    for s in &listed {
        let id = s["id"].as_str().unwrap();
        assert!(ids.contains(&id.to_string()), "{id} was asked for");
        let cost = receipts_cost(&client, id);
        assert_eq!(
            micros(&s["settled_usd"]),
            cost,
            "{id} settled exactly its receipts: {s}"
        );
        settled_total += cost;
    }
    let balance = client.get("/balance").ok();
    assert_eq!(balance["open_reserves_usd"], json!(0), "{balance}");
    assert_eq!(
        micros(&json!(1000)) - micros(&balance["balance_usd"]),
        settled_total,
        "the balance moved by exactly what the sessions settled"
    );

    // Every end notified (at least once).
    wait_for(90, || {
        let bodies = receiver.bodies.lock().unwrap().clone();
        let told: HashSet<String> = bodies
            .iter()
            .filter(|b| TERMINAL.contains(&b["type"].as_str().unwrap_or_default()))
            .filter_map(|b| b["data"]["session_id"].as_str().map(str::to_string))
            .collect();
        ids.iter().all(|id| told.contains(*id)).then_some(())
    });
    nodes[2].audit();
}
