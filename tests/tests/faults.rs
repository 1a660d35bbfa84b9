//! A commit's promises are kept whatever the client or the server does:
//! clients that hang up right after sending, runs that panic or are lost,
//! and a server killed with SIGKILL again and again while clients retry.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use fnhost_tests::*;

const QUERY: &str = "tents under $200 from outdoor-gear.example";

fn busy_server() -> ServerBuilder {
    Server::builder()
        .env("FNHOST_RATE_LIMIT_PER_S", "100000")
        .env("FNHOST_RATE_LIMIT_BURST", "100000")
        .env("FNHOST_MAX_RUNS_IN_FLIGHT", "100000")
}

/// Send one HTTP request on a raw socket, then reset the connection
/// (SO_LINGER 0) after `delay`, without reading the answer.
fn send_and_reset(addr: SocketAddr, request: &[u8], delay: Duration) {
    let Ok(stream) = TcpStream::connect(addr) else {
        return;
    };
    let _ = (&stream).write_all(request);
    if !delay.is_zero() {
        std::thread::sleep(delay);
    }
    let socket = socket2::Socket::from(stream);
    let _ = socket.set_linger(Some(Duration::ZERO));
    drop(socket);
}

fn raw_post(s: &Server, key: &str, path: &str, body: &Value, accept: &str) -> Vec<u8> {
    let body = body.to_string();
    let host = s
        .base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap();
    format!(
        "POST /v1{path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nAccept: {accept}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn addr_of(s: &Server) -> SocketAddr {
    s.base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Every session of a client (all pages).
fn all_sessions(c: &Client) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    loop {
        let path = match out.last() {
            Some(last) => format!(
                "/sessions?limit=100&starting_after={}",
                last["id"].as_str().unwrap()
            ),
            None => "/sessions?limit=100".to_string(),
        };
        let page = c.get(&path).ok();
        out.extend(page["data"].as_array().unwrap().iter().cloned());
        if page["has_more"] != json!(true) {
            return out;
        }
    }
}

/// Within `secs`, every session is terminal and no money is held.
fn all_end_and_release(c: &Client, secs: u64) -> Vec<Value> {
    wait_for(secs, || {
        let sessions = all_sessions(c);
        let balance = c.get("/balance").ok();
        (sessions.iter().all(|s| s["status"] != "running")
            && balance["open_reserves_usd"] == json!(0))
        .then_some(sessions)
    })
}

/// A session's settled money equals its receipts' costs.
fn settled_is_receipts(c: &Client, s: &Value) -> i64 {
    let id = s["id"].as_str().unwrap();
    let cost = receipts_cost(c, id);
    assert_eq!(
        micros(&s["settled_usd"]),
        cost,
        "session {id} settled exactly its receipts"
    );
    cost
}

#[test]
fn clients_that_hang_up_after_sending_never_strand_a_session() {
    let s = busy_server().start();
    let a = s.account("1000");
    let c = s.client(&a.test);
    let addr = addr_of(&s);
    let body = json!({ "query": QUERY, "max_spend_usd": 0.05 });
    let json_create = raw_post(&s, &a.test, "/sessions", &body, "application/json");
    let sse_create = raw_post(&s, &a.test, "/sessions", &body, "text/event-stream");
    // 240 creations, half of them asking for the event stream, reset after
    // 0 to 5 ms, from four clients at once.
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let (json_create, sse_create) = (&json_create, &sse_create);
            scope.spawn(move || {
                for i in 0..60u64 {
                    let request = if (i + t) % 2 == 0 {
                        json_create
                    } else {
                        sse_create
                    };
                    let delay = Duration::from_micros(((i * 7 + t * 13) % 6) * 1000);
                    send_and_reset(addr, request, delay);
                }
            });
        }
    });
    let sessions = all_end_and_release(&c, 30);
    assert!(
        sessions.len() >= 24,
        "enough requests got through to commit sessions: {}",
        sessions.len()
    );
    let mut settled = 0;
    for sess in &sessions {
        settled += settled_is_receipts(&c, sess);
        let evs = events(&c, sess["id"].as_str().unwrap());
        let last = evs.last().unwrap();
        assert!(
            ["answered", "abstain", "error", "stopped"].contains(&last["phase"].as_str().unwrap()),
            "the log ends with a terminal event: {last}"
        );
    }
    let balance = c.get("/balance").ok();
    assert_eq!(micros(&balance["balance_usd"]), 1_000_000_000 - settled);

    // Turn confirmations hung up the same way.
    let mut confirmations = Vec::new();
    for _ in 0..20 {
        let r = c.post(
            "/sessions",
            json!({ "query": QUERY, "max_spend_usd": 0.05 }),
        );
        let id = r.json()["id"].as_str().unwrap().to_string();
        ended(&c, &id);
        let proposal = c
            .post(
                &format!("/sessions/{id}/turns"),
                json!({ "query": "only tents over $150" }),
            )
            .error(409, "proposal_required")["proposal"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let confirm = json!({ "query": "only tents over $150", "proposal": proposal });
        confirmations.push((
            id.clone(),
            raw_post(
                &s,
                &a.test,
                &format!("/sessions/{id}/turns"),
                &confirm,
                "application/json",
            ),
        ));
    }
    for (i, (_, request)) in confirmations.iter().enumerate() {
        send_and_reset(addr, request, Duration::from_millis(i as u64 % 4));
    }
    let sessions = all_end_and_release(&c, 30);
    let confirmed = confirmations
        .iter()
        .filter(|(id, _)| {
            sessions
                .iter()
                .any(|s| s["id"] == json!(id) && s["turn"] == json!(2))
        })
        .count();
    assert!(
        confirmed > 0,
        "some confirmations committed before the reset"
    );
    let mut settled = 0;
    for sess in &sessions {
        settled += settled_is_receipts(&c, sess);
    }
    let balance = c.get("/balance").ok();
    assert_eq!(micros(&balance["balance_usd"]), 1_000_000_000 - settled);
    s.audit();
}

#[test]
fn a_run_that_panics_ends_as_error_with_its_money_resolved() {
    let s = busy_server()
        .env("FNHOST_FAULTS__RUN_PANIC_MARKER", "PANIC_IN_RUN")
        .env("FNHOST_FAULTS__RUN_LOST_MARKER", "LOSE_THE_RUN")
        .start();
    let a = s.account("10");
    let c = s.client(&a.test);
    // The run panics after its first page committed.
    let r = c.post(
        "/sessions",
        json!({ "query": format!("{QUERY} PANIC_IN_RUN"), "max_spend_usd": 0.5 }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let sess = ended(&c, &id);
    assert_eq!(sess["status"], "error");
    assert_eq!(sess["error"]["code"], "internal");
    assert!(
        sess["receipts_signed"].as_u64().unwrap() >= 1,
        "the page committed before the panic is kept: {sess}"
    );
    let settled = settled_is_receipts(&c, &sess);
    assert!(settled > 0);
    assert_eq!(
        micros(&sess["settled_usd"]) + micros(&sess["released_usd"]),
        500_000,
        "settled + released = reserved"
    );
    let evs = events(&c, &id);
    assert_eq!(evs.last().unwrap()["phase"], "error");

    // A run task that vanishes without ending its session: the watchdog
    // ends it within seconds, not at the next start.
    let started = Instant::now();
    let r = c.post(
        "/sessions",
        json!({ "query": format!("{QUERY} LOSE_THE_RUN"), "max_spend_usd": 0.5 }),
    );
    let lost = r.json()["id"].as_str().unwrap().to_string();
    let sess = wait_for(10, || {
        let s = c.get(&format!("/sessions/{lost}")).ok();
        (s["status"] != "running").then_some(s)
    });
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(sess["status"], "error");
    assert_eq!(sess["error"]["code"], "internal");
    assert_eq!(micros(&sess["released_usd"]), 500_000);

    // The server keeps serving, and its accounts add up.
    let ok = ended(
        &c,
        c.post("/sessions", json!({ "query": QUERY })).json()["id"]
            .as_str()
            .unwrap(),
    );
    assert_eq!(ok["status"], "answered");
    let balance = c.get("/balance").ok();
    assert_eq!(balance["open_reserves_usd"], json!(0));
    let total: i64 = all_sessions(&c)
        .iter()
        .map(|s| settled_is_receipts(&c, s))
        .sum();
    assert_eq!(micros(&balance["balance_usd"]), 10_000_000 - total);
    s.audit();
}

fn crash_loop(kills: usize) {
    let mut s = busy_server()
        .arg("--allow-private-targets")
        .env("FNHOST_WEBHOOKS__SCHEDULE_MINUTE_MS", "50")
        .start();
    let a = s.account("1000");
    let receiver = PlainReceiver::start();
    let endpoint = s.client(&a.test).post(
        "/webhooks",
        json!({
            "url": format!("http://127.0.0.1:{}/hook", receiver.port),
            "events": ["session.answered", "session.abstained", "session.error", "session.stopped"],
        }),
    );
    assert_eq!(endpoint.status, 201, "{}", endpoint.text);

    let base = Arc::new(RwLock::new(s.base.clone()));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Idempotency key → the session id its 201 named.
    let created: Arc<Mutex<HashMap<String, String>>> = Default::default();
    let clients: Vec<_> = (0..4)
        .map(|t| {
            let (base, done, created, key) =
                (base.clone(), done.clone(), created.clone(), a.test.clone());
            std::thread::spawn(move || {
                let http = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(5))
                    .build()
                    .unwrap();
                let mut n = 0;
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    n += 1;
                    let idem = format!("crash-{t}-{n}");
                    let body = json!({
                        "query": QUERY,
                        "max_spend_usd": 0.05,
                        "metadata": { "idem": idem },
                    });
                    // Retried after connection errors until answered.
                    for _ in 0..200 {
                        let url = format!("{}/sessions", base.read().unwrap());
                        let r = http
                            .post(&url)
                            .bearer_auth(&key)
                            .header("Idempotency-Key", &idem)
                            .json(&body)
                            .send();
                        match r {
                            Ok(r) if r.status() == 201 => {
                                let v: Value = r.json().unwrap_or(Value::Null);
                                if let Some(id) = v["id"].as_str() {
                                    let mut created = created.lock().unwrap();
                                    if let Some(first) = created.insert(idem.clone(), id.into()) {
                                        assert_eq!(
                                            first, id,
                                            "a retried key named another session"
                                        );
                                    }
                                }
                                break;
                            }
                            // In progress elsewhere, or a transient refusal: retry.
                            Ok(r)
                                if r.status() == 409
                                    || r.status() == 429
                                    || r.status().is_server_error() => {}
                            Ok(r) => panic!("unexpected {}: {:?}", r.status(), r.text()),
                            Err(_) => {}
                        }
                        if done.load(std::sync::atomic::Ordering::SeqCst) {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            })
        })
        .collect();
    for i in 0..kills {
        std::thread::sleep(Duration::from_millis(250 + (i as u64 * 37) % 200));
        s.restart();
        *base.write().unwrap() = s.base.clone();
    }
    std::thread::sleep(Duration::from_millis(300));
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    for c in clients {
        c.join().unwrap();
    }

    let c = s.client(&a.test);
    let sessions = all_end_and_release(&c, 60);
    let created = created.lock().unwrap().clone();
    assert!(
        created.len() >= kills,
        "sessions were created: {}",
        created.len()
    );
    let by_id: HashMap<&str, &Value> = sessions
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s))
        .collect();
    for id in created.values() {
        assert!(
            by_id.contains_key(id.as_str()),
            "a 201's session exists: {id}"
        );
    }
    let mut keys = HashSet::new();
    let mut settled = 0;
    for sess in &sessions {
        let idem = sess["metadata"]["idem"].as_str().unwrap().to_string();
        assert!(
            keys.insert(idem.clone()),
            "one key made two sessions: {idem}"
        );
        if let Some(id) = created.get(&idem) {
            assert_eq!(sess["id"], json!(id));
        }
        assert_eq!(
            micros(&sess["settled_usd"]) + micros(&sess["released_usd"]),
            micros(&sess["max_spend_usd"]),
            "settled + released = reserved: {sess}"
        );
        settled += settled_is_receipts(&c, sess);
    }
    let balance = c.get("/balance").ok();
    assert_eq!(micros(&balance["balance_usd"]), 1_000_000_000 - settled);
    assert_eq!(balance["open_reserves_usd"], json!(0));
    let ended: HashSet<String> = sessions
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    wait_for(60, || {
        let notified = receiver.sessions_notified();
        ended.is_subset(&notified).then_some(())
    });
    s.audit();
}

#[test]
fn kill_9_in_a_loop_loses_no_session_money_or_webhook() {
    crash_loop(10);
}

/// The longer drill: `cargo test --test faults -- --ignored`.
#[test]
#[ignore]
fn kill_9_in_a_long_loop_loses_no_session_money_or_webhook() {
    crash_loop(60);
}

#[test]
fn a_stream_resumed_after_a_crash_still_ends_with_the_terminal_event() {
    let site = Site::start("outdoor-gear.example");
    site.slow(400);
    let mut s = Server::builder().arg("--allow-private-targets").start();
    let a = s.account("10");
    let c = s.client(&a.live);
    let id = c
        .post(
            "/sessions",
            json!({"query": format!("tents from {}/", site.origin), "max_spend_usd": 1}),
        )
        .ok()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Some events are read, then the server dies before the run ends.
    let seen = wait_for(30, || {
        let evs = events(&c, &id);
        (evs.len() >= 3).then_some(evs)
    });
    let last_seen = seen.last().unwrap()["seq"].as_u64().unwrap();
    s.restart();
    let c = s.client(&a.live);
    let sess = ended(&c, &id);
    assert_eq!(sess["status"], "error", "{sess}");
    // Whatever the crash lost, the terminal event comes after every number
    // a client may have seen: resuming from the last one reaches it.
    let rest = c
        .get(&format!("/sessions/{id}/events?after={last_seen}"))
        .ok();
    let rest = rest["data"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        rest.last().map(|e| e["phase"].clone()),
        Some(json!("error")),
        "{rest:?}"
    );
    s.audit();
}
