//! The platform's HTTP conventions, keys, scopes, modes and the platform
//! plane, checked against the real binary.

use fnhost_tests::*;

#[test]
fn every_response_carries_a_request_id_and_the_version() {
    let s = Server::start();
    let a = s.account("10");
    let c = s.client(&a.live);
    let ok = c.get("/balance");
    assert_eq!(ok.status, 200);
    assert!(ok.header("fn-request-id").unwrap().starts_with("req_"));
    assert_eq!(
        ok.header("fn-version").as_deref(),
        Some("2026-08-26"),
        "absent → the account pin"
    );
    let pinned = c.send(
        c.request("GET", "/balance")
            .header("fn-version", "2027-01-01"),
    );
    assert_eq!(
        pinned.header("fn-version").as_deref(),
        Some("2027-01-01"),
        "echoed back"
    );
    let err = s.anonymous().get("/balance");
    let e = err.error(401, "invalid_key");
    assert_eq!(e["type"], "authentication");
    assert_ne!(ok.header("fn-request-id"), err.header("fn-request-id"));
}

#[test]
fn doc_urls_lead_to_a_page_about_the_code() {
    let s = Server::start();
    let e = s.anonymous().get("/me").error(401, "invalid_key");
    let doc = e["doc_url"].as_str().unwrap();
    assert_eq!(doc, format!("{}/docs/errors/invalid_key", s.origin()));
    let page = reqwest::blocking::get(doc).unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().unwrap().contains("invalid_key"));
}

#[test]
fn keys_missing_malformed_unknown_and_revoked() {
    let s = Server::start();
    let a = s.account("10");
    s.anonymous().get("/me").error(401, "invalid_key");
    s.client("not-a-key").get("/me").error(401, "invalid_key");
    s.client("fn_live_short")
        .get("/me")
        .error(401, "invalid_key");
    s.client("fn_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
        .get("/me")
        .error(401, "invalid_key");
    let c = s.client(&a.live);
    let anon = s.anonymous();
    anon.send(anon.request("GET", "/me").basic_auth("u", Some(&a.live)))
        .error(401, "invalid_key");
    // The scheme's name is case-insensitive (RFC 9110 §11.1).
    for scheme in ["bearer", "BEARER"] {
        let me = anon.send(
            anon.request("GET", "/me")
                .header("authorization", format!("{scheme} {}", a.live)),
        );
        assert_eq!(me.status, 200, "{scheme}: {}", me.text);
    }

    // Revoke a second key with the first; the second then gets key_revoked.
    let k2 = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "live",
        "--name",
        "ci",
    ]);
    let id = k2["id"].as_str().unwrap();
    let c2 = s.client(k2["key"].as_str().unwrap());
    assert_eq!(c2.get("/me").status, 200);
    let revoked = c.post(&format!("/keys/{id}/revoke"), json!({})).ok();
    assert!(revoked["revoked_at"].is_string());
    let e = c2.get("/me").error(401, "key_revoked");
    assert_eq!(e["revoked_at"], revoked["revoked_at"]);
    // Revoking again keeps the first time.
    let again = c.post(&format!("/keys/{id}/revoke"), json!({})).ok();
    assert_eq!(again["revoked_at"], revoked["revoked_at"]);
}

#[test]
fn keys_are_random_and_only_their_hash_is_stored() {
    let s = Server::start();
    let a = s.account("1");
    let b = s.account("1");
    assert!(a.live.starts_with("fn_live_") && a.test.starts_with("fn_test_"));
    assert_eq!(
        a.live.len(),
        "fn_live_".len() + 32,
        "32 base-62 characters ≈ 190 bits"
    );
    assert_ne!(a.live, b.live);
    let listed = s.client(&a.live).get("/keys").ok();
    let text = listed.to_string();
    assert!(
        !text.contains(&a.live),
        "a listed key never shows its secret"
    );
    s.terminate_and_check_db_lacks(&a.live);
}

trait DbCheck {
    fn terminate_and_check_db_lacks(self, secret: &str);
}

impl DbCheck for Server {
    fn terminate_and_check_db_lacks(mut self, secret: &str) {
        self.terminate();
        let db = match self.env.iter().find(|(k, _)| k == "FNHOST_POSTGRES_URL") {
            Some((_, url)) => postgres::query(
                url,
                "SELECT string_agg(encode(k, 'escape') || encode(v, 'escape'), ' ') FROM fnhost_kv",
            )
            .into_bytes(),
            None => std::fs::read(self.data.path().join("fnhost.redb")).unwrap(),
        };
        let needle = secret.as_bytes();
        assert!(
            !db.windows(needle.len()).any(|w| w == needle),
            "the key text is stored in the database"
        );
    }
}

#[test]
fn scopes_are_enforced() {
    let s = Server::start();
    let a = s.account("1");
    let k = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--name",
        "reader",
        "--scopes",
        "account:read",
    ]);
    let c = s.client(k["key"].as_str().unwrap());
    assert_eq!(c.get("/balance").status, 200);
    let e = c.get("/keys").error(403, "missing_scope");
    assert_eq!(e["required_scope"], "keys:read");
    assert_eq!(e["type"], "permission");
    let e = c
        .post("/keys/key_x/revoke", json!({}))
        .error(403, "missing_scope");
    assert_eq!(e["required_scope"], "keys:write");
}

#[test]
fn another_accounts_objects_are_not_found() {
    let s = Server::start();
    let a = s.account("1");
    let b = s.account("1");
    let b_keys = s.client(&b.live).get("/keys").ok();
    let b_key_id = b_keys["data"][0]["id"].as_str().unwrap().to_string();
    let ca = s.client(&a.live);
    let foreign = ca.patch(&format!("/keys/{b_key_id}"), json!({"name": "x"}));
    let unknown = ca.patch("/keys/key_doesnotexist", json!({"name": "x"}));
    let e1 = foreign.error(404, "not_found");
    let e2 = unknown.error(404, "not_found");
    assert_eq!(
        e1["message"], e2["message"],
        "the two cases are indistinguishable"
    );
    // The path's object is looked up before the body is read.
    for bad in [json!({}), json!({"name": ""}), json!([])] {
        ca.patch(&format!("/keys/{b_key_id}"), bad.clone())
            .error(404, "not_found");
        ca.patch("/keys/key_doesnotexist", bad)
            .error(404, "not_found");
    }
    // The test key of the same account does not see live keys either.
    let live_key_of_a = ca.get("/keys").ok()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    s.client(&a.test)
        .post(&format!("/keys/{live_key_of_a}/revoke"), json!({}))
        .error(404, "not_found");
}

#[test]
fn test_and_live_balances_are_separate() {
    let s = Server::start();
    let a = s.account("10");
    s.admin(&[
        "top-up",
        "--account",
        &a.id,
        "--mode",
        "test",
        "--amount-usd",
        "5.25",
    ]);
    let live = s.client(&a.live).get("/balance").ok();
    let test = s.client(&a.test).get("/balance").ok();
    assert_eq!(live["balance_usd"], json!(10));
    assert_eq!(live["livemode"], json!(true));
    assert_eq!(test["balance_usd"], json!(15.25));
    assert_eq!(test["livemode"], json!(false));
    for b in [&live, &test] {
        assert_eq!(b["open_reserves_usd"], json!(0));
        assert_eq!(b["available_usd"], b["balance_usd"]);
        assert!(b["low_balance_threshold_usd"].is_number());
        assert_eq!(b["auto_recharge"]["enabled"], json!(false));
        assert!(b["auto_recharge"]["amount_usd"].is_number());
    }
}

#[test]
fn unknown_paths_and_wrong_methods_are_not_found() {
    let s = Server::start();
    let a = s.account("1");
    let c = s.client(&a.live);
    c.get("/nope").error(404, "not_found");
    c.get("/v2/balance").error(404, "not_found");
    c.method("DELETE", "/balance").error(404, "not_found");
    c.method("PUT", "/keys").error(404, "not_found");
    c.method("GET", "/keys/key_x/revoke")
        .error(404, "not_found");
    let e = c.method("POST", "/me").error(404, "not_found");
    assert_eq!(e["type"], "not_found");
    // A path segment that is not UTF-8 names no resource there is: 404,
    // in the envelope.
    c.get("/sessions/%ff%fe").error(404, "not_found");
}

#[test]
fn planned_surfaces_answer_501_on_every_method() {
    let s = Server::start();
    let a = s.account("1");
    let c = s.client(&a.live);
    let cases = [
        ("/extractions", "extractions"),
        ("/extractions/ext_1", "extractions"),
        ("/extractions/ext_1/result", "extractions"),
        ("/extractions/ext_1/events", "extractions"),
        ("/extractions/ext_1/refresh", "extraction refresh"),
        ("/discover", "discover"),
        ("/monitors", "monitors"),
        ("/monitors/mon_1", "monitors"),
        ("/monitors/mon_1/runs", "monitors"),
        ("/receipts/rcpt_1", "receipts lookup"),
        ("/sessions/ses_1/refresh", "session refresh"),
        ("/webhooks/whep_1/test", "webhook test"),
        (
            "/webhooks/whep_1/attempts/msg_1/redeliver",
            "webhook redeliver",
        ),
        ("/mcp", "tool-protocol server"),
        ("/mcp/", "tool-protocol server"),
        ("/mcp/messages", "tool-protocol server"),
    ];
    for (path, surface) in cases {
        for method in ["GET", "POST", "PATCH", "DELETE", "PUT"] {
            let e = c.method(method, path).error(501, "not_implemented");
            assert_eq!(e["surface"], surface, "{method} {path}");
            assert_eq!(e["type"], "api_error");
        }
    }
    let e = c
        .method("DELETE", "/sessions/ses_1")
        .error(501, "not_implemented");
    assert_eq!(e["surface"], "session redaction");
}

#[test]
fn bodies_that_do_not_parse_or_exceed_1mb_are_empty() {
    let s = Server::start();
    let a = s.account("1");
    let c = s.client(&a.live);
    let id = c.get("/keys").ok()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/keys/{id}");
    let garbage = c.send(
        c.request("PATCH", &path)
            .header("content-type", "application/json")
            .body("{not json"),
    );
    assert_eq!(garbage.error(400, "invalid_param")["param"], "name");
    let mut big = String::from("{\"name\": \"");
    big.push_str(&"x".repeat(1024 * 1024 + 10));
    big.push_str("\"}");
    let over = c.send(
        c.request("PATCH", &path)
            .header("content-type", "application/json")
            .body(big),
    );
    assert_eq!(over.error(400, "invalid_param")["param"], "name");
    let fine = c.patch(&path, json!({"name": "renamed"})).ok();
    assert_eq!(fine["name"], "renamed");
    assert_eq!(
        c.patch(&path, json!({"name": 5}))
            .error(400, "invalid_param")["param"],
        "name"
    );
    assert_eq!(
        c.patch(&path, json!({"name": "a", "extra": 1}))
            .error(400, "invalid_param")["param"],
        "extra"
    );
}

#[test]
fn the_platform_plane() {
    let s = Server::start();
    let a = s.account("42.5");
    let c = s.client(&a.live);
    let me = c.get("/me").ok();
    assert_eq!(me["id"], a.id.as_str());
    assert_eq!(me["object"], "account");
    assert_eq!(me["fn_version"], "2026-08-26");
    let usage = c.get("/usage").ok();
    assert_eq!(usage["object"], "usage");
    assert_eq!(usage["total_usd"], json!(0));
    assert!(usage["by_day"].is_array());
    c.get("/usage?from=2026-13-01").error(400, "invalid_param");
    assert_eq!(
        c.get("/usage?from=2026-02-01&to=2026-01-01")
            .error(400, "invalid_param")["param"],
        "from"
    );
    // At most 366 days, both ends counted.
    assert_eq!(
        c.get("/usage?from=2024-01-01&to=2024-12-31").ok()["from"],
        "2024-01-01"
    );
    assert_eq!(
        c.get("/usage?from=2024-01-01&to=2025-01-01")
            .error(400, "invalid_param")["param"],
        "from"
    );

    // Lists paginate one way: limit and starting_after, has_more.
    for i in 0..4 {
        s.admin(&["create-key", "--account", &a.id, "--name", &format!("k{i}")]);
    }
    let p1 = c.get("/keys?limit=2").ok();
    assert_eq!(p1["object"], "list");
    assert_eq!(p1["data"].as_array().unwrap().len(), 2);
    assert_eq!(p1["has_more"], json!(true));
    let last = p1["data"][1]["id"].as_str().unwrap();
    let p2 = c.get(&format!("/keys?limit=2&starting_after={last}")).ok();
    assert_eq!(p2["data"].as_array().unwrap().len(), 2);
    let p3 = c
        .get(&format!(
            "/keys?limit=2&starting_after={}",
            p2["data"][1]["id"].as_str().unwrap()
        ))
        .ok();
    assert_eq!(p3["data"].as_array().unwrap().len(), 1);
    assert_eq!(p3["has_more"], json!(false));
    assert_eq!(
        c.get("/keys?limit=0").error(400, "invalid_param")["param"],
        "limit"
    );
    assert_eq!(
        c.get("/keys?limit=101").error(400, "invalid_param")["param"],
        "limit"
    );
}

#[test]
fn rate_limit_per_key() {
    let s = Server::builder()
        .env("FNHOST_RATE_LIMIT_PER_S", "1")
        .env("FNHOST_RATE_LIMIT_BURST", "3")
        .start();
    let a = s.account("1");
    let c = s.client(&a.live);
    let statuses: Vec<u16> = (0..5).map(|_| c.get("/me").status).collect();
    assert_eq!(&statuses[..3], &[200, 200, 200]);
    let r = c.get("/me");
    let e = r.error(429, "rate_limited");
    assert!(e["retry_after_s"].as_u64().unwrap() >= 1);
    assert_eq!(
        r.header("retry-after"),
        Some(e["retry_after_s"].to_string())
    );
    // Another key has its own bucket.
    assert_eq!(s.client(&a.test).get("/me").status, 200);
}

#[test]
fn admin_works_with_and_without_a_running_server() {
    let data = tempfile::tempdir().unwrap();
    // On a shared database the same: its URL instead of the data directory.
    let storage: Vec<(String, String)> = if postgres::selected() {
        vec![
            ("FNHOST_STORAGE".into(), "postgres".into()),
            ("FNHOST_POSTGRES_URL".into(), postgres::new_database()),
        ]
    } else {
        Vec::new()
    };
    let created = admin_with(
        data.path(),
        &storage,
        &["create-account", "--name", "offline", "--balance-usd", "3"],
    );
    let id = created["account_id"].as_str().unwrap().to_string();
    let mut builder = Server::builder().data(data);
    for (k, v) in &storage {
        builder = builder.env(k, v);
    }
    let s = builder.start();
    // The server holds the database now; admin goes through its socket.
    s.admin(&[
        "top-up",
        "--account",
        &id,
        "--mode",
        "live",
        "--amount-usd",
        "2",
    ]);
    s.admin(&["set-threshold", "--account", &id, "--threshold-usd", "1.5"]);
    s.admin(&["set-caps", "--account", &id, "--monthly-cap-usd", "50"]);
    let b = s
        .client(created["live_key"].as_str().unwrap())
        .get("/balance")
        .ok();
    assert_eq!(b["balance_usd"], json!(5));
    assert_eq!(b["low_balance_threshold_usd"], json!(1.5));
    s.audit();
}

#[test]
fn graceful_shutdown_on_sigterm() {
    let mut s = Server::start();
    let status = s.terminate();
    assert!(status.success(), "fnhost exited with {status}");
}

#[test]
fn demo_account_is_created_once_on_first_start() {
    let mut s = Server::builder().env("FNHOST_DEMO_ACCOUNT", "true").start();
    let printed = s.stdout.lock().unwrap().join("\n");
    let live = printed
        .split_whitespace()
        .find(|w| w.starts_with("fn_live_"))
        .expect("live key printed")
        .to_string();
    assert!(printed.contains("fn_test_"));
    assert_eq!(
        s.client(&live).get("/balance").ok()["balance_usd"],
        json!(100)
    );
    s.restart();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let again = s.stdout.lock().unwrap().join("\n");
    assert_eq!(
        again.matches("fn_live_").count(),
        1,
        "keys are printed once, on first start only"
    );
}
