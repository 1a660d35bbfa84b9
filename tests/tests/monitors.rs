//! Monitors (preview switch `monitors`): a durable schedule of capped runs,
//! each diffed against the last good one, with their webhooks, states and
//! money. Time is scaled: one cadence second is 20 ms here, so the shortest
//! cadence (60 s) passes in 1.2 s.

use std::time::Duration;

use fnhost_tests::*;

fn server() -> Server {
    Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "monitors,extractions")
        .env("FNHOST_MONITORS__SECOND_MS", "20")
        .env("FNHOST_MONITORS__TICK_MS", "50")
        .env("FNHOST_WEBHOOKS__SCHEDULE_MINUTE_MS", "50")
        .start()
}

/// The monitor's ended runs, oldest first.
fn ended_runs(c: &Client, id: &str) -> Vec<Value> {
    let mut runs: Vec<Value> = c.get(&format!("/monitors/{id}/runs?limit=100")).ok()["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"] != "running")
        .cloned()
        .collect();
    runs.reverse();
    runs
}

fn wait_runs(c: &Client, id: &str, n: usize) -> Vec<Value> {
    wait_for(60, || {
        let runs = ended_runs(c, id);
        (runs.len() >= n).then_some(runs)
    })
}

#[test]
fn a_monitor_reads_its_catalog_on_its_cadence_and_says_what_changed() {
    let shop = PlainReceiver::start();
    *shop.page.lock().unwrap() = listing(&[
        ("Amber Lamp", "10.00"),
        ("Birch Lamp", "20.00"),
        ("Cedar Lamp", "30.00"),
    ]);
    let hooks = PlainReceiver::start();
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.live);
    let r = c.post(
        "/monitors",
        json!({
            "watch": { "urls": [shop.url("/lamps")], "entity": "lamp" },
            "cadence_s": 60,
            "max_spend_usd_per_run": 0.05,
            "webhook_url": hooks.url("/hook"),
            "name": "lamps",
        }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let m = r.json();
    let id = m["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("mon_"));
    assert_eq!(m["object"], "monitor");
    assert_eq!(m["status"], "active");
    assert_eq!(m["cadence_s"], 60);
    // 43,200 runs of a minute in 30 days, at $0.05 each.
    assert_eq!(micros(&m["worst_case_monthly_usd"]), 2_160_000_000);
    assert!(m["next_run_at"].is_string());
    assert_eq!(m["lifetime_spend_usd"], json!(0));

    // The first run reads the catalog: the baseline, which notifies nothing.
    let runs = wait_runs(&c, &id, 1);
    let first = &runs[0];
    assert!(first["id"].as_str().unwrap().starts_with("run_"), "{first}");
    assert_eq!(first["outcome"], "baseline", "{first}");
    assert_eq!(first["baseline"], true, "{first}");
    assert_eq!(first["rows"], 3, "{first}");
    assert_eq!(first["added"], 0, "{first}");
    assert_eq!(first["notified"], 0, "{first}");
    assert!(
        first["receipt_id"].as_str().unwrap().starts_with("rcpt_"),
        "{first}"
    );
    assert!(micros(&first["cost_usd"]) > 0);
    let ext = first["extraction_ids"][0].as_str().unwrap();
    assert_eq!(
        c.get(&format!("/extractions/{ext}")).ok()["status"],
        "delivered"
    );

    // The shop changes: one repriced, one gone, one new.
    *shop.page.lock().unwrap() = listing(&[
        ("Amber Lamp", "12.00"),
        ("Birch Lamp", "20.00"),
        ("Dune Lamp", "40.00"),
    ]);
    let changed = wait_for(60, || {
        ended_runs(&c, &id)
            .into_iter()
            .find(|r| r["added"] == 1 && r["removed"] == 1)
    });
    assert_eq!(changed["outcome"], "changed", "{changed}");
    assert_eq!(changed["price_moves"], 1, "{changed}");
    assert_eq!(changed["changed"], 1, "{changed}");
    // Then nothing changes: an unchanged run.
    let n = ended_runs(&c, &id).len();
    let runs = wait_runs(&c, &id, n + 1);
    let last = runs.last().unwrap();
    assert_eq!(last["outcome"], "unchanged", "{last}");
    assert_eq!(last["added"], 0);

    // Pause: no run starts; the money is what the runs settled, exactly.
    let paused = c
        .patch(&format!("/monitors/{id}"), json!({ "paused": true }))
        .ok();
    assert_eq!(paused["status"], "paused");
    assert!(paused["next_run_at"].is_null());
    wait_for(30, || {
        c.get(&format!("/monitors/{id}")).ok()["running"]
            .is_null()
            .then_some(())
    });
    let count = ended_runs(&c, &id).len();
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(ended_runs(&c, &id).len(), count, "a paused monitor ran");
    let m = c.get(&format!("/monitors/{id}")).ok();
    let lifetime = micros(&m["lifetime_spend_usd"]);
    let summed: i64 = ended_runs(&c, &id)
        .iter()
        .map(|r| micros(&r["cost_usd"]))
        .sum();
    assert_eq!(lifetime, summed);
    let b = c.get("/balance").ok();
    assert_eq!(micros(&b["balance_usd"]), 10_000_000 - lifetime, "{b}");
    assert_eq!(micros(&b["open_reserves_usd"]), 0, "{b}");
    s.audit();

    // The monitor's own URL heard the changes, never the unchanged runs.
    let heard = wait_for(30, || {
        let types: Vec<String> = hooks
            .all()
            .iter()
            .map(|b| b["type"].as_str().unwrap_or_default().to_string())
            .collect();
        (types.iter().filter(|t| *t == "monitor.changed").count() >= 1).then_some(types)
    });
    assert!(!heard.iter().any(|t| t == "monitor.unchanged"), "{heard:?}");
    let body = hooks
        .all()
        .into_iter()
        .find(|b| b["type"] == "monitor.changed" && b["data"]["removed"] == 1)
        .unwrap();
    for field in [
        "monitor_id",
        "run_id",
        "added",
        "removed",
        "price_moves",
        "rows",
        "cost_usd",
        "receipt_id",
    ] {
        assert!(body["data"].get(field).is_some(), "{field} missing: {body}");
    }

    // Resume: active again, the next run a cadence from now.
    let resumed = c
        .patch(&format!("/monitors/{id}"), json!({ "paused": false }))
        .ok();
    assert_eq!(resumed["status"], "active");
    wait_runs(&c, &id, count + 1);
    // Delete: gone, and no run starts afterwards.
    let d = c.method("DELETE", &format!("/monitors/{id}"));
    assert_eq!(d.status, 200, "{}", d.text);
    assert_eq!(d.json()["deleted"], true);
    c.get(&format!("/monitors/{id}")).error(404, "not_found");
    assert_eq!(c.get("/monitors").ok()["data"], json!([]));
}

#[test]
fn three_failures_in_a_row_pause_a_monitor_with_a_final_webhook() {
    let hooks = PlainReceiver::start();
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.test);
    let id = c
        .post(
            "/monitors",
            json!({
                "watch": { "urls": ["https://outdoor-gear.example/tents/"], "entity": "tent FN_TEST_ERROR" },
                "cadence_s": 60,
                "max_spend_usd_per_run": 0.05,
                "webhook_url": hooks.url("/hook"),
            }),
        )
        .json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let m = wait_for(60, || {
        let m = c.get(&format!("/monitors/{id}")).ok();
        (m["status"] == "paused").then_some(m)
    });
    assert_eq!(m["consecutive_failures"], 3, "{m}");
    assert!(m["next_run_at"].is_null());
    let runs = ended_runs(&c, &id);
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert!(runs
        .iter()
        .all(|r| r["outcome"] == "failed" && r["reason"].is_string()));
    let failed = wait_for(30, || {
        let f: Vec<Value> = hooks
            .all()
            .into_iter()
            .filter(|b| b["type"] == "monitor.failed")
            .collect();
        (f.len() == 3).then_some(f)
    });
    let mut counts: Vec<u64> = failed
        .iter()
        .map(|b| b["data"]["consecutive_failures"].as_u64().unwrap())
        .collect();
    counts.sort();
    assert_eq!(counts, [1, 2, 3]);
    let last = failed
        .iter()
        .find(|b| b["data"]["consecutive_failures"] == 3)
        .unwrap();
    assert_eq!(last["data"]["paused"], true, "{last}");
    assert!(failed
        .iter()
        .filter(|b| b["data"]["consecutive_failures"] != 3)
        .all(|b| b["data"].get("paused").is_none()));
    std::thread::sleep(Duration::from_millis(2000));
    assert_eq!(ended_runs(&c, &id).len(), 3, "a paused monitor ran");
    // Failed runs cost nothing here, and nothing stays reserved.
    let b = c.get("/balance").ok();
    assert_eq!(micros(&b["open_reserves_usd"]), 0, "{b}");
    s.audit();
}

#[test]
fn a_query_watch_runs_a_session_each_time() {
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.test);
    let id = c
        .post(
            "/monitors",
            json!({
                "watch": { "query": "tents under $200 from outdoor-gear.example" },
                "cadence_s": 60,
                "max_spend_usd_per_run": 0.5,
            }),
        )
        .json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let runs = wait_runs(&c, &id, 2);
    assert_eq!(runs[0]["outcome"], "baseline", "{:?}", runs[0]);
    assert!(runs[0]["rows"].as_u64().unwrap() >= 4, "{:?}", runs[0]);
    let ses = runs[0]["session_id"].as_str().unwrap();
    assert_eq!(
        c.get(&format!("/sessions/{ses}")).ok()["status"],
        "answered"
    );
    // The recordings do not change: the second run is unchanged.
    assert_eq!(runs[1]["outcome"], "unchanged", "{:?}", runs[1]);
    assert_eq!(c.get(&format!("/monitors/{id}")).ok()["status"], "active");
    // Pagination of runs.
    let page = c.get(&format!("/monitors/{id}/runs?limit=1")).ok();
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    assert_eq!(page["has_more"], true);
    let next = page["data"][0]["id"].as_str().unwrap();
    let page2 = c
        .get(&format!(
            "/monitors/{id}/runs?limit=1&starting_after={next}"
        ))
        .ok();
    assert_ne!(page2["data"][0]["id"], page["data"][0]["id"]);
    c.patch(&format!("/monitors/{id}"), json!({ "paused": true }))
        .ok();
    wait_for(30, || {
        c.get(&format!("/monitors/{id}")).ok()["running"]
            .is_null()
            .then_some(())
    });
    s.audit();
}

#[test]
fn monitors_check_their_input_and_caps_and_stay_501_when_closed() {
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.test);
    let url = "https://outdoor-gear.example/tents/";
    let ok = json!({ "watch": { "urls": [url], "entity": "tent" }, "cadence_s": 3600, "max_spend_usd_per_run": 0.05 });
    let with = |k: &str, v: Value| {
        let mut b = ok.clone();
        b[k] = v;
        b
    };
    let named = |r: Response, param: &str| {
        let e = r.error(400, "invalid_param");
        assert_eq!(e["param"], param, "{e}");
    };
    named(
        c.post(
            "/monitors",
            json!({ "cadence_s": 60, "max_spend_usd_per_run": 1 }),
        ),
        "watch",
    );
    named(
        c.post(
            "/monitors",
            with("watch", json!({ "urls": [url], "query": "x" })),
        ),
        "watch",
    );
    named(c.post("/monitors", with("watch", json!({}))), "watch");
    named(
        c.post("/monitors", with("watch", json!({ "urls": [url] }))),
        "watch.entity",
    );
    named(
        c.post(
            "/monitors",
            with("watch", json!({ "urls": ["ftp://x"], "entity": "t" })),
        ),
        "watch.urls[0]",
    );
    named(
        c.post("/monitors", with("cadence_s", json!(59))),
        "cadence_s",
    );
    named(
        c.post("/monitors", with("cadence_s", json!(2_592_001))),
        "cadence_s",
    );
    let mut no_cap = ok.clone();
    no_cap
        .as_object_mut()
        .unwrap()
        .remove("max_spend_usd_per_run");
    named(c.post("/monitors", no_cap), "max_spend_usd_per_run");
    named(c.post("/monitors", with("every", json!(1))), "every");
    // The worst case must fit the monthly cap: hourly at $0.05 is $36.
    s.admin(&["set-caps", "--account", &a.id, "--monthly-cap-usd", "30"]);
    c.post("/monitors", ok.clone())
        .error(403, "monthly_cap_exceeded");
    let fits = c.post("/monitors", with("cadence_s", json!(7200)));
    assert_eq!(fits.status, 201, "{}", fits.text);
    let id = fits.json()["id"].as_str().unwrap().to_string();
    // The worst cases add up: a second such monitor no longer fits ($18 +
    // $18 > $30) until the first is paused.
    c.post("/monitors", with("cadence_s", json!(7200)))
        .error(403, "monthly_cap_exceeded");
    c.patch(&format!("/monitors/{id}"), json!({ "paused": true }))
        .ok();
    let second = c.post("/monitors", with("cadence_s", json!(7200)));
    assert_eq!(second.status, 201, "{}", second.text);
    // Resuming the first would take the total past the cap.
    c.patch(&format!("/monitors/{id}"), json!({ "paused": false }))
        .error(403, "monthly_cap_exceeded");
    let second = second.json()["id"].as_str().unwrap().to_string();
    c.method("DELETE", &format!("/monitors/{second}"));
    c.patch(&format!("/monitors/{id}"), json!({ "paused": false }))
        .ok();
    // A PATCH is checked the same way.
    c.patch(&format!("/monitors/{id}"), json!({ "cadence_s": 60 }))
        .error(403, "monthly_cap_exceeded");
    named(
        c.patch(&format!("/monitors/{id}"), json!({ "paused": "yes" })),
        "paused",
    );
    // Every member is optional (SPEC §4.3): nothing to change answers the
    // monitor as it is; a null member is an absent one (only webhook_url's
    // null clears it).
    let before = c.get(&format!("/monitors/{id}")).ok();
    let same = c.patch(&format!("/monitors/{id}"), json!({})).ok();
    assert_eq!(same, before);
    let same = c
        .patch(&format!("/monitors/{id}"), json!({ "paused": null }))
        .ok();
    assert_eq!(same, before);
    // A body that does not parse, or is over the 1 MB cap, is treated as
    // empty (SPEC §7.3.1): nothing to change.
    for raw in [
        "{\"paused\": tru".to_string(),
        format!("{{\"name\": \"{}\"}}", "x".repeat(1 << 20)),
    ] {
        let same = c
            .send(
                c.request("PATCH", &format!("/monitors/{id}"))
                    .header("content-type", "application/json")
                    .body(raw),
            )
            .ok();
        assert_eq!(same, before);
    }
    // A body that is JSON but no object is no request to change nothing.
    named(
        c.patch(&format!("/monitors/{id}"), json!([null, null])),
        "paused",
    );
    let cleared = c
        .patch(&format!("/monitors/{id}"), json!({ "webhook_url": null }))
        .ok();
    assert!(cleared["webhook_url"].is_null());
    c.patch("/monitors/mon_nope", json!({ "paused": true }))
        .error(404, "not_found");
    // Another account, or the other mode, sees nothing.
    let other = s.account("1");
    s.client(&other.test)
        .get(&format!("/monitors/{id}"))
        .error(404, "not_found");
    s.client(&a.live)
        .get(&format!("/monitors/{id}"))
        .error(404, "not_found");

    let closed = Server::start();
    let b = closed.account("1");
    let c = closed.client(&b.test);
    for path in [
        "/monitors",
        "/monitors/mon_x",
        "/monitors/mon_x/runs",
        "/monitors/mon_x/runs/run_x/changes",
        "/monitors/mon_x/feed",
        "/monitors/mon_x/feed/revoke",
    ] {
        for method in ["GET", "POST", "PATCH", "DELETE"] {
            let r = c.method(method, path);
            let e = r.error(501, "not_implemented");
            assert_eq!(e["surface"], "monitors", "{method} {path}");
        }
    }
}

#[test]
fn the_schedule_survives_a_restart_and_a_kill_mid_run() {
    let shop = PlainReceiver::start();
    *shop.page.lock().unwrap() = listing(&[("Amber Lamp", "10.00"), ("Birch Lamp", "20.00")]);
    let mut s = server();
    let a = s.account("10");
    let id = {
        let c = s.client(&a.live);
        c.post(
            "/monitors",
            json!({ "watch": { "urls": [shop.url("/lamps")], "entity": "lamp" }, "cadence_s": 60, "max_spend_usd_per_run": 0.05 }),
        )
        .json()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    wait_runs(&s.client(&a.live), &id, 1);
    // A graceful restart: the schedule goes on.
    s.restart();
    let before = ended_runs(&s.client(&a.live), &id).len();
    wait_runs(&s.client(&a.live), &id, before + 1);
    // A kill -9 while a run is reading its (slow) page.
    shop.delay_ms
        .store(3000, std::sync::atomic::Ordering::SeqCst);
    wait_for(30, || {
        s.client(&a.live).get(&format!("/monitors/{id}")).ok()["running"]
            .as_str()
            .map(str::to_string)
    });
    std::thread::sleep(Duration::from_millis(300));
    s.kill9();
    shop.delay_ms.store(0, std::sync::atomic::Ordering::SeqCst);
    s.restart();
    let c = s.client(&a.live);
    // That run ends (failed: its extraction was cut off) and the next ones run.
    let runs = wait_for(60, || {
        let runs = ended_runs(&c, &id);
        runs.iter()
            .rposition(|r| r["outcome"] == "failed")
            .filter(|&i| i + 1 < runs.len())
            .map(|_| runs)
    });
    assert!(runs.iter().any(|r| r["outcome"] == "failed"), "{runs:?}");
    c.patch(&format!("/monitors/{id}"), json!({ "paused": true }))
        .ok();
    wait_for(30, || {
        c.get(&format!("/monitors/{id}")).ok()["running"]
            .is_null()
            .then_some(())
    });
    let m = c.get(&format!("/monitors/{id}")).ok();
    let summed: i64 = ended_runs(&c, &id)
        .iter()
        .map(|r| micros(&r["cost_usd"]))
        .sum();
    assert_eq!(micros(&m["lifetime_spend_usd"]), summed);
    let b = c.get("/balance").ok();
    assert_eq!(micros(&b["balance_usd"]), 10_000_000 - summed, "{b}");
    assert_eq!(micros(&b["open_reserves_usd"]), 0, "{b}");
    s.audit();
}

#[test]
fn a_failing_monitor_is_active_again_after_a_good_run() {
    let shop = PlainReceiver::start();
    *shop.page.lock().unwrap() = listing(&[("Amber Lamp", "10.00")]);
    shop.status.store(503, std::sync::atomic::Ordering::SeqCst);
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.live);
    let id = c
        .post(
            "/monitors",
            json!({ "watch": { "urls": [shop.url("/lamps")], "entity": "lamp" }, "cadence_s": 60, "max_spend_usd_per_run": 0.05 }),
        )
        .json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let m = wait_for(60, || {
        let m = c.get(&format!("/monitors/{id}")).ok();
        (m["status"] == "failing").then_some(m)
    });
    assert!(m["consecutive_failures"].as_u64().unwrap() >= 1, "{m}");
    assert_eq!(m["last_run"]["outcome"], "failed", "{m}");
    shop.status.store(200, std::sync::atomic::Ordering::SeqCst);
    let m = wait_for(60, || {
        let m = c.get(&format!("/monitors/{id}")).ok();
        (m["status"] == "active" && m["last_run"]["outcome"] == "baseline").then_some(m)
    });
    assert_eq!(m["consecutive_failures"], 0, "{m}");
    c.patch(&format!("/monitors/{id}"), json!({ "paused": true }))
        .ok();
    wait_for(30, || {
        c.get(&format!("/monitors/{id}")).ok()["running"]
            .is_null()
            .then_some(())
    });
    s.audit();
}

#[test]
fn monitors_wait_for_a_run_slot_instead_of_failing() {
    // One run in flight per account: three monitors due at once take turns.
    let s = Server::builder()
        .env("FNHOST_PREVIEW", "monitors")
        .env("FNHOST_MONITORS__SECOND_MS", "20")
        .env("FNHOST_MONITORS__TICK_MS", "50")
        .env("FNHOST_MAX_RUNS_IN_FLIGHT", "1")
        .start();
    let a = s.account("10");
    let c = s.client(&a.test);
    let ids: Vec<String> = (0..3)
        .map(|_| {
            c.post(
                "/monitors",
                json!({ "watch": { "urls": ["https://outdoor-gear.example/tents/"], "entity": "tent" }, "cadence_s": 60, "max_spend_usd_per_run": 0.05 }),
            )
            .json()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for id in &ids {
        let runs = wait_runs(&c, id, 2);
        assert!(runs.iter().all(|r| r["outcome"] != "failed"), "{runs:?}");
        let m = c.get(&format!("/monitors/{id}")).ok();
        // Postponed runs left the log: it holds every run the monitor counts.
        let logged = c.get(&format!("/monitors/{id}/runs?limit=100")).ok()["data"]
            .as_array()
            .unwrap()
            .len() as u64;
        assert!(m["runs"].as_u64().unwrap() - logged <= 1, "{m}");
        assert_eq!(m["consecutive_failures"], 0, "{m}");
        assert_ne!(m["status"], "failing", "{m}");
    }
    for id in &ids {
        c.patch(&format!("/monitors/{id}"), json!({ "paused": true }))
            .ok();
    }
    for id in &ids {
        wait_for(30, || {
            c.get(&format!("/monitors/{id}")).ok()["running"]
                .is_null()
                .then_some(())
        });
    }
    s.audit();
}

/// A listing page whose products carry price and availability (JSON-LD).
fn stocked(items: &[(&str, &str, bool)]) -> String {
    let list: Vec<Value> = items
        .iter()
        .enumerate()
        .map(|(i, (name, price, in_stock))| {
            let slug = name.to_lowercase().replace(' ', "-");
            json!({ "@type": "ListItem", "position": i + 1, "item": {
                "@type": "Product", "name": name, "url": format!("/p/{slug}.html"),
                "offers": { "@type": "Offer", "price": price, "priceCurrency": "USD",
                    "availability": if *in_stock { "https://schema.org/InStock" } else { "https://schema.org/OutOfStock" } } } })
        })
        .collect();
    let cards: String = items
        .iter()
        .map(|(name, price, _)| {
            let slug = name.to_lowercase().replace(' ', "-");
            format!("<div class=\"card\"><a href=\"/p/{slug}.html\">{name}</a><span class=\"price\">${price}</span></div>")
        })
        .collect();
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>Tents</title><script type=\"application/ld+json\">{}</script></head><body><h1>Tents</h1>{cards}</body></html>",
        json!({ "@context": "https://schema.org", "@type": "ItemList", "itemListElement": list })
    )
}

#[test]
fn item_changes_over_thresholds_reach_chat_channels_and_the_feed() {
    let shop = PlainReceiver::start();
    *shop.page.lock().unwrap() = stocked(&[
        ("Alpine Tent", "200.00", true),
        ("Birch Tent", "100.00", true),
        ("Cove Tent", "50.00", false),
        ("Dune Tent", "30.00", true),
        ("Ember Tent", "80.00", true),
    ]);
    let (slack, discord, teams) = (
        PlainReceiver::start(),
        PlainReceiver::start(),
        PlainReceiver::start(),
    );
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.live);
    let r = c.post(
        "/monitors",
        json!({
            "watch": { "urls": [shop.url("/tents")], "entity": "tent" },
            "cadence_s": 60,
            "max_spend_usd_per_run": 0.05,
            "name": "Tents",
            "channels": [
                { "kind": "slack", "url": slack.url("/hook") },
                { "kind": "discord", "url": discord.url("/hook") },
                { "kind": "teams", "url": teams.url("/hook") },
            ],
        }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let m = r.json();
    let id = m["id"].as_str().unwrap().to_string();
    assert_eq!(m["notify_on"]["price_down_percent"], json!(1.0), "{m}");
    let feed_url = m["feed_url"].as_str().unwrap().to_string();
    // A bad channel is refused with its name.
    let bad = c.post(
        "/monitors",
        json!({ "watch": { "urls": [shop.url("/tents")], "entity": "tent" }, "cadence_s": 60,
                "max_spend_usd_per_run": 0.05, "channels": [{ "kind": "irc", "url": slack.url("/x") }] }),
    );
    assert_eq!(bad.error(400, "invalid_param")["param"], "channels");

    let first = wait_runs(&c, &id, 1)[0].clone();
    assert_eq!(first["outcome"], "baseline", "{first}");
    // −12 %, −0.5 % (under the 1 % default), back in stock, gone, new, +25 %.
    *shop.page.lock().unwrap() = stocked(&[
        ("Alpine Tent", "176.00", true),
        ("Birch Tent", "99.50", true),
        ("Cove Tent", "50.00", true),
        ("Ember Tent", "100.00", true),
        ("Fjord Tent", "120.00", true),
    ]);
    let run = wait_for(60, || {
        ended_runs(&c, &id)
            .into_iter()
            .find(|r| r["outcome"] == "changed")
    });
    assert_eq!(run["notified"], 5, "{run}");
    let rid = run["id"].as_str().unwrap();
    let changes = c.get(&format!("/monitors/{id}/runs/{rid}/changes")).ok();
    let by_kind = |kind: &str| -> Vec<Value> {
        changes["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["kind"] == kind)
            .cloned()
            .collect()
    };
    let drops = by_kind("price_down");
    let alpine = drops.iter().find(|c| c["name"] == "Alpine Tent").unwrap();
    assert_eq!(alpine["old_price"], "200.00");
    assert_eq!(alpine["new_price"], "176.00");
    assert_eq!(alpine["change"], "-24.00");
    assert_eq!(alpine["change_percent"], json!(-12.0));
    assert_eq!(alpine["notify"], true);
    let birch = drops.iter().find(|c| c["name"] == "Birch Tent").unwrap();
    assert_eq!(birch["notify"], false, "a 0.5 % drop is noise: {birch}");
    assert_eq!(by_kind("back_in_stock")[0]["name"], "Cove Tent");
    assert_eq!(by_kind("removed")[0]["name"], "Dune Tent");
    assert_eq!(by_kind("added")[0]["name"], "Fjord Tent");
    assert_eq!(by_kind("price_up")[0]["change_percent"], json!(25.0));
    assert_eq!(changes["counts"]["price_down"], 2, "{changes}");

    // Each channel got one message, in its service's documented shape.
    let one = |r: &PlainReceiver| {
        wait_for(30, || {
            let b = r.all();
            (!b.is_empty()).then_some(b)
        })
    };
    let sl = one(&slack);
    assert_eq!(sl.len(), 1, "the baseline told nothing: {sl:?}");
    let sl = &sl[0];
    assert!(
        sl["text"].as_str().unwrap().contains("5 changes on Tents"),
        "{sl}"
    );
    let blocks = sl["blocks"].as_array().unwrap();
    assert!(blocks.len() <= 50);
    assert_eq!(blocks[0]["type"], "header");
    assert_eq!(blocks[0]["text"]["type"], "plain_text");
    assert_eq!(blocks[1]["type"], "section");
    assert_eq!(blocks[1]["text"]["type"], "mrkdwn");
    let section = blocks[1]["text"]["text"].as_str().unwrap();
    assert!(section.len() <= 3000);
    assert!(
        section.contains("Alpine Tent dropped 12 % to 176.00 USD (was 200.00)"),
        "{section}"
    );
    assert!(section.contains("|"), "products are linked: {section}");
    assert!(!section.contains("Birch"), "{section}");
    let dc = &one(&discord)[0];
    assert!(dc["content"].as_str().unwrap().chars().count() <= 2000);
    let embeds = dc["embeds"].as_array().unwrap();
    assert!(embeds.len() <= 10);
    assert!(embeds[0]["title"].as_str().unwrap().chars().count() <= 256);
    let desc = embeds[0]["description"].as_str().unwrap();
    assert!(
        desc.chars().count() <= 4096 && desc.contains("Cove Tent is back in stock"),
        "{desc}"
    );
    let tm = &one(&teams)[0];
    assert_eq!(tm["type"], "message");
    let card = &tm["attachments"][0];
    assert_eq!(
        card["contentType"],
        "application/vnd.microsoft.card.adaptive"
    );
    assert_eq!(card["content"]["type"], "AdaptiveCard");
    assert!(card["content"]["version"].is_string());
    let texts = card["content"]["body"].as_array().unwrap();
    assert!(texts
        .iter()
        .all(|b| b["type"] == "TextBlock" && b["text"].is_string()));

    // The feed: readable without a key at its URL, valid Atom, one entry.
    let path = feed_url
        .splitn(4, '/')
        .nth(3)
        .unwrap()
        .trim_start_matches("v1");
    let r = s.anonymous().get(path);
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/atom+xml"));
    let file = s.data.path().join("feed.xml");
    std::fs::write(&file, &r.text).unwrap();
    let out = std::process::Command::new(python())
        .arg("-c")
        .arg("import feedparser,sys,json; d=feedparser.parse(sys.argv[1]); print(json.dumps({'bozo': d.bozo, 'version': d.version, 'n': len(d.entries), 'title': d.entries[0].title if d.entries else '', 'html': d.entries[0].content[0].value if d.entries else ''}))")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parsed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(parsed["bozo"], json!(false), "{parsed}");
    assert_eq!(parsed["version"], "atom10", "{parsed}");
    assert_eq!(parsed["n"], 1, "{parsed}");
    assert!(parsed["title"].as_str().unwrap().contains("5 changes"));
    assert!(
        parsed["html"].as_str().unwrap().contains("<li>"),
        "{parsed}"
    );
    // Revoked: the old URL is gone, the key still reads the feed.
    let revoked = c
        .post(&format!("/monitors/{id}/feed/revoke"), json!({}))
        .ok();
    assert_ne!(revoked["feed_url"], json!(feed_url));
    assert_eq!(s.anonymous().get(path).status, 404);
    assert_eq!(c.get(&format!("/monitors/{id}/feed")).status, 200);
    // Nothing more moves: no further message.
    let n = ended_runs(&c, &id).len();
    wait_runs(&c, &id, n + 1);
    assert_eq!(slack.all().len(), 1);
}

#[test]
fn a_page_that_fails_removes_nothing() {
    // A two-page catalog read by a query watch; then its page 2 fails.
    let site = Scripted::start();
    let page = |n: usize, names: &[&str]| {
        let cards: Vec<(&str, &str)> = names.iter().map(|n| (*n, "10.00")).collect();
        let next = if n == 1 {
            "<a rel=\"next\" href=\"/lamps/?page=2\">Next</a>"
        } else {
            ""
        };
        listing(&cards).replace("</body>", &format!("{next}</body>"))
    };
    site.page("/lamps/?page=1", &page(1, &["Amber Lamp", "Birch Lamp"]));
    site.page("/lamps/?page=2", &page(2, &["Cedar Lamp", "Dune Lamp"]));
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "monitors")
        .env("FNHOST_MONITORS__SECOND_MS", "20")
        .env("FNHOST_MONITORS__TICK_MS", "50")
        .env("FNHOST_FETCH__BACKOFF_MS", "10")
        .start();
    let a = s.account("10");
    let c = s.client(&a.live);
    let id = c
        .post(
            "/monitors",
            json!({ "watch": { "query": format!("lamps from {}/lamps/?page=1", site.origin) }, "cadence_s": 60, "max_spend_usd_per_run": 0.5 }),
        )
        .ok()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let first = wait_runs(&c, &id, 1);
    assert_eq!(first[0]["outcome"], "baseline", "{:?}", first[0]);
    assert_eq!(first[0]["rows"], 4, "{:?}", first[0]);
    site.answer("/lamps/?page=2", 500, &[], "oops");
    let runs = wait_runs(&c, &id, 2);
    let second = &runs[1];
    let ses = second["session_id"].as_str().unwrap();
    let read = c.get(&format!("/sessions/{ses}/result")).ok();
    assert!(
        read["sources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["outcome"] == "fetch_failed"),
        "page 2 failed in the second run: {read}"
    );
    assert_eq!(
        second["removed"], 0,
        "a page not read removes nothing: {second}"
    );
    assert_eq!(second["notified"], 0, "{second}");
    // Page 2 answers again: its products were there all along, not new.
    site.page("/lamps/?page=2", &page(2, &["Cedar Lamp", "Dune Lamp"]));
    let runs = wait_runs(&c, &id, 3);
    let third = &runs[2];
    assert_eq!(third["rows"], 4, "{third}");
    assert_eq!(third["added"], 0, "nothing new: {third}");
    assert_eq!(third["outcome"], "unchanged", "{third}");
    assert_eq!(third["notified"], 0, "{third}");
    // And what the page read again lacks is removed, what it adds is new.
    site.page("/lamps/?page=2", &page(2, &["Cedar Lamp", "Elm Lamp"]));
    let runs = wait_runs(&c, &id, 4);
    assert_eq!(runs[3]["removed"], 1, "{}", runs[3]);
    assert_eq!(runs[3]["added"], 1, "{}", runs[3]);
    c.patch(&format!("/monitors/{id}"), json!({ "paused": true }))
        .ok();
}
