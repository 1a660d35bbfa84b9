//! The web as it is (docs/FETCHING.md): every page ends in one typed
//! outcome, only `ok` pages with records are billed, fetching is polite,
//! refreshes are conditional, and listings say whether they were read whole.

use fnhost_tests::*;
use serde_json::{json, Value};

fn server() -> Server {
    Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "extractions")
        .env("FNHOST_FETCH__BACKOFF_MS", "20")
        .start()
}

/// Create an extraction of `url` and wait for its end.
fn extract(c: &Client, url: &str, entity: &str) -> Value {
    let r = c.post(
        "/extractions",
        json!({ "url": url, "entity": entity, "max_spend_usd": 0.05 }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let done = c.get(&format!("/extractions/{id}/result?wait=60"));
    assert_eq!(done.status, 200, "{}", done.text);
    c.get(&format!("/extractions/{id}")).ok()
}

fn extraction_events(c: &Client, id: &str) -> Vec<Value> {
    c.get(&format!("/extractions/{id}/events?limit=100")).ok()["data"]
        .as_array()
        .unwrap()
        .clone()
}

/// An ended extraction that cost nothing, its reservation released.
fn assert_unbilled(e: &Value) {
    assert_eq!(e["settled_usd"], json!(0), "{e}");
    assert_eq!(micros(&e["released_usd"]), 50_000, "{e}");
    assert_eq!(e["receipt_id"], Value::Null, "{e}");
}

const CHALLENGE: &str = "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div id=\"challenge-running\"></div><script>window._cf_chl_opt={cvId:'3'};</script></body></html>";
const CAPTCHA: &str = "<html><head><title>Security check</title></head><body><h1>Please verify you are human</h1><div class=\"g-recaptcha\" data-sitekey=\"k\"></div></body></html>";
const SIGN_IN: &str = "<html><head><title>Sign in</title></head><body><h1>Sign in</h1><form method=\"post\"><input name=\"email\"><input type=\"password\" name=\"password\"><button>Sign in</button></form></body></html>";
const SOFT_404: &str = "<html><head><title>Page not found | Lamp Shop</title></head><body><h1>Sorry, we couldn't find that page</h1><a href=\"/\">Home</a></body></html>";
const SHELL: &str = "<!DOCTYPE html><html><head><script src=\"/static/app.js\"></script></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id=\"root\"></div></body></html>";
const HOME: &str = "<html><head><title>Lamp Shop</title></head><body><h1>Welcome to the Lamp Shop</h1><p>We have made lamps by hand since 1952, in a small workshop by the river, and we still answer every letter ourselves.</p><a href=\"/lamps/\">Lamps</a></body></html>";

#[test]
fn every_outcome_from_its_fixture_costs_nothing() {
    let site = Scripted::start();
    site.page("/robots.txt", "User-agent: *\nDisallow: /private/\n");
    site.answer(
        "/challenge/",
        403,
        &[("cf-mitigated", "challenge"), ("server", "cloudflare")],
        CHALLENGE,
    );
    site.answer(
        "/datadome/",
        403,
        &[("x-datadome", "protected")],
        "<script src=\"https://ct.captcha-delivery.com/c.js\"></script>",
    );
    site.page("/captcha/", CAPTCHA);
    site.answer(
        "/members/lamps/",
        302,
        &[("location", "/account/login?next=/members/lamps/")],
        "",
    );
    site.page("/account/login?next=/members/lamps/", SIGN_IN);
    site.answer("/api-only/", 401, &[], "unauthorized");
    site.page("/p/gone.html", SOFT_404);
    site.answer("/p/old.html", 301, &[("location", "/")], "");
    site.page("/", HOME);
    site.answer("/p/deleted.html", 410, &[], "gone");
    site.answer("/busy/", 429, &[("retry-after", "1")], "slow down");
    site.page(
        "/private/lamps/",
        &listing(&[("Amber", "10.00"), ("Birch", "12.00")]),
    );
    site.page("/app/", SHELL);
    site.page("/about/", HOME);
    site.answer("/broken/", 500, &[], "oops");
    site.page(
        "/lamps/",
        &listing(&[("Amber", "10.00"), ("Birch", "12.00")]),
    );

    let s = server();
    let a = s.account("10");
    let c = s.client(&a.live);
    let cases = [
        ("/challenge/", "blocked"),
        ("/datadome/", "blocked"),
        ("/captcha/", "blocked"),
        ("/members/lamps/", "login_required"),
        ("/api-only/", "login_required"),
        ("/p/gone.html", "not_found"),
        ("/p/old.html", "not_found"),
        ("/p/deleted.html", "not_found"),
        ("/busy/", "rate_limited"),
        ("/app/", "needs_rendering"),
        ("/about/", "not_a_catalog"),
        ("/broken/", "fetch_failed"),
    ];
    for (path, outcome) in cases {
        let e = extract(&c, &site.url(path), "lamp");
        assert_eq!(e["status"], "error", "{path}: {e}");
        assert_eq!(e["error"]["code"], outcome, "{path}: {e}");
        assert_eq!(e["outcome"], outcome, "{path}: {e}");
        assert_eq!(e["records"], 0, "{path}: {e}");
        assert_unbilled(&e);
        let ev = extraction_events(&c, e["id"].as_str().unwrap());
        let page = ev
            .iter()
            .find(|x| x["data"]["outcome"] == outcome)
            .unwrap_or_else(|| panic!("{path}: no event names {outcome}: {ev:?}"));
        assert_eq!(page["data"]["cost_usd"], json!(0), "{page}");
        assert!(
            !ev.iter().any(|x| x["phase"] == "source"),
            "{path}: a receipted page: {ev:?}"
        );
    }
    // robots.txt: never fetched, abstained, named.
    let e = extract(&c, &site.url("/private/lamps/"), "lamp");
    assert_eq!(e["status"], "abstained", "{e}");
    assert_eq!(e["outcome"], "robots_disallowed", "{e}");
    assert!(e["reason"].as_str().unwrap().contains("robots_disallowed"));
    assert_unbilled(&e);
    assert_eq!(site.count("/private/lamps/"), 0);
    // A page on a port nobody listens on: fetch_failed.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/lamps/", l.local_addr().unwrap())
    };
    let e = extract(&c, &closed, "lamp");
    assert_eq!(e["error"]["code"], "fetch_failed", "{e}");
    assert_unbilled(&e);
    // Retry-After was honoured (one retry per allowed attempt, a second
    // apart); a 5xx was retried with back-off; robots.txt read once.
    let busy: Vec<_> = site
        .hits()
        .into_iter()
        .filter(|h| h.target == "/busy/")
        .collect();
    assert_eq!(busy.len(), 3, "the first try and two retries");
    assert!(busy[1].at - busy[0].at >= std::time::Duration::from_millis(950));
    assert_eq!(site.count("/broken/"), 3);
    assert_eq!(
        site.count("/robots.txt"),
        1,
        "robots.txt is cached per site"
    );
    // Nothing was spent on any of them; an ok page is billed as before.
    assert_eq!(c.get("/balance").ok()["balance_usd"], json!(10));
    let ok = extract(&c, &site.url("/lamps/"), "lamp");
    assert_eq!(ok["status"], "delivered", "{ok}");
    assert_eq!(ok["outcome"], "ok");
    assert_eq!(ok["records"], 2);
    assert!(ok["receipt_id"].as_str().is_some());
    assert!(micros(&ok["settled_usd"]) > 0);
    s.audit();
}

#[test]
fn a_5xx_then_success_is_read_and_a_challenge_is_not_retried() {
    let site = Scripted::start();
    let oops = Canned {
        status: 503,
        headers: vec![],
        body: "busy".into(),
    };
    let fine = Canned {
        status: 200,
        headers: vec![],
        body: listing(&[("Amber", "10.00"), ("Birch", "12.00")]),
    };
    site.script("/lamps/", vec![oops.clone(), oops, fine]);
    site.answer("/challenge/", 503, &[("server", "cloudflare")], CHALLENGE);
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.live);
    let e = extract(&c, &site.url("/lamps/"), "lamp");
    assert_eq!(e["status"], "delivered", "{e}");
    assert_eq!(e["records"], 2);
    assert_eq!(site.count("/lamps/"), 3);
    let e = extract(&c, &site.url("/challenge/"), "lamp");
    assert_eq!(e["error"]["code"], "blocked", "{e}");
    assert_eq!(site.count("/challenge/"), 1, "a challenge is not retried");
}

/// A listing page `n` of `pages`, three lamps each, stating the total and
/// linking every page.
fn catalog_page(n: usize, pages: usize, total: usize) -> String {
    let cards: String = (1..=3)
        .map(|i| {
            let k = (n - 1) * 3 + i;
            format!("<div class=\"card\"><a href=\"/p/lamp-{k}.html\"><img src=\"/i/{k}.jpg\" alt=\"\"></a><h3><a href=\"/p/lamp-{k}.html\">Lamp {k}</a></h3><span class=\"price\">${k}.00</span></div>")
        })
        .collect();
    let links: String = (1..=pages)
        .map(|p| format!("<a href=\"/lamps/?page={p}\">{p}</a> "))
        .collect();
    let next = if n < pages {
        format!(
            "<a rel=\"next\" class=\"next\" href=\"/lamps/?page={}\">Next</a>",
            n + 1
        )
    } else {
        String::new()
    };
    let first = (n - 1) * 3 + 1;
    format!("<!DOCTYPE html><html lang=\"en\"><head><title>Lamps</title></head><body><h1>Lamps</h1><p class=\"count\">Showing {first}–{} of {total}</p><div class=\"grid\">{cards}</div><nav class=\"pagination\">{links}{next}</nav></body></html>", first + 2)
}

#[test]
fn listings_state_how_much_of_the_catalog_was_read() {
    let whole = Scripted::start();
    let lossy = Scripted::start();
    for p in 1..=3 {
        whole.page(&format!("/lamps/?page={p}"), &catalog_page(p, 3, 9));
        if p != 2 {
            lossy.page(&format!("/lamps/?page={p}"), &catalog_page(p, 3, 9));
        }
    }
    lossy.answer("/lamps/?page=2", 500, &[], "oops");
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.live);
    let run = |site: &Scripted| {
        let created = c
            .post(
                "/sessions",
                json!({ "query": format!("lamps from {}/lamps/?page=1", site.origin), "max_spend_usd": 1 }),
            )
            .ok();
        let id = created["id"].as_str().unwrap().to_string();
        (result(&c, &id), events(&c, &id))
    };
    let (r, ev) = run(&whole);
    assert_eq!(r["status"], "answered", "{r}");
    assert_eq!(
        r["completeness"],
        json!({ "expected": 9, "found": 9, "pages_walked": 3, "stopped_because": "end_of_list" }),
        "{r}"
    );
    let claims: Vec<&Value> = ev
        .iter()
        .filter(|e| e["phase"] == "source")
        .map(|e| &e["data"]["claim"])
        .collect();
    assert_eq!(claims.last().unwrap(), &&json!("complete"), "{ev:?}");
    let sources = r["sources"].as_array().unwrap();
    assert!(sources.iter().all(|p| p["outcome"] == "ok"), "{r}");

    let (r, ev) = run(&lossy);
    assert_eq!(r["status"], "answered", "{r}");
    let done = &r["completeness"];
    assert_eq!(done["expected"], 9, "{r}");
    assert!(done["found"].as_u64().unwrap() < 9, "{r}");
    assert_eq!(done["stopped_because"], "fetch_failed", "{r}");
    assert!(
        ev.iter()
            .filter(|e| e["phase"] == "source")
            .all(|e| e["data"]["claim"] == "partial"),
        "a catalog with a lost page is never complete: {ev:?}"
    );
    let lost = r["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["url"].as_str().unwrap().ends_with("page=2"))
        .cloned()
        .unwrap();
    assert_eq!(lost["outcome"], "fetch_failed", "{r}");
    assert_eq!(lost["records"], 0);
    assert!(lost.get("receipt_id").is_none());
}

#[test]
fn test_keys_reach_every_outcome_by_sentinel() {
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.test);
    for outcome in [
        "blocked",
        "login_required",
        "not_found",
        "rate_limited",
        "needs_rendering",
        "not_a_catalog",
        "fetch_failed",
    ] {
        let word = format!("FN_TEST_{}", outcome.to_uppercase());
        let e = extract(
            &c,
            "https://outdoor-gear.example/tents/",
            &format!("tent {word}"),
        );
        assert_eq!(e["status"], "error", "{e}");
        assert_eq!(e["error"]["code"], outcome, "{e}");
        assert_unbilled(&e);
    }
    let e = extract(
        &c,
        "https://outdoor-gear.example/tents/",
        "tent FN_TEST_ROBOTS_DISALLOWED",
    );
    assert_eq!(e["status"], "abstained", "{e}");
    assert_eq!(e["outcome"], "robots_disallowed");
    // A session: every page blocked, nothing billed, the pages named.
    let created = c
        .post(
            "/sessions",
            json!({ "query": "tents from outdoor-gear.example FN_TEST_BLOCKED" }),
        )
        .ok();
    let r = result(&c, created["id"].as_str().unwrap());
    assert_eq!(r["spend_usd"], json!(0), "{r}");
    assert_eq!(r["receipts"], json!([]));
    let sources = r["sources"].as_array().unwrap();
    assert!(!sources.is_empty());
    assert!(sources.iter().all(|p| p["outcome"] == "blocked"), "{r}");
    assert_eq!(c.get("/balance").ok()["balance_usd"], json!(10));
}

#[test]
fn many_sessions_against_one_host_keep_its_limits() {
    let site = Scripted::start();
    site.hold_ms.store(60, std::sync::atomic::Ordering::SeqCst);
    site.page("/robots.txt", "User-agent: *\nAllow: /\n");
    for p in 1..=3 {
        site.page(&format!("/lamps/?page={p}"), &catalog_page(p, 3, 9));
    }
    // The catalog's address redirects to its first page: the hop waits its
    // turn at the host like any request.
    site.answer("/lamps/", 301, &[("location", "/lamps/?page=1")], "");
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.live);
    let ids: Vec<String> = (0..5)
        .map(|_| {
            c.post(
                "/sessions",
                json!({ "query": format!("lamps from {}/lamps/", site.origin), "max_spend_usd": 1 }),
            )
            .ok()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for id in &ids {
        assert_eq!(result(&c, id)["status"], "answered");
    }
    let hits = site.hits();
    assert_eq!(
        site.count("/robots.txt"),
        1,
        "robots.txt is read once per site"
    );
    assert_eq!(site.count("/lamps/"), 5, "{hits:?}");
    for p in 1..=3 {
        assert_eq!(site.count(&format!("/lamps/?page={p}")), 5, "{hits:?}");
    }
    assert!(
        site.most_in_flight() <= 2,
        "{} requests at once",
        site.most_in_flight()
    );
    let mut starts: Vec<_> = hits.iter().map(|h| h.at).collect();
    starts.sort();
    let closest = starts.windows(2).map(|w| w[1] - w[0]).min().unwrap();
    assert!(
        closest >= std::time::Duration::from_millis(200),
        "two requests {closest:?} apart"
    );
    let agent = hits[0]
        .headers
        .iter()
        .find(|(n, _)| n == "user-agent")
        .map(|(_, v)| v.clone())
        .unwrap();
    assert!(
        agent.starts_with("fnhost/") && agent.contains("+http"),
        "{agent}"
    );
}

#[test]
fn a_refresh_asks_conditionally_and_a_304_costs_nothing() {
    let site = Scripted::start();
    let lamps = listing(&[("Amber", "10.00"), ("Birch", "12.00")]);
    site.answer("/lamps/", 200, &[("ETag", "\"v1\"")], &lamps);
    site.answer(
        "/shades/",
        200,
        &[("Last-Modified", "Wed, 21 Oct 2026 07:28:00 GMT")],
        &lamps,
    );
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "extractions,refresh")
        .start();
    let a = s.account("10");
    let c = s.client(&a.live);
    for (path, header) in [
        ("/lamps/", "if-none-match"),
        ("/shades/", "if-modified-since"),
    ] {
        let first = extract(&c, &site.url(path), "lamp");
        assert_eq!(first["status"], "delivered", "{first}");
        let id = first["id"].as_str().unwrap();
        let r = c.post(&format!("/extractions/{id}/refresh"), json!({}));
        assert_eq!(r.status, 201, "{}", r.text);
        let again_id = r.json()["id"].as_str().unwrap().to_string();
        let done = c.get(&format!("/extractions/{again_id}/result?wait=60"));
        assert_eq!(done.status, 200, "{}", done.text);
        let again = c.get(&format!("/extractions/{again_id}")).ok();
        assert_eq!(again["status"], "delivered", "{again}");
        assert_eq!(again["outcome"], "ok");
        assert_eq!(
            again["settled_usd"],
            json!(0),
            "a 304 costs nothing: {again}"
        );
        assert_eq!(again["records"], 2, "{again}");
        assert_eq!(
            again["receipt_id"], first["receipt_id"],
            "the rows' receipt"
        );
        assert_eq!(again["diff"]["added"], 0, "{again}");
        assert_eq!(again["diff"]["removed"], 0, "{again}");
        let rows = done.json()["rows"].as_array().unwrap().len();
        assert_eq!(rows, 2);
        let asked = site
            .hits()
            .into_iter()
            .filter(|h| h.target == path)
            .last()
            .unwrap();
        assert!(
            asked.headers.iter().any(|(n, _)| n == header),
            "{path}: {:?}",
            asked.headers
        );
    }
    s.audit();
}

/// Every new kind of request (robots.txt, a retry, a conditional refresh)
/// goes through the target wall: redirected to the metadata address, it is
/// refused before any connection, and the page ends `fetch_failed`.
#[test]
fn robots_retries_and_conditional_requests_stay_inside_the_wall() {
    const METADATA: &str = "http://169.254.169.254/latest/meta-data/";
    let site = Scripted::start();
    site.answer("/robots.txt", 302, &[("location", METADATA)], "");
    let busy = Canned {
        status: 503,
        headers: vec![("retry-after".into(), "1".into())],
        body: "busy".into(),
    };
    let away = Canned {
        status: 302,
        headers: vec![("location".into(), METADATA.into())],
        body: String::new(),
    };
    site.script("/retry/", vec![busy, away.clone()]);
    let lamps = listing(&[("Amber", "10.00"), ("Birch", "12.00")]);
    let fine = Canned {
        status: 200,
        headers: vec![("ETag".into(), "\"v1\"".into())],
        body: lamps,
    };
    site.script("/lamps/", vec![fine, away]);
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "extractions,refresh")
        .start();
    let a = s.account("10");
    let c = s.client(&a.live);
    // robots.txt that redirects to the metadata address: refused, read as
    // absent; the page itself is read.
    let first = extract(&c, &site.url("/lamps/"), "lamp");
    assert_eq!(first["status"], "delivered", "{first}");
    let refused = |e: &Value| {
        let ev = extraction_events(&c, e["id"].as_str().unwrap());
        ev.iter().any(|x| {
            x["data"]["outcome"] == "fetch_failed"
                && x["data"]["reason"]
                    .as_str()
                    .unwrap_or("")
                    .contains("refused")
        })
    };
    // A retry that is redirected there.
    let retried = extract(&c, &site.url("/retry/"), "lamp");
    assert_eq!(retried["error"]["code"], "fetch_failed", "{retried}");
    assert!(refused(&retried), "{retried}");
    assert_eq!(site.count("/retry/"), 2, "the first try and the retry");
    // A conditional refresh that is redirected there.
    let id = first["id"].as_str().unwrap();
    let r = c.post(&format!("/extractions/{id}/refresh"), json!({}));
    assert_eq!(r.status, 201, "{}", r.text);
    let again_id = r.json()["id"].as_str().unwrap().to_string();
    assert_eq!(
        c.get(&format!("/extractions/{again_id}/result?wait=60"))
            .status,
        200
    );
    let again = c.get(&format!("/extractions/{again_id}")).ok();
    assert_eq!(again["error"]["code"], "fetch_failed", "{again}");
    assert!(refused(&again), "{again}");
    let conditional = site
        .hits()
        .into_iter()
        .filter(|h| h.target == "/lamps/")
        .last()
        .unwrap();
    assert!(conditional
        .headers
        .iter()
        .any(|(n, _)| n == "if-none-match"));
    // Only the first extraction's receipt was paid for.
    assert_eq!(
        micros(&c.get("/balance").ok()["balance_usd"]),
        10_000_000 - micros(&first["settled_usd"])
    );
}
