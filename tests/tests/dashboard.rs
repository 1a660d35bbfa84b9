//! The dashboard: sign-in, cookie flags, CSRF, read-only keys and escaping
//! over plain HTTP, and the whole flow in headless Chromium
//! (tests/browser/dashboard.mjs, installed by `cargo xtask test`).

use std::process::Command;

use fnhost_tests::*;

/// A client that neither follows redirects nor keeps cookies: the tests
/// look at both.
fn http() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .unwrap()
}

struct Page {
    status: u16,
    location: Option<String>,
    set_cookies: Vec<String>,
    text: String,
}

fn send(rb: reqwest::blocking::RequestBuilder) -> Page {
    let r = rb.send().expect("request failed");
    let status = r.status().as_u16();
    let location = r
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string());
    let set_cookies = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    let text = r.text().unwrap_or_default();
    Page {
        status,
        location,
        set_cookies,
        text,
    }
}

impl Page {
    /// The value a Set-Cookie of this response gives `name`.
    fn cookie(&self, name: &str) -> Option<String> {
        self.set_cookies.iter().find_map(|c| {
            c.split(';')
                .next()
                .unwrap()
                .trim()
                .strip_prefix(&format!("{name}="))
                .map(str::to_string)
        })
    }

    fn set_cookie_line(&self, name: &str) -> String {
        self.set_cookies
            .iter()
            .find(|c| c.starts_with(&format!("{name}=")))
            .cloned()
            .unwrap_or_else(|| panic!("no Set-Cookie {name}: {:?}", self.set_cookies))
    }

    /// The CSRF token in the page's forms.
    fn csrf(&self) -> String {
        let at = self
            .text
            .find("name=\"csrf\" value=\"")
            .expect("a form with a csrf token")
            + "name=\"csrf\" value=\"".len();
        self.text[at..].split('"').next().unwrap().to_string()
    }
}

/// A browser-like session on the dashboard: the cookie header it sends.
struct Dash {
    origin: String,
    http: reqwest::blocking::Client,
    cookie: String,
}

impl Dash {
    fn get(&self, path: &str) -> Page {
        send(
            self.http
                .get(format!("{}{path}", self.origin))
                .header("cookie", &self.cookie),
        )
    }

    fn post(&self, path: &str, form: &[(&str, &str)]) -> Page {
        send(
            self.http
                .post(format!("{}{path}", self.origin))
                .header("cookie", &self.cookie)
                .form(form),
        )
    }

    /// The CSRF token of this dashboard session.
    fn csrf(&self) -> String {
        let p = self.get("/dashboard/webhooks");
        assert_eq!(p.status, 200, "{}", p.text);
        p.csrf()
    }
}

/// The sign-in form: its token, and the response that set its cookie.
fn login_form(origin: &str, http: &reqwest::blocking::Client) -> (String, Page) {
    let p = send(http.get(format!("{origin}/dashboard/login")));
    assert_eq!(p.status, 200);
    let token = p
        .cookie("fnhost_dash_login")
        .expect("the sign-in form sets its cookie");
    assert_eq!(p.csrf(), token, "the form carries the cookie's token");
    (token, p)
}

/// Sign in with `key` and return the session and the sign-in response.
fn sign_in(s: &Server, key: &str) -> (Dash, Page) {
    let origin = s.origin();
    let http = http();
    let (token, _) = login_form(&origin, &http);
    let p = send(
        http.post(format!("{origin}/dashboard/login"))
            .header("cookie", format!("fnhost_dash_login={token}"))
            .form(&[("key", key), ("csrf", token.as_str())]),
    );
    assert_eq!(p.status, 303, "sign-in failed: {}", p.text);
    assert_eq!(p.location.as_deref(), Some("/dashboard/balance"));
    let session = p.cookie("fnhost_dash").expect("a session cookie");
    (
        Dash {
            origin,
            http,
            cookie: format!("fnhost_dash={session}"),
        },
        p,
    )
}

#[test]
fn sign_in_sets_a_strict_http_only_cookie_and_bad_keys_are_refused() {
    let s = Server::start();
    let a = s.account("10");
    let origin = s.origin();
    let http = http();

    // Without a session, every page asks to sign in.
    let p = send(http.get(format!("{origin}/dashboard/balance")));
    assert_eq!(p.status, 303);
    assert!(p.location.unwrap().starts_with("/dashboard/login"));

    // A bad key: 401 and a clear message on the sign-in page.
    let (token, form) = login_form(&origin, &http);
    let login_cookie = form.set_cookie_line("fnhost_dash_login");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/dashboard"] {
        assert!(login_cookie.contains(flag), "{login_cookie} lacks {flag}");
    }
    let bad = format!("fn_live_{}", "A".repeat(32));
    let p = send(
        http.post(format!("{origin}/dashboard/login"))
            .header("cookie", format!("fnhost_dash_login={token}"))
            .form(&[("key", bad.as_str()), ("csrf", token.as_str())]),
    );
    assert_eq!(p.status, 401);
    assert!(p.text.contains("That API key is not valid"), "{}", p.text);
    assert!(p.cookie("fnhost_dash").is_none());
    assert!(!p.text.contains(&bad), "the key is not echoed back");
    let p = send(
        http.post(format!("{origin}/dashboard/login"))
            .header("cookie", format!("fnhost_dash_login={token}"))
            .form(&[("key", "not a key"), ("csrf", token.as_str())]),
    );
    assert_eq!(p.status, 401);

    // The sign-in form itself is CSRF-checked: no bound cookie, no sign-in.
    let p = send(
        http.post(format!("{origin}/dashboard/login"))
            .form(&[("key", a.test.as_str()), ("csrf", token.as_str())]),
    );
    assert_eq!(p.status, 403, "{}", p.text);
    assert!(p.cookie("fnhost_dash").is_none());

    // A good key: the session cookie's flags.
    let (d, p) = sign_in(&s, &a.test);
    let line = p.set_cookie_line("fnhost_dash");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/dashboard", "Max-Age="] {
        assert!(line.contains(flag), "{line} lacks {flag}");
    }
    assert!(!line.contains(&a.test), "the cookie does not hold the key");
    // Test mode is marked; live is not.
    let page = d.get("/dashboard/balance");
    assert_eq!(page.status, 200);
    assert!(page.text.contains("TEST MODE"));
    assert!(page.text.contains("id=\"spend-chart\""));
    let (live, _) = sign_in(&s, &a.live);
    let page = live.get("/dashboard/balance");
    assert!(!page.text.contains("TEST MODE"));
    assert!(page.text.contains("data-mode=\"live\""));

    // Sign-out ends the session server-side.
    let csrf = d.csrf();
    let p = d.post("/dashboard/logout", &[("csrf", &csrf)]);
    assert_eq!(p.status, 303);
    assert_eq!(p.location.as_deref(), Some("/dashboard/login?m=signed_out"));
    assert!(p.set_cookie_line("fnhost_dash").contains("Max-Age=0"));
    assert_eq!(
        d.get("/dashboard/balance").status,
        303,
        "the old cookie no longer works"
    );
}

#[test]
fn posts_without_the_session_csrf_token_are_refused() {
    let s = Server::start();
    let a = s.account("10");
    let api = s.client(&a.test);
    let secret = api.get("/webhook-secret").ok()["secret"].clone();
    let (d, _) = sign_in(&s, &a.test);
    let csrf = d.csrf();

    for form in [vec![], vec![("csrf", "")], vec![("csrf", "forged")]] {
        let p = d.post("/dashboard/webhook-secret/rotate", &form);
        assert_eq!(p.status, 403, "{}", p.text);
        assert!(p.text.contains("CSRF"), "{}", p.text);
    }
    // A form the browser marks as sent from another site.
    let p = send(
        d.http
            .post(format!("{}/dashboard/webhook-secret/rotate", d.origin))
            .header("cookie", &d.cookie)
            .header("sec-fetch-site", "cross-site")
            .form(&[("csrf", csrf.as_str())]),
    );
    assert_eq!(p.status, 403);
    assert_eq!(
        api.get("/webhook-secret").ok()["secret"],
        secret,
        "nothing was rotated"
    );

    // Another session's token is not this session's.
    let (other, _) = sign_in(&s, &a.test);
    let p = d.post(
        "/dashboard/webhook-secret/rotate",
        &[("csrf", &other.csrf())],
    );
    assert_eq!(p.status, 403);

    let keys = api.get("/keys").ok();
    let key_id = keys["data"][0]["id"].as_str().unwrap().to_string();
    let p = d.post(
        &format!("/dashboard/keys/{key_id}/revoke"),
        &[("csrf", "forged")],
    );
    assert_eq!(p.status, 403);
    assert!(api.get("/keys").ok()["data"][0]["revoked_at"].is_null());

    // With the token, it works.
    let p = d.post("/dashboard/webhook-secret/rotate", &[("csrf", &csrf)]);
    assert_eq!(p.status, 303, "{}", p.text);
    assert_ne!(api.get("/webhook-secret").ok()["secret"], secret);

    // Reveal is a POST too, and the secret is never in a GET page.
    let now = api.get("/webhook-secret").ok()["secret"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!d.get("/dashboard/webhook-secret").text.contains(&now));
    assert_eq!(
        d.post("/dashboard/webhook-secret/reveal", &[("csrf", "x")])
            .status,
        403
    );
    let p = d.post("/dashboard/webhook-secret/reveal", &[("csrf", &csrf)]);
    assert_eq!(p.status, 200);
    assert!(p.text.contains(&now));
}

#[test]
fn read_only_keys_see_no_write_buttons_and_cannot_write() {
    let s = Server::start();
    let a = s.account("10");
    let k = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "test",
        "--name",
        "viewer",
        "--scopes",
        "account:read,sessions:read,keys:read,webhooks:read",
    ]);
    let viewer = k["key"].as_str().unwrap();
    let api = s.client(&a.test);
    let secret = api.get("/webhook-secret").ok()["secret"].clone();
    let (d, _) = sign_in(&s, viewer);

    let keys = d.get("/dashboard/keys");
    assert_eq!(keys.status, 200);
    assert!(
        keys.text.contains("id=\"read-only\""),
        "the header says read-only"
    );
    assert!(!keys.text.contains("/revoke\""), "no revoke button");
    assert!(!keys.text.contains("/rename\""), "no rename button");
    let page = d.get("/dashboard/webhook-secret");
    assert!(!page.text.contains("id=\"rotate\""), "no rotate button");
    assert!(
        page.text.contains("id=\"reveal\""),
        "reading the secret is allowed"
    );

    let csrf = keys.csrf();
    let all = api.get("/keys").ok();
    let target = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] != "viewer")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let p = d.post(
        &format!("/dashboard/keys/{target}/revoke"),
        &[("csrf", &csrf)],
    );
    assert_eq!(p.status, 403, "{}", p.text);
    assert!(
        p.text.contains("lacks the <code>keys:write</code> scope"),
        "{}",
        p.text
    );
    let p = d.post(
        &format!("/dashboard/keys/{target}/rename"),
        &[("csrf", &csrf), ("name", "x")],
    );
    assert_eq!(p.status, 403);
    let p = d.post("/dashboard/webhook-secret/rotate", &[("csrf", &csrf)]);
    assert_eq!(p.status, 403);
    assert!(
        p.text
            .contains("lacks the <code>webhooks:write</code> scope"),
        "{}",
        p.text
    );
    assert_eq!(api.get("/webhook-secret").ok()["secret"], secret);
    let after = api.get("/keys").ok();
    assert!(after["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|k| k["revoked_at"].is_null()));

    // A key without account:read sees the balance page explain why it is empty.
    let k = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "test",
        "--name",
        "keys-only",
        "--scopes",
        "keys:read",
    ]);
    let (d, _) = sign_in(&s, k["key"].as_str().unwrap());
    let p = d.get("/dashboard/balance");
    assert_eq!(p.status, 200);
    assert!(p.text.contains("lacks the <code>account:read</code> scope"));
}

#[test]
fn record_and_key_values_are_escaped_and_revocation_signs_out() {
    let s = Server::start();
    let a = s.account("10");
    let api = s.client(&a.test);
    let keys = api.get("/keys").ok();
    let key_id = keys["data"][0]["id"].as_str().unwrap().to_string();
    let evil = "<img src=x onerror=alert(1)>\"'";
    api.patch(&format!("/keys/{key_id}"), json!({ "name": evil }))
        .ok();
    let created = api
        .post(
            "/sessions",
            json!({ "query": "tents <script>alert(2)</script> from outdoor-gear.example" }),
        )
        .ok();
    let id = created["id"].as_str().unwrap().to_string();
    result(&api, &id);

    let (d, _) = sign_in(&s, &a.test);
    for path in [
        "/dashboard/keys".to_string(),
        "/dashboard/sessions".into(),
        format!("/dashboard/sessions/{id}"),
        format!("/dashboard/sessions/{id}/events"),
    ] {
        let p = d.get(&path);
        assert_eq!(p.status, 200, "{path}: {}", p.text);
        assert!(
            !p.text.contains("<img src=x"),
            "{path} renders markup from a value"
        );
        assert!(
            !p.text.contains("<script>alert"),
            "{path} renders markup from a value"
        );
    }
    let p = d.get("/dashboard/keys");
    assert!(p
        .text
        .contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;"));
    let p = d.get("/dashboard/sessions");
    assert!(p
        .text
        .contains("tents &lt;script&gt;alert(2)&lt;/script&gt;"));

    // The live events feed of the events page.
    let p = d.get(&format!("/dashboard/sessions/{id}/events.json?after=1"));
    assert_eq!(p.status, 200, "{}", p.text);
    let feed: serde_json::Value = serde_json::from_str(&p.text).unwrap();
    assert_eq!(feed["running"], false, "{feed}");
    let events = feed["events"].as_array().unwrap();
    assert!(!events.is_empty() && events[0]["seq"] == 2, "{feed}");
    assert_eq!(feed["next_after"], events.last().unwrap()["seq"]);
    assert_eq!(d.get("/dashboard/webhooks/whep_unknown").status, 404);

    // Another account's and unknown sessions are not found.
    let b = s.account("1");
    let theirs = s
        .client(&b.test)
        .post(
            "/sessions",
            json!({ "query": "tents from outdoor-gear.example" }),
        )
        .ok();
    assert_eq!(
        d.get(&format!(
            "/dashboard/sessions/{}",
            theirs["id"].as_str().unwrap()
        ))
        .status,
        404
    );
    assert_eq!(d.get("/dashboard/sessions/ses_unknown").status, 404);

    // Revoking the signed-in key through the API ends the dashboard session.
    let other = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "test",
        "--name",
        "admin",
    ]);
    s.client(other["key"].as_str().unwrap())
        .post(&format!("/keys/{key_id}/revoke"), json!({}))
        .ok();
    let p = d.get("/dashboard/balance");
    assert_eq!(p.status, 303);
    assert_eq!(p.location.as_deref(), Some("/dashboard/login?m=revoked"));
}

#[test]
fn dashboard_in_headless_chromium() {
    let root = root();
    let browser_dir = root.join("tests/browser");
    assert!(
        std::path::Path::new("/usr/bin/chromium").exists() && browser_dir.join("node_modules/playwright-core").exists(),
        "the browser test needs /usr/bin/chromium and tests/browser/node_modules: `cargo xtask test` installs both"
    );
    let s = Server::start();
    let a = s.account("10");
    let api = s.client(&a.test);
    let created = api
        .post(
            "/sessions",
            json!({ "query": "tents under $200 from outdoor-gear.example" }),
        )
        .ok();
    let id = created["id"].as_str().unwrap().to_string();
    let done = result(&api, &id);
    assert_eq!(done["status"], "answered", "{done}");
    // A second key for the browser to revoke.
    s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "test",
        "--name",
        "ci-spare",
    ]);

    let out = root.join("target/dashboard-screenshots");
    let _ = std::fs::remove_dir_all(&out);
    let run = Command::new("node")
        .arg(browser_dir.join("dashboard.mjs"))
        .arg(s.origin())
        .arg(&a.test)
        .arg(&out)
        .current_dir(&browser_dir)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        run.status.success(),
        "the browser checks failed ({}):\n{stdout}\n{stderr}",
        run.status
    );
    for name in [
        "02-balance",
        "03-sessions",
        "04-session-rows",
        "08-secret-rotated",
        "11-key-revoked",
    ] {
        let size = std::fs::metadata(out.join(format!("{name}.png")))
            .map(|m| m.len())
            .unwrap_or(0);
        assert!(size > 8000, "{name}.png is missing or blank ({size} bytes)");
    }
    // What the browser did, seen through the API.
    let keys = api.get("/keys").ok();
    let spare = keys["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "ci-spare")
        .unwrap()
        .clone();
    assert!(
        spare["revoked_at"].is_string(),
        "the browser revoked the spare key: {spare}"
    );
}

#[test]
fn a_monitors_price_history_in_headless_chromium() {
    let root = root();
    let browser_dir = root.join("tests/browser");
    assert!(
        std::path::Path::new("/usr/bin/chromium").exists() && browser_dir.join("node_modules/playwright-core").exists(),
        "the browser test needs /usr/bin/chromium and tests/browser/node_modules: `cargo xtask test` installs both"
    );
    let shop = PlainReceiver::start();
    let prices = ["30.00", "25.00", "27.50"];
    *shop.page.lock().unwrap() = listing(&[("Amber Lamp", prices[0]), ("Birch Lamp", "20.00")]);
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "monitors,extractions")
        .env("FNHOST_MONITORS__SECOND_MS", "20")
        .env("FNHOST_MONITORS__TICK_MS", "50")
        .start();
    let a = s.account("10");
    let c = s.client(&a.live);
    let m = c
        .post(
            "/monitors",
            json!({ "watch": { "urls": [shop.url("/lamps")], "entity": "lamp" }, "cadence_s": 60, "max_spend_usd_per_run": 0.05, "name": "Lamps" }),
        )
        .ok();
    let id = m["id"].as_str().unwrap().to_string();
    let ended = |n: usize| {
        wait_for(60, || {
            let runs = c.get(&format!("/monitors/{id}/runs?limit=100")).ok();
            let done = runs["data"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["outcome"] != "running")
                .count();
            (done >= n).then_some(())
        })
    };
    for (i, price) in prices.iter().enumerate().skip(1) {
        ended(i);
        *shop.page.lock().unwrap() = listing(&[("Amber Lamp", price), ("Birch Lamp", "20.00")]);
    }
    ended(3);
    c.patch(&format!("/monitors/{id}"), json!({ "paused": true }))
        .ok();
    let out = root.join("target/dashboard-screenshots");
    let run = Command::new("node")
        .arg(browser_dir.join("monitor.mjs"))
        .arg(s.origin())
        .arg(&a.live)
        .arg(&id)
        .arg(&out)
        .current_dir(&browser_dir)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the browser checks failed ({}):\n{stdout}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(out.join("22-monitor-price-history.png").is_file());

    // An extraction's pages: the list, its rows, events and receipts.
    let ext = c
        .post(
            "/extractions",
            json!({ "url": shop.url("/lamps"), "entity": "lamp", "max_spend_usd": 0.05 }),
        )
        .ok();
    let ext_id = ext["id"].as_str().unwrap().to_string();
    wait_for(30, || {
        let e = c.get(&format!("/extractions/{ext_id}")).ok();
        (e["status"] != "running").then_some(())
    });
    let (d, _) = sign_in(&s, &a.live);
    let list = d.get("/dashboard/extractions");
    assert_eq!(list.status, 200, "{}", list.text);
    assert!(
        list.text
            .contains(&format!("/dashboard/extractions/{ext_id}")),
        "{}",
        list.text
    );
    // What it read and how it ended, in the API's words.
    assert!(
        list.text
            .contains(&format!("lamp · {}", shop.url("/lamps"))),
        "{}",
        list.text
    );
    let rows = d.get(&format!("/dashboard/extractions/{ext_id}"));
    assert_eq!(rows.status, 200);
    assert!(rows.text.contains("Amber Lamp"), "{}", rows.text);
    let status = c.get(&format!("/extractions/{ext_id}")).ok()["status"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(rows.text.contains(&format!(">{status}<")), "{}", rows.text);
    assert!(!rows.text.contains("per turn"));
    for tab in ["events", "receipts"] {
        let p = d.get(&format!("/dashboard/extractions/{ext_id}/{tab}"));
        assert_eq!(p.status, 200, "{tab}: {}", p.text);
        assert!(p.text.contains(&ext_id), "{tab}");
    }
    // A session is not an extraction, nor the other way round.
    let session = c
        .post("/sessions", json!({ "query": "lamps FN_TEST_DECLINE" }))
        .json();
    let sid = session["id"].as_str().unwrap();
    assert_eq!(d.get(&format!("/dashboard/extractions/{sid}")).status, 404);
    assert_eq!(d.get(&format!("/dashboard/sessions/{ext_id}")).status, 404);
}
