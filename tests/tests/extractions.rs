//! The preview switch and the surfaces it opens: URL-first extractions
//! (single and batch, read, list, events, result) and the receipts lookup.

use fnhost_tests::*;

const TENTS: &str = "https://outdoor-gear.example/tents/";
const TENTS_2: &str = "https://outdoor-gear.example/tents/?page=2";
const STOVE: &str = "https://outdoor-gear.example/stoves/flarebox-stove.html";

fn preview_server(open: &str) -> Server {
    Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", open)
        .env("FNHOST_WEBHOOKS__SCHEDULE_MINUTE_MS", "50")
        .start()
}

/// The extraction once it has ended.
fn finished(c: &Client, id: &str) -> Value {
    let r = c.get(&format!("/extractions/{id}/result?wait=30"));
    assert_eq!(r.status, 200, "{}", r.text);
    c.get(&format!("/extractions/{id}")).ok()
}

#[test]
fn with_the_switch_off_every_extraction_route_stays_501() {
    let s = Server::start();
    let a = s.account("10");
    let c = s.client(&a.test);
    for (method, path, surface) in [
        ("POST", "/extractions", "extractions"),
        ("GET", "/extractions", "extractions"),
        ("GET", "/extractions/ext_1", "extractions"),
        ("DELETE", "/extractions/ext_1", "extractions"),
        ("GET", "/extractions/ext_1/result", "extractions"),
        ("GET", "/extractions/ext_1/events", "extractions"),
        ("PUT", "/extractions/ext_1/events", "extractions"),
        ("POST", "/extractions/ext_1/refresh", "extraction refresh"),
        ("GET", "/receipts/rcpt_1", "receipts lookup"),
        ("POST", "/receipts/rcpt_1", "receipts lookup"),
    ] {
        let r = c.method(method, path);
        assert_eq!(
            r.error(501, "not_implemented")["surface"],
            json!(surface),
            "{method} {path}"
        );
    }
}

#[test]
fn an_unknown_preview_switch_stops_the_server_from_starting() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(binary())
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("FNHOST_PREVIEW", "extractions,teleport")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("teleport"), "{text}");
}

#[test]
fn an_extraction_reads_its_page_settles_its_receipt_and_notifies() {
    let s = preview_server("extractions,receipts");
    let a = s.account("10");
    let c = s.client(&a.test);
    let receiver = PlainReceiver::start();
    let hook = c.post(
        "/webhooks",
        json!({ "url": receiver.url("/x"), "events": ["extraction.delivered", "extraction.failed"] }),
    );
    assert_eq!(hook.status, 201, "{}", hook.text);

    let r = c.post(
        "/extractions",
        json!({ "url": TENTS, "entity": "tent", "max_spend_usd": 0.05, "metadata": { "ref": "a1" } }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let created = r.json();
    let id = created["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("ext_"));
    assert_eq!(created["object"], "extraction");
    assert_eq!(created["status"], "running");
    assert_eq!(created["url"], TENTS);
    assert_eq!(created["reserved_usd"], json!(0.05));

    let e = finished(&c, &id);
    assert_eq!(e["status"], "delivered", "{e}");
    assert_eq!(e["records"], json!(3), "{e}");
    assert_eq!(
        e["claim"], "partial",
        "a listing with a next page is partial"
    );
    assert_eq!(e["metadata"]["ref"], "a1");
    // One page and three new rows: $0.002 + 3 × $0.0005.
    assert_eq!(micros(&e["settled_usd"]), 3_500);
    assert_eq!(
        micros(&e["settled_usd"]) + micros(&e["released_usd"]),
        50_000
    );
    let balance = c.get("/balance").ok();
    assert_eq!(micros(&balance["balance_usd"]), 10_000_000 - 3_500);
    assert_eq!(balance["open_reserves_usd"], json!(0));

    let result = c.get(&format!("/extractions/{id}/result")).ok();
    assert_eq!(result["object"], "result");
    assert_eq!(result["extraction_id"], json!(id));
    let names: Vec<&str> = result["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["record"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![
            "Trailhead 1P Ultralight Tent",
            "Canyon 3P Dome Tent",
            "Ridgeline 2-Person Backpacking Tent"
        ]
    );
    let ndjson = c.get(&format!("/extractions/{id}/result?format=ndjson"));
    assert_eq!(ndjson.text.lines().count(), 4, "three rows and the summary");
    c.get(&format!("/extractions/{id}/result?wait=601"))
        .error(400, "invalid_param");

    let events = c.get(&format!("/extractions/{id}/events")).ok();
    let phases: Vec<&str> = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases.first(), Some(&"started"));
    assert_eq!(phases.last(), Some(&"delivered"));
    // The log names the extraction as one, without a session's turn.
    let last = &events["data"].as_array().unwrap().last().unwrap()["data"];
    assert_eq!(last["extraction_id"], json!(id), "{last}");
    assert!(last.get("session_id").is_none() && last.get("turn").is_none());

    // Its receipt, looked up by id, verifies like any other.
    let rid = e["receipt_id"].as_str().unwrap();
    assert_eq!(result["receipts"], json!([rid]));
    let receipt = c.get(&format!("/receipts/{rid}")).ok();
    assert_eq!(receipt["extraction_id"], json!(id));
    assert_eq!(receipt["claim"], "partial");
    assert_eq!(micros(&receipt["cost_usd"]), 3_500);
    let other = s.account("10");
    s.client(&other.test)
        .get(&format!("/receipts/{rid}"))
        .error(404, "not_found");
    s.client(&a.live)
        .get(&format!("/receipts/{rid}"))
        .error(404, "not_found");
    s.client(&other.test)
        .get(&format!("/extractions/{id}"))
        .error(404, "not_found");

    // Not a session: the sessions routes do not know it.
    c.get(&format!("/sessions/{id}")).error(404, "not_found");
    assert_eq!(c.get("/sessions").ok()["data"], json!([]));
    let listed = c.get("/extractions").ok();
    assert_eq!(listed["data"][0]["id"], json!(id));

    let delivered = wait_for(20, || {
        receiver
            .all()
            .into_iter()
            .find(|b| b["type"] == "extraction.delivered")
    });
    let data = &delivered["data"];
    assert_eq!(data["extraction_id"], json!(id));
    assert_eq!(data["url"], TENTS);
    assert_eq!(data["status"], "delivered");
    assert_eq!(data["records"], json!(3));
    assert_eq!(data["claim"], "partial");
    assert_eq!(data["receipt_id"], json!(rid));
    assert_eq!(micros(&data["spend_usd"]), 3_500);

    // Redaction and refresh have switches of their own.
    let del = c.method("DELETE", &format!("/extractions/{id}"));
    assert_eq!(
        del.error(501, "not_implemented")["surface"],
        "extraction redaction"
    );
    let refresh = c.post(&format!("/extractions/{id}/refresh"), json!({}));
    assert_eq!(
        refresh.error(501, "not_implemented")["surface"],
        "extraction refresh"
    );
    c.method("PUT", "/extractions").error(404, "not_found");
    s.audit();
}

#[test]
fn a_batch_reserves_per_url_all_or_nothing() {
    let s = preview_server("extractions");
    let a = s.account("1");
    let c = s.client(&a.test);
    let r = c.post(
        "/extractions",
        json!({ "urls": [TENTS, TENTS_2, STOVE], "entity": "tent", "max_spend_usd": 0.1 }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let batch = r.json();
    assert_eq!(batch["object"], "extraction_batch");
    assert_eq!(micros(&batch["total_reserved_usd"]), 300_000);
    let ids: Vec<String> = batch["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 3);
    let mut settled = 0;
    for (id, records) in ids.iter().zip([3, 3, 1]) {
        let e = finished(&c, id);
        assert_eq!(e["status"], "delivered", "{e}");
        assert_eq!(e["records"], json!(records), "{e}");
        settled += micros(&e["settled_usd"]);
    }
    let stove = c.get(&format!("/extractions/{}", ids[2])).ok();
    assert_eq!(stove["claim"], "complete");
    assert_eq!(stove["qualified"], json!(0), "a stove is not a tent");
    let balance = c.get("/balance").ok();
    assert_eq!(micros(&balance["balance_usd"]), 1_000_000 - settled);

    // One bad item refuses the whole batch, naming it; nothing is reserved.
    let bad = c.post(
        "/extractions",
        json!({ "urls": [TENTS, "not a url"], "entity": "tent", "max_spend_usd": 0.1 }),
    );
    assert_eq!(bad.error(400, "invalid_param")["param"], "urls[1]");
    let not_text = c.post(
        "/extractions",
        json!({ "urls": [TENTS, 5], "entity": "tent", "max_spend_usd": 0.1 }),
    );
    assert_eq!(not_text.error(400, "invalid_param")["param"], "urls[1]");
    // More than the balance covers in all: 402, nothing reserved.
    let many: Vec<&str> = std::iter::repeat_n(TENTS, 20).collect();
    let poor = c.post(
        "/extractions",
        json!({ "urls": many, "entity": "tent", "max_spend_usd": 0.1 }),
    );
    let refused = poor.error(402, "insufficient_credit");
    // The context is the ledger as the refusal leaves it: the reservations
    // of the batch's first runs were rolled back with it.
    assert_eq!(refused["open_reserves_usd"], json!(0), "{refused}");
    assert_eq!(refused["balance_usd"], balance["balance_usd"]);
    let too_many: Vec<&str> = std::iter::repeat_n(TENTS, 51).collect();
    let r = c.post(
        "/extractions",
        json!({ "urls": too_many, "entity": "tent", "max_spend_usd": 0.001 }),
    );
    assert_eq!(r.error(400, "invalid_param")["param"], "urls");
    let after = c.get("/balance").ok();
    assert_eq!(after["balance_usd"], balance["balance_usd"]);
    assert_eq!(after["open_reserves_usd"], json!(0));
    assert_eq!(
        c.get("/extractions?limit=100").ok()["data"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    // Exactly one of url and urls; entity and max_spend_usd are required.
    let both = c.post(
        "/extractions",
        json!({ "url": TENTS, "urls": [TENTS], "entity": "tent", "max_spend_usd": 0.1 }),
    );
    assert_eq!(both.error(400, "invalid_param")["param"], "url");
    let neither = c.post(
        "/extractions",
        json!({ "entity": "tent", "max_spend_usd": 0.1 }),
    );
    assert_eq!(neither.error(400, "invalid_param")["param"], "url");
    let r = c.post(
        "/extractions",
        json!({ "url": TENTS, "max_spend_usd": 0.1 }),
    );
    assert_eq!(r.error(400, "invalid_param")["param"], "entity");
    let r = c.post("/extractions", json!({ "url": TENTS, "entity": "tent" }));
    assert_eq!(r.error(400, "invalid_param")["param"], "max_spend_usd");
    let long = "g".repeat(2001);
    let r = c.post(
        "/extractions",
        json!({ "url": TENTS, "entity": "tent", "max_spend_usd": 0.1, "guidance": long }),
    );
    assert_eq!(r.error(400, "invalid_param")["param"], "guidance");
    // An unparsable body counts as empty: the first missing field is named.
    let r = c.send(
        c.request("POST", "/extractions")
            .header("content-type", "application/json")
            .body("{not json"),
    );
    assert_eq!(r.error(400, "invalid_param")["param"], "url");
    s.audit();
}

#[test]
fn bad_endings_are_statuses_and_cost_nothing() {
    let s = preview_server("extractions");
    let a = s.account("10");
    let c = s.client(&a.test);
    let create = |url: &str, entity: &str| {
        let r = c.post(
            "/extractions",
            json!({ "url": url, "entity": entity, "max_spend_usd": 0.05 }),
        );
        assert_eq!(r.status, 201, "{}", r.text);
        r.json()["id"].as_str().unwrap().to_string()
    };
    // robots.txt disallows /private/: abstained, nothing fetched.
    let private = finished(&c, &create("https://outdoor-gear.example/private/", "tent"));
    assert_eq!(private["status"], "abstained", "{private}");
    // Nothing recorded for the page: error.
    let missing = finished(
        &c,
        &create("https://outdoor-gear.example/nowhere.html", "tent"),
    );
    assert_eq!(missing["status"], "error", "{missing}");
    assert_eq!(missing["error"]["code"], "provider_unavailable");
    // The test sentinels steer extractions through their entity.
    let declined = finished(&c, &create(TENTS, "tent FN_TEST_DECLINE"));
    assert_eq!(declined["status"], "abstained");
    for e in [&private, &missing, &declined] {
        assert_eq!(e["settled_usd"], json!(0), "{e}");
        assert_eq!(micros(&e["released_usd"]), 50_000);
    }
    assert_eq!(c.get("/balance").ok()["balance_usd"], json!(10));
}

#[test]
fn a_create_is_idempotent_and_streams_on_request() {
    let s = preview_server("extractions");
    let a = s.account("10");
    let c = s.client(&a.test);
    let body = json!({ "url": TENTS, "entity": "tent", "max_spend_usd": 0.05 });
    let first = c.send(
        c.request("POST", "/extractions")
            .header("Idempotency-Key", "ext-once")
            .json(&body),
    );
    let again = c.send(
        c.request("POST", "/extractions")
            .header("Idempotency-Key", "ext-once")
            .json(&body),
    );
    assert_eq!(first.status, 201);
    assert_eq!(again.status, 201);
    assert_eq!(first.json()["id"], again.json()["id"]);
    assert_eq!(
        c.get("/extractions").ok()["data"].as_array().unwrap().len(),
        1
    );

    let streamed = c.send(
        c.request("POST", "/extractions")
            .header("accept", "text/event-stream")
            .json(&body),
    );
    assert_eq!(streamed.status, 201);
    assert!(
        streamed.text.contains("event: started"),
        "{}",
        streamed.text
    );
    assert!(
        streamed.text.contains("event: delivered"),
        "{}",
        streamed.text
    );
}

#[test]
fn the_served_document_describes_the_open_surfaces() {
    let s = preview_server("extractions,receipts");
    let doc = s.anonymous().get("/openapi.json").ok();
    assert_eq!(
        doc["paths"]["/extractions"]["post"]["operationId"],
        "createExtraction"
    );
    assert_eq!(
        doc["paths"]["/receipts/{id}"]["get"]["operationId"],
        "getReceipt"
    );
    assert!(doc["paths"]["/extractions/{id}"]["delete"]["responses"]["501"].is_object());
    let closed = Server::start();
    let doc = closed.anonymous().get("/openapi.json").ok();
    assert!(doc["paths"]["/extractions"]["post"]["responses"]["501"].is_object());
}

#[test]
fn webhook_test_and_redeliver() {
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "webhook_test")
        .env("FNHOST_WEBHOOKS__SCHEDULE_MINUTE_MS", "1")
        .start();
    let a = s.account("10");
    let c = s.client(&a.test);
    let receiver = PlainReceiver::start();
    let ep = c
        .post(
            "/webhooks",
            json!({ "url": receiver.url("/t"), "events": ["session.answered", "balance.low"] }),
        )
        .json();
    let id = ep["id"].as_str().unwrap().to_string();
    let r = c.post(&format!("/webhooks/{id}/test"), json!({}));
    assert_eq!(r.status, 202, "{}", r.text);
    assert_eq!(r.json()["messages"].as_array().unwrap().len(), 2);
    let got = wait_for(20, || {
        let all = receiver.all();
        (all.len() >= 2).then_some(all)
    });
    let mut types: Vec<&str> = got.iter().map(|b| b["type"].as_str().unwrap()).collect();
    types.sort();
    assert_eq!(types, vec!["balance.low", "session.answered"]);
    assert!(got.iter().all(|b| b["test"] == json!(true)), "{got:?}");
    assert!(got[0]["id"].as_str().unwrap().starts_with("msg_"));
    let attempts = wait_for(10, || {
        let list = c.get(&format!("/webhooks/{id}/attempts")).ok();
        (list["data"].as_array().unwrap().len() >= 2).then_some(list)
    });
    assert!(attempts["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| a["ok"] == json!(true)));

    // A delivered message, sent again: same id and bytes, a new attempt.
    let msg = got[0]["id"].as_str().unwrap().to_string();
    let r = c.post(
        &format!("/webhooks/{id}/attempts/{msg}/redeliver"),
        json!({}),
    );
    assert_eq!(r.status, 202, "{}", r.text);
    let again = wait_for(20, || {
        let same: Vec<Value> = receiver
            .all()
            .into_iter()
            .filter(|b| b["id"] == json!(msg))
            .collect();
        (same.len() >= 2).then_some(same)
    });
    assert_eq!(again[0], again[1], "the same bytes");
    // Logged as the message's second attempt.
    let second = wait_for(10, || {
        let list = c.get(&format!("/webhooks/{id}/attempts?limit=100")).ok();
        let mine: Vec<Value> = list["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["msg_id"] == json!(msg))
            .cloned()
            .collect();
        (mine.len() >= 2).then_some(mine)
    });
    let mut numbers: Vec<u64> = second
        .iter()
        .map(|a| a["attempt"].as_u64().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, vec![1, 2]);

    // A dead-lettered message can be redelivered once the receiver is back.
    receiver
        .status
        .store(500, std::sync::atomic::Ordering::SeqCst);
    c.post(&format!("/webhooks/{id}/test"), json!({}));
    let dead = wait_for(30, || {
        let list = c.get(&format!("/webhooks/{id}/attempts?limit=100")).ok();
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["dead_lettered"] == json!(true))
            .cloned()
    });
    receiver
        .status
        .store(200, std::sync::atomic::Ordering::SeqCst);
    let dead_msg = dead["msg_id"].as_str().unwrap().to_string();
    let r = c.post(
        &format!("/webhooks/{id}/attempts/{dead_msg}/redeliver"),
        json!({}),
    );
    assert_eq!(r.status, 202, "{}", r.text);
    wait_for(20, || {
        let list = c.get(&format!("/webhooks/{id}/attempts?limit=100")).ok();
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["msg_id"] == json!(dead_msg) && a["ok"] == json!(true))
            .then_some(())
    });

    c.post(
        &format!("/webhooks/{id}/attempts/msg_nope/redeliver"),
        json!({}),
    )
    .error(404, "not_found");
    let other = s.account("10");
    s.client(&other.test)
        .post(&format!("/webhooks/{id}/test"), json!({}))
        .error(404, "not_found");
    // Extractions stay closed on this server.
    c.get("/extractions").error(501, "not_implemented");
}

#[test]
fn redaction_erases_customer_data_and_keeps_the_money_whole() {
    let s = preview_server("extractions,redaction,receipts");
    let a = s.account("10");
    let c = s.client(&a.test);
    let created = c.send(
        c.request("POST", "/sessions")
            .header("Idempotency-Key", "redact-me")
            .json(&json!({
                "query": "tents under $200 from outdoor-gear.example",
                "guidance": "prefer green tents",
                "metadata": { "customer": "alice" },
            })),
    );
    let id = created.json()["id"].as_str().unwrap().to_string();
    // (A running session is refused: see the next test.)
    let before = ended(&c, &id);
    let receipts = c.get(&format!("/sessions/{id}/receipts?limit=100")).ok();
    assert!(!receipts["data"].as_array().unwrap().is_empty());
    let balance = c.get("/balance").ok();

    let r = c.method("DELETE", &format!("/sessions/{id}"));
    assert_eq!(r.status, 200, "{}", r.text);
    let redacted = r.json();
    assert_eq!(redacted["redacted"], json!(true));
    let text = redacted.to_string();
    for secret in ["tents under", "green", "alice"] {
        assert!(!text.contains(secret), "{secret} survived: {text}");
    }
    assert_eq!(redacted["settled_usd"], before["settled_usd"]);
    // No turn follows a redaction; the refusal names the status it keeps.
    let turn = c.post(
        &format!("/sessions/{id}/turns"),
        json!({ "query": "more tents" }),
    );
    assert_eq!(
        turn.error(409, "session_terminal")["status"],
        before["status"]
    );
    assert_eq!(redacted["receipts_signed"], before["receipts_signed"]);
    // Rows and event payloads are gone; receipts are whole and verify.
    assert_eq!(
        c.get(&format!("/sessions/{id}/rows")).ok()["data"],
        json!([])
    );
    let evs = events(&c, &id);
    assert!(!evs.is_empty());
    assert!(evs.iter().all(|e| e["data"] == json!({})), "{evs:?}");
    assert_eq!(
        c.get(&format!("/sessions/{id}/receipts?limit=100")).ok(),
        receipts
    );
    let rid = receipts["data"][0]["id"].as_str().unwrap();
    assert_eq!(c.get(&format!("/receipts/{rid}")).ok(), receipts["data"][0]);
    // A replay of its Idempotency-Key shows the redacted object.
    let replay = c.send(
        c.request("POST", "/sessions")
            .header("Idempotency-Key", "redact-me")
            .json(&json!({
                "query": "tents under $200 from outdoor-gear.example",
                "guidance": "prefer green tents",
                "metadata": { "customer": "alice" },
            })),
    );
    assert!(
        !replay.text.contains("green") && !replay.text.contains("alice"),
        "{}",
        replay.text
    );
    // Money unchanged; a second DELETE answers the same.
    assert_eq!(c.get("/balance").ok(), balance);
    assert_eq!(c.method("DELETE", &format!("/sessions/{id}")).status, 200);
    s.client(&s.account("1").test)
        .method("DELETE", &format!("/sessions/{id}"))
        .error(404, "not_found");

    // Extractions the same way.
    let e = c
        .post(
            "/extractions",
            json!({ "url": TENTS, "entity": "tent", "max_spend_usd": 0.05, "metadata": { "m": "secret-x" } }),
        )
        .json();
    let eid = e["id"].as_str().unwrap().to_string();
    finished(&c, &eid);
    let r = c.method("DELETE", &format!("/extractions/{eid}"));
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["redacted"], json!(true));
    assert!(!r.text.contains("secret-x"));
    let result = c.get(&format!("/extractions/{eid}/result")).ok();
    assert_eq!(result["rows"], json!([]));
    assert_eq!(result["records"], json!(3), "counts are kept");
    s.audit();
}

#[test]
fn a_running_session_cannot_be_redacted() {
    let site = Site::start("outdoor-gear.example");
    site.slow(400);
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "redaction")
        .start();
    let a = s.account("10");
    let c = s.client(&a.live);
    let r = c.post(
        "/sessions",
        json!({ "query": format!("tents under $200 from {}/", site.origin), "max_spend_usd": 1 }),
    );
    let id = r.json()["id"].as_str().unwrap().to_string();
    let busy = c.method("DELETE", &format!("/sessions/{id}"));
    assert_eq!(busy.error(409, "session_busy")["status"], "running");
    c.post(&format!("/sessions/{id}/stop"), json!({}));
    assert_eq!(c.method("DELETE", &format!("/sessions/{id}")).status, 200);
}

#[test]
fn an_extraction_refresh_reads_again_and_says_what_changed() {
    let shop = PlainReceiver::start();
    *shop.page.lock().unwrap() = listing(&[
        ("Amber Lamp", "10.00"),
        ("Birch Lamp", "20.00"),
        ("Cedar Lamp", "30.00"),
    ]);
    let s = preview_server("extractions,refresh");
    let a = s.account("10");
    let c = s.client(&a.live);
    let url = shop.url("/lamps");
    let first = c
        .post(
            "/extractions",
            json!({ "url": url, "entity": "lamp", "max_spend_usd": 0.05 }),
        )
        .json();
    let id = first["id"].as_str().unwrap().to_string();
    let first = finished(&c, &id);
    assert_eq!(first["records"], json!(3), "{first}");

    // Served from the record when young enough: no fetch, $0.
    let balance = c.get("/balance").ok();
    let r = c.post(
        &format!("/extractions/{id}/refresh"),
        json!({ "max_age_s": 3600 }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let served = r.json();
    assert_eq!(served["refresh_of"], json!(id));
    assert_eq!(served["served_from"], "record");
    assert_eq!(served["status"], "delivered");
    assert_eq!(served["spend_usd"], json!(0));
    let rows = c
        .get(&format!(
            "/extractions/{}/result",
            served["id"].as_str().unwrap()
        ))
        .ok();
    assert_eq!(rows["rows"].as_array().unwrap().len(), 3);
    assert_eq!(
        c.get("/balance").ok()["balance_usd"],
        balance["balance_usd"]
    );
    // It opened and ended in one step: started from the record, delivered at $0.
    let log = c
        .get(&format!(
            "/extractions/{}/events",
            served["id"].as_str().unwrap()
        ))
        .ok();
    let log = log["data"].as_array().unwrap();
    let phases: Vec<&str> = log.iter().map(|e| e["phase"].as_str().unwrap()).collect();
    assert_eq!(phases, ["started", "delivered"], "{log:?}");
    assert_eq!(log[0]["data"]["served_from"], json!(id));
    assert_eq!(log[1]["data"]["served_from"], "record");
    assert_eq!(log[1]["data"]["settled_usd"], json!(0));
    assert_eq!(log[1]["data"]["records"], json!(3));

    // The shop changed: one gone, one new, one repriced.
    *shop.page.lock().unwrap() = listing(&[
        ("Amber Lamp", "12.00"),
        ("Birch Lamp", "20.00"),
        ("Dune Lamp", "40.00"),
    ]);
    let r = c.post(&format!("/extractions/{id}/refresh"), json!({}));
    assert_eq!(r.status, 201, "{}", r.text);
    let again = r.json();
    assert_eq!(again["status"], "running");
    assert!(again.get("served_from").is_none());
    let again = finished(&c, again["id"].as_str().unwrap());
    assert_eq!(again["status"], "delivered", "{again}");
    assert_eq!(
        again["diff"],
        json!({ "added": 1, "removed": 1, "changed": 1, "price_moves": 1 }),
        "{again}"
    );
    assert!(micros(&again["settled_usd"]) > 0);
    c.post(
        &format!("/extractions/{id}/refresh"),
        json!({ "max_age_s": -1 }),
    )
    .error(400, "invalid_param");
    c.post("/extractions/ext_nope/refresh", json!({}))
        .error(404, "not_found");
    // An unknown id is 404 whatever the body.
    c.post("/extractions/ext_nope/refresh", json!({ "max_age_s": -1 }))
        .error(404, "not_found");
}

#[test]
fn a_session_refresh_is_a_priced_turn_with_a_diff() {
    let s = preview_server("refresh");
    let a = s.account("10");
    let c = s.client(&a.test);
    let id = c
        .post(
            "/sessions",
            json!({ "query": "tents under $200 from outdoor-gear.example" }),
        )
        .json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let before = ended(&c, &id);
    let r = c.post(&format!("/sessions/{id}/refresh"), json!({}));
    let proposal = r.error(409, "proposal_required")["proposal"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // A refresh's proposal is confirmed through /refresh only.
    c.post(
        &format!("/sessions/{id}/turns"),
        json!({ "query": before["query"], "proposal": proposal }),
    )
    .error(400, "invalid_param");
    let r = c.post(
        &format!("/sessions/{id}/refresh"),
        json!({ "proposal": proposal }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.json()["turn"], json!(2));
    let after = ended(&c, &id);
    assert_eq!(after["status"], "answered", "{after}");
    assert_eq!(after["query"], before["query"]);
    let turn2 = c.get(&format!("/sessions/{id}/rows?limit=100")).ok();
    assert!(turn2["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["turn"] == json!(2)));
    let ended_event = events(&c, &id)
        .into_iter()
        .rev()
        .find(|e| e["phase"] == "answered")
        .unwrap();
    assert_eq!(ended_event["data"]["turn"], json!(2));
    let session = c.get(&format!("/sessions/{id}")).ok();
    assert_eq!(
        session["diff"],
        json!({ "added": 0, "removed": 0, "changed": 0, "price_moves": 0 }),
        "{session}"
    );
}
