//! Benchmarks that print figures (never timed assertions): run them with
//! `cargo xtask bench`. Each starts the real binary on loopback with a fresh
//! data directory and drives it from this process.

use std::time::{Duration, Instant};

use fnhost_tests::*;

fn fast_server() -> Server {
    fast_server_with(&[])
}

/// `fast_server` with further settings (applied after `BENCH_SERVER_ENV`).
fn fast_server_with(env: &[(&str, &str)]) -> Server {
    let mut b = Server::builder();
    if let Ok(extra) = std::env::var("BENCH_SERVER_ENV") {
        for kv in extra.split_whitespace() {
            if let Some((k, v)) = kv.split_once('=') {
                b = b.env(k, v);
            }
        }
    }
    b = b
        .env("FNHOST_RATE_LIMIT_PER_S", "10000000")
        .env("FNHOST_RATE_LIMIT_BURST", "10000000")
        .env("FNHOST_MAX_RUNS_IN_FLIGHT", "100000")
        .env("FNHOST_LOG", "error");
    for (k, v) in env {
        b = b.env(k, v);
    }
    b.start()
}

/// Peak resident memory of the server process (VmHWM), in MiB.
fn peak_rss_mib(s: &Server) -> f64 {
    let pid = s.child.as_ref().unwrap().id();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

/// `connections` concurrent clients sending `make()` for `secs` seconds.
fn load(
    connections: usize,
    secs: u64,
    make: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder + Send + Sync + Clone + 'static,
) -> (f64, f64, f64, usize) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(connections)
            .build()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(secs);
        let mut tasks = Vec::new();
        for _ in 0..connections {
            let (client, make) = (client.clone(), make.clone());
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::new();
                let mut errors = 0;
                while Instant::now() < deadline {
                    let t = Instant::now();
                    match make(&client).send().await {
                        Ok(r) if r.status().is_success() => {
                            let _ = r.bytes().await;
                            lat.push(t.elapsed());
                        }
                        _ => errors += 1,
                    }
                }
                (lat, errors)
            }));
        }
        let started = Instant::now();
        let mut all = Vec::new();
        let mut errors = 0;
        for t in tasks {
            let (lat, e) = t.await.unwrap();
            all.extend(lat);
            errors += e;
        }
        let elapsed = started.elapsed().as_secs_f64();
        all.sort();
        (
            all.len() as f64 / elapsed,
            percentile(&all, 0.5),
            percentile(&all, 0.99),
            errors,
        )
    })
}

/// How many times each figure is measured (`BENCH_ROUNDS`, default 3); the
/// median is the figure of record.
fn rounds() -> usize {
    std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(3)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Measure `load` `rounds()` times (each on a fresh server) and print every
/// round and the medians.
fn api_figure(
    label: &str,
    make: impl Fn(&str, &str, &reqwest::Client) -> reqwest::RequestBuilder
        + Send
        + Sync
        + Clone
        + 'static,
) {
    let (mut rps, mut p50, mut p99, mut rss) = (vec![], vec![], vec![], vec![]);
    for round in 1..=rounds() {
        let s = fast_server();
        let a = s.account("1000");
        let (b, k, m) = (s.base.clone(), a.test.clone(), make.clone());
        // A short warm-up: connections open, plugin instances compiled.
        load(64, 1, {
            let (b, k, m) = (b.clone(), k.clone(), m.clone());
            move |c| m(&b, &k, c)
        });
        let (r, l50, l99, errors) = load(64, 5, move |c| m(&b, &k, c));
        let peak = peak_rss_mib(&s);
        println!("{label} 64 conns, round {round}: {r:>9.0} req/s  p50 {l50:.2} ms  p99 {l99:.2} ms  errors {errors}  server peak RSS {peak:.1} MiB");
        rps.push(r);
        p50.push(l50);
        p99.push(l99);
        rss.push(peak);
    }
    println!(
        "{label} 64 conns, MEDIAN of {}: {:>9.0} req/s  p50 {:.2} ms  p99 {:.2} ms  server peak RSS {:.1} MiB",
        rps.len(),
        median(rps),
        median(p50),
        median(p99),
        median(rss)
    );
}

#[test]
#[ignore = "a benchmark: cargo xtask bench"]
fn bench_api_throughput() {
    api_figure("GET /v1/balance           ", |b, k, c| {
        c.get(format!("{b}/balance")).bearer_auth(k)
    });
    // Every query differs, so each request is a planner call (the results
    // memo answers a query it has seen).
    let n = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    api_figure("POST /v1/sessions/estimate", move |b, k, c| {
        let i = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        c.post(format!("{b}/sessions/estimate"))
            .bearer_auth(k)
            .json(&json!({"query": format!("tents under ${} from outdoor-gear.example", 100 + i)}))
    });
}

#[test]
#[ignore = "a benchmark: cargo xtask bench"]
fn bench_test_mode_sessions_to_answered() {
    sessions_figure("", &[]);
    // The same with every plugin call run (no results memo): what sessions
    // cost when no page repeats, as on a first crawl.
    sessions_figure(", plugin memo off", &[("FNHOST_PLUGINS__MEMO_MIB", "0")]);
}

/// `BENCH_CLIENTS` (default 16) clients create 400 test-mode sessions
/// between them; the figure runs from the first creation to the last
/// session answered.
fn sessions_figure(label: &str, env: &[(&str, &str)]) {
    let clients: usize = std::env::var("BENCH_CLIENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(16);
    let n = 400;
    let (mut rates, mut created_rates, mut rss) = (vec![], vec![], vec![]);
    for round in 1..=rounds() {
        let s = fast_server_with(env);
        let a = s.account("100000");
        let c = s.client(&a.test);
        let started = Instant::now();
        let ids: Vec<String> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..clients)
                .map(|i| {
                    let c = c.clone();
                    scope.spawn(move || {
                        (i..n)
                            .step_by(clients)
                            .map(|_| {
                                let r = c.post("/sessions", json!({"query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 1}));
                                r.json()["id"].as_str().unwrap().to_string()
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let created = ids.len() as f64 / started.elapsed().as_secs_f64();
        for id in &ids {
            let r = result(&c, id);
            assert_eq!(r["status"], "answered");
        }
        let secs = started.elapsed().as_secs_f64();
        let rate = ids.len() as f64 / secs;
        let peak = peak_rss_mib(&s);
        println!("test-mode sessions created and run to answered{label}, round {round}: {} in {secs:.2} s = {rate:.1} sessions/s (created at {created:.1}/s, {clients} clients)  server peak RSS {peak:.1} MiB", ids.len());
        s.audit();
        rates.push(rate);
        created_rates.push(created);
        rss.push(peak);
    }
    println!(
        "test-mode sessions created and run to answered{label}, MEDIAN of {}: {:.1} sessions/s (created at {:.1}/s)  server peak RSS {:.1} MiB",
        rates.len(),
        median(rates),
        median(created_rates),
        median(rss)
    );
}

#[test]
#[ignore = "a benchmark: cargo xtask bench"]
fn bench_live_pages_per_second() {
    let site = Site::start("outdoor-gear.example");
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_RATE_LIMIT_BURST", "100000")
        .env("FNHOST_MAX_RUNS_IN_FLIGHT", "100000")
        .env("FNHOST_LOG", "error")
        // Every page fetched is extracted, as on a first crawl (the 40
        // sessions read the same pages, which the memo would answer).
        .env("FNHOST_PLUGINS__MEMO_MIB", "0")
        .start();
    let a = s.account("100000");
    let c = s.client(&a.live);
    let started = Instant::now();
    let ids: Vec<String> = (0..40)
        .map(|_| {
            let r = c.post(
                "/sessions",
                json!({"query": format!("tents from {}/", site.origin), "max_spend_usd": 1}),
            );
            r.json()["id"].as_str().unwrap().to_string()
        })
        .collect();
    let mut pages = 0u64;
    for id in &ids {
        let r = result(&c, id);
        assert_eq!(r["status"], "answered");
        pages += r["receipts"].as_array().unwrap().len() as u64;
    }
    let secs = started.elapsed().as_secs_f64();
    println!("live runs against a loopback fixture site: {} sessions, {pages} pages fetched and receipted in {secs:.2} s = {:.1} pages/s", ids.len(), pages as f64 / secs);
    s.audit();
}

/// A run reading the generated 5,200-product catalog through its 130
/// listing pages (test mode): products per second and dollars per 1,000
/// products.
#[test]
#[ignore]
fn bench_catalog_run() {
    let s = fast_server();
    let a = s.account("1000");
    let c = s.client(&a.test);
    let mut rates = Vec::new();
    let mut last = Value::Null;
    for _ in 0..rounds() {
        let started = Instant::now();
        let r = c.post(
            "/sessions",
            json!({ "query": "lamps from big-catalog.example", "max_spend_usd": 10 }),
        );
        let id = r.json()["id"].as_str().unwrap().to_string();
        let session = wait_for(600, || {
            let s = c.get(&format!("/sessions/{id}")).ok();
            (s["status"] != "running").then_some(s)
        });
        let secs = started.elapsed().as_secs_f64();
        rates.push(session["records"].as_f64().unwrap() / secs);
        last = session;
    }
    let products = last["records"].as_f64().unwrap();
    let dollars = micros(&last["settled_usd"]) as f64 / 1e6;
    println!(
        "catalog run (big-catalog.example, test mode): {products} products from {} pages, median {:.0} products/s, ${:.4} per 1,000 products (${dollars:.4} in all), peak RSS {:.1} MiB",
        last["receipts_signed"],
        median(rates),
        dollars / products * 1000.0,
        peak_rss_mib(&s)
    );
}

/// Milliseconds since the epoch of an API timestamp (`2026-11-25T08:58:05.123Z`).
fn epoch_ms(t: &str) -> i64 {
    let n = |a: usize, b: usize| t[a..b].parse::<i64>().unwrap();
    let (y, m, d) = (n(0, 4), n(5, 7), n(8, 10));
    // Days from 1970-01-01 (proleptic Gregorian; civil-from-days inverse).
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    ((days * 24 + n(11, 13)) * 60 + n(14, 16)) * 60_000 + n(17, 19) * 1000 + n(20, 23)
}

/// 1,000 monitors on one node, each re-reading a loopback listing every
/// cadence: runs per second, how late runs start against their due time,
/// and memory. Time is scaled (`monitors.second_ms`), so a 60 s cadence
/// passes in `BENCH_MONITOR_SECOND_MS` × 60 ms (default 3 s: 333 runs/s due).
#[test]
#[ignore]
fn bench_monitors() {
    let monitors: usize = std::env::var("BENCH_MONITORS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let second_ms: i64 = std::env::var("BENCH_MONITOR_SECOND_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let secs = 20;
    let shop = PlainReceiver::start();
    let cards: String = (0..24)
        .map(|i| format!("<div class=\"card\"><h3><a href=\"/p/lamp-{i}.html\">Lamp {i}</a></h3><span class=\"price\">${i}.00</span></div>"))
        .collect();
    *shop.page.lock().unwrap() = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Lamps</title></head><body><h1>Lamps</h1><div class=\"grid\">{cards}</div></body></html>"
    );
    let s = fast_server_with(&[
        ("FNHOST_ALLOW_PRIVATE_TARGETS", "true"),
        ("FNHOST_PREVIEW", "monitors"),
        ("FNHOST_MONITORS__SECOND_MS", &second_ms.to_string()),
        ("FNHOST_MONITORS__TICK_MS", "50"),
    ]);
    let a = s.account("100000");
    let c = s.client(&a.live);
    let started = Instant::now();
    let ids: Vec<String> = (0..monitors)
        .map(|i| {
            let r = c.post(
                "/monitors",
                json!({ "watch": { "urls": [shop.url(&format!("/lamps?m={i}"))], "entity": "lamp" }, "cadence_s": 60, "max_spend_usd_per_run": 0.05 }),
            );
            assert_eq!(r.status, 201, "{}", r.text);
            r.json()["id"].as_str().unwrap().to_string()
        })
        .collect();
    let created_in = started.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_secs(secs));
    // Stop the schedule, then read what ran.
    for id in &ids {
        c.patch(&format!("/monitors/{id}"), json!({ "paused": true }));
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cadence_ms = 60 * second_ms;
    let mut late = Vec::new();
    let mut ended = 0usize;
    for id in &ids {
        let m = c.get(&format!("/monitors/{id}")).ok();
        let runs = c.get(&format!("/monitors/{id}/runs?limit=100")).ok();
        let mut runs: Vec<Value> = runs["data"].as_array().unwrap().clone();
        runs.reverse();
        let mut due = epoch_ms(m["created_at"].as_str().unwrap());
        for r in &runs {
            let start = epoch_ms(r["started_at"].as_str().unwrap());
            late.push(Duration::from_millis((start - due).max(0) as u64));
            due = start + cadence_ms;
            if r["outcome"] != "running" {
                ended += 1;
            }
        }
    }
    late.sort();
    println!(
        "monitors: {monitors} on one node, cadence 60 s scaled to {:.1} s ({:.0} runs/s due), created in {created_in:.1} s; over {elapsed:.1} s: {ended} runs ended = {:.1} runs/s; start lateness p50 {:.0} ms, p99 {:.0} ms (n={}); peak RSS {:.1} MiB",
        cadence_ms as f64 / 1000.0,
        monitors as f64 * 1000.0 / cadence_ms as f64,
        ended as f64 / elapsed,
        percentile(&late, 0.5),
        percentile(&late, 0.99),
        late.len(),
        peak_rss_mib(&s)
    );
}

/// One installation of `nodes` nodes: on redb (one node) or on one
/// PostgreSQL database (the test library's server, with fsync on under
/// `cargo xtask bench`).
fn installation(postgres: bool, nodes: usize) -> Vec<Server> {
    let url = postgres.then(postgres::new_database);
    (0..nodes)
        .map(|_| match &url {
            Some(url) => fast_server_with(&[
                ("FNHOST_STORAGE", "postgres"),
                ("FNHOST_POSTGRES_URL", url.as_str()),
            ]),
            None => fast_server(),
        })
        .collect()
}

/// GET /balance and test-mode sessions per second, side by side in one
/// run: one node on redb, one node on PostgreSQL, two nodes on PostgreSQL
/// (requests spread over the nodes in turn).
#[test]
#[ignore = "a benchmark: cargo xtask bench"]
fn bench_storage_engines() {
    let setups = [
        ("redb, 1 node", false, 1),
        ("postgres, 1 node", true, 1),
        ("postgres, 2 nodes", true, 2),
    ];
    let mut table = Vec::new();
    for (label, pg, n) in setups {
        let (mut rps, mut p99, mut sessions) = (vec![], vec![], vec![]);
        for round in 1..=rounds() {
            let nodes = installation(pg, n);
            let a = nodes[0].account("100000");
            let bases: Vec<String> = nodes.iter().map(|s| s.base.clone()).collect();
            let turn = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let make = {
                let (bases, key, turn) = (bases.clone(), a.test.clone(), turn.clone());
                move |c: &reqwest::Client| {
                    let i = turn.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    c.get(format!("{}/balance", bases[i % bases.len()]))
                        .bearer_auth(&key)
                }
            };
            load(64, 1, make.clone());
            let (r, _, l99, errors) = load(64, 5, make);
            // 400 test-mode sessions from 16 clients, spread over the nodes,
            // from the first creation to the last answered.
            let clients: Vec<Client> = nodes.iter().map(|s| s.client(&a.test)).collect();
            let started = Instant::now();
            let ids: Vec<(usize, String)> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..16)
                    .map(|i| {
                        let clients = clients.clone();
                        scope.spawn(move || {
                            (i..400)
                                .step_by(16)
                                .map(|j| {
                                    let node = j % clients.len();
                                    let r = clients[node].post("/sessions", json!({"query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 1}));
                                    (node, r.json()["id"].as_str().unwrap().to_string())
                                })
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap())
                    .collect()
            });
            for (node, id) in &ids {
                assert_eq!(result(&clients[*node], id)["status"], "answered");
            }
            let rate = ids.len() as f64 / started.elapsed().as_secs_f64();
            println!("{label:<18} round {round}: GET /balance {r:>8.0} req/s (p99 {l99:.2} ms, errors {errors})  test-mode sessions {rate:>6.1}/s");
            nodes[0].audit();
            rps.push(r);
            p99.push(l99);
            sessions.push(rate);
        }
        table.push((label, median(rps), median(p99), median(sessions)));
    }
    println!("\nstorage engines, MEDIAN of {} rounds each:", rounds());
    println!("| setup | GET /balance req/s | p99 ms | test-mode sessions/s |");
    println!("|---|---|---|---|");
    for (label, r, l99, s) in table {
        println!("| {label} | {r:.0} | {l99:.2} | {s:.1} |");
    }
}

/// Test-mode sessions per second with many accounts writing at once, on
/// one and two PostgreSQL nodes, for this build and (when
/// `BENCH_BEFORE_BIN` names one) an earlier build, side by side in one run:
/// 16 clients, each with an account of its own, 25 sessions each.
#[test]
#[ignore = "a benchmark: cargo xtask bench"]
fn bench_many_accounts_on_postgres() {
    let mut builds = Vec::new();
    if let Ok(before) = std::env::var("BENCH_BEFORE_BIN") {
        builds.push(("before", before));
    }
    builds.push(("this build", binary().display().to_string()));
    let previous = std::env::var_os("TEST_FNHOST_BIN");
    let mut table = Vec::new();
    for nodes_n in [1, 2] {
        for (build, bin) in &builds {
            // Servers and `fnhost admin` of this installation run this build.
            std::env::set_var("TEST_FNHOST_BIN", bin);
            let mut rates = Vec::new();
            for round in 1..=rounds() {
                let nodes = installation(true, nodes_n);
                let accounts: Vec<Account> = (0..16).map(|_| nodes[0].account("1000")).collect();
                let started = Instant::now();
                let answered: usize = std::thread::scope(|scope| {
                    let handles: Vec<_> = accounts
                        .iter()
                        .enumerate()
                        .map(|(i, a)| {
                            let clients: Vec<Client> =
                                nodes.iter().map(|s| s.client(&a.test)).collect();
                            scope.spawn(move || {
                                let ids: Vec<(usize, String)> = (0..25)
                                    .map(|j| {
                                        let node = (i + j) % clients.len();
                                        let r = clients[node].post("/sessions", json!({"query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 1}));
                                        (node, r.json()["id"].as_str().unwrap().to_string())
                                    })
                                    .collect();
                                for (node, id) in &ids {
                                    assert_eq!(result(&clients[*node], id)["status"], "answered");
                                }
                                ids.len()
                            })
                        })
                        .collect();
                    handles.into_iter().map(|h| h.join().unwrap()).sum()
                });
                let rate = answered as f64 / started.elapsed().as_secs_f64();
                println!("{build:<10} postgres, {nodes_n} node(s), 16 accounts, round {round}: {rate:>6.1} test-mode sessions/s");
                nodes[0].audit();
                rates.push(rate);
            }
            table.push((*build, nodes_n, median(rates)));
        }
    }
    match previous {
        Some(bin) => std::env::set_var("TEST_FNHOST_BIN", bin),
        None => std::env::remove_var("TEST_FNHOST_BIN"),
    }
    println!(
        "\nmany accounts on PostgreSQL, MEDIAN of {} rounds each:",
        rounds()
    );
    println!("| build | nodes | test-mode sessions/s (16 accounts at once) |");
    println!("|---|---|---|");
    for (build, n, rate) in table {
        println!("| {build} | {n} | {rate:.1} |");
    }
}

/// Resident memory (VmRSS) of every process of a server's browser, in MiB,
/// and how many there are.
fn browser_rss_mib(s: &Server) -> (f64, usize) {
    let mark = format!(
        "--user-data-dir={}",
        s.data.path().join("browser-profile").display()
    );
    let mut kib = 0u64;
    let mut n = 0;
    for p in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let ours = String::from_utf8_lossy(&cmdline).contains(&mark)
            || std::fs::read_to_string(p.path().join("status"))
                .ok()
                .and_then(|st| {
                    let ppid = st
                        .lines()
                        .find_map(|l| l.strip_prefix("PPid:"))?
                        .trim()
                        .to_string();
                    let parent = std::fs::read(format!("/proc/{ppid}/cmdline")).ok()?;
                    Some(String::from_utf8_lossy(&parent).contains(&mark))
                })
                .unwrap_or(false);
        if !ours {
            continue;
        }
        let status = std::fs::read_to_string(p.path().join("status")).unwrap_or_default();
        if let Some(v) = status.lines().find_map(|l| l.strip_prefix("VmRSS:")) {
            kib += v
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .unwrap_or(0);
            n += 1;
        }
    }
    (kib as f64 / 1024.0, n)
}

/// Rendered pages beside plain fetches on this machine: pages per second
/// (one at a time and two at once), time to the first row of a page, and
/// the browser's memory. Needs /usr/bin/chromium.
#[test]
#[ignore = "a benchmark: cargo xtask bench"]
fn bench_rendering_beside_plain_fetches() {
    if !std::path::Path::new("/usr/bin/chromium").exists() {
        println!("bench: no /usr/bin/chromium; rendering figures skipped");
        return;
    }
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "extractions")
        .env("FNHOST_FETCH__PER_HOST_INTERVAL_MS", "0")
        .env("FNHOST_FETCH__PER_HOST_CONCURRENCY", "8")
        .env("FNHOST_RATE_LIMIT_PER_S", "10000")
        .env("FNHOST_LOG", "error")
        .start();
    let shop = Site::start("script-shop.example");
    let plain = Site::start("outdoor-gear.example");
    let a = s.account("1000");
    let c = s.client(&a.live);
    let one = |url: &str, render: &str| -> (Duration, u64) {
        let t = Instant::now();
        let r = c.post(
            "/extractions",
            json!({"url": url, "entity": "product", "max_spend_usd": 1, "render": render}),
        );
        let id = r.json()["id"].as_str().unwrap().to_string();
        let done = c.get(&format!("/extractions/{id}/result?wait=60")).json();
        (t.elapsed(), done["records"].as_u64().unwrap_or(0))
    };
    // Warm: the browser starts on first use.
    let (cold, _) = one(&format!("{}/", shop.origin), "always");
    let n = 12;
    for (label, url, render) in [
        (
            "plain fetch (listing)             ",
            format!("{}/tents/", plain.origin),
            "off",
        ),
        (
            "rendered (listing)                ",
            format!("{}/", shop.origin),
            "always",
        ),
        (
            "rendered (product page)           ",
            format!("{}/p/tent/", shop.origin),
            "always",
        ),
    ] {
        let mut times = Vec::new();
        let mut rows = 0;
        for _ in 0..n {
            let (t, r) = one(&url, render);
            times.push(t);
            rows = r;
        }
        times.sort();
        let serial = n as f64 / times.iter().map(|t| t.as_secs_f64()).sum::<f64>();
        let t = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    for _ in 0..n / 2 {
                        one(&url, render);
                    }
                });
            }
        });
        let parallel = n as f64 / t.elapsed().as_secs_f64();
        println!(
            "bench: {label} {serial:6.2} pages/s one at a time, {parallel:6.2} two at once; time to first row p50 {:6.0} ms, p90 {:6.0} ms ({rows} rows/page)",
            percentile(&times, 0.5),
            percentile(&times, 0.9),
        );
    }
    let (mib, procs) = browser_rss_mib(&s);
    println!(
        "bench: browser start + first render {:.0} ms; browser memory after the renders {mib:.0} MiB in {procs} processes (2 tabs at most); server peak {:.0} MiB",
        cold.as_secs_f64() * 1000.0,
        peak_rss_mib(&s)
    );
}
