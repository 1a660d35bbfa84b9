//! Discover (preview switch `discover`): a site's catalog pages for $0,
//! found from its robots.txt, sitemaps and navigation and classified by the
//! extractor; deterministic; the same target wall and robots.txt as runs.

use fnhost_tests::*;

fn server() -> Server {
    Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "discover")
        .start()
}

fn kinds<'a>(list: &'a Value, kind: &str) -> Vec<&'a Value> {
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == kind)
        .collect()
}

#[test]
fn discover_finds_a_sites_catalogs_best_first_for_nothing() {
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.test);
    let before = c.get("/balance").ok();
    let r = c.post(
        "/discover",
        json!({ "url": "https://outdoor-gear.example/" }),
    );
    assert_eq!(r.status, 200, "{}", r.text);
    let list = r.json();
    assert_eq!(list["object"], "list");
    let data = list["data"].as_array().unwrap();
    assert!(!data.is_empty() && data.len() <= 50, "{list}");
    // The tents listing comes first: it shows the most products.
    assert_eq!(data[0]["kind"], "listing", "{list}");
    assert_eq!(
        data[0]["url"], "https://outdoor-gear.example/tents/",
        "{list}"
    );
    let signals: Vec<&str> = data[0]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(signals.contains(&"pagination"), "{signals:?}");
    assert!(
        signals.iter().any(|s| s.starts_with("products-on-page:")),
        "{signals:?}"
    );
    // The sitemap robots.txt names, and product pages after the listings.
    let sitemaps = kinds(&list, "sitemap");
    assert_eq!(sitemaps.len(), 1, "{list}");
    assert_eq!(
        sitemaps[0]["url"],
        "https://outdoor-gear.example/sitemap.xml"
    );
    assert!(sitemaps[0]["signals"]
        .as_array()
        .unwrap()
        .contains(&json!("robots.txt")));
    assert!(!kinds(&list, "product").is_empty(), "{list}");
    let order: Vec<&str> = data.iter().map(|c| c["kind"].as_str().unwrap()).collect();
    let rank = |k: &str| {
        ["listing", "sitemap", "product"]
            .iter()
            .position(|x| *x == k)
            .unwrap()
    };
    assert!(
        order.windows(2).all(|w| rank(w[0]) <= rank(w[1])),
        "{order:?}"
    );
    // robots.txt disallows /private/: never a candidate.
    assert!(!list.to_string().contains("/private/"), "{list}");
    // Deterministic, and free: nothing reserved, nothing settled.
    let again = c
        .post(
            "/discover",
            json!({ "url": "https://outdoor-gear.example/" }),
        )
        .json();
    assert_eq!(again, list);
    assert_eq!(c.get("/balance").ok(), before);
    assert_eq!(c.get("/sessions").ok()["data"], json!([]));
    s.audit();
}

#[test]
fn discover_classifies_every_kind_of_listing() {
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.test);
    let list = c
        .post(
            "/discover",
            json!({ "url": "https://market-kinds.example/" }),
        )
        .json();
    let listings: Vec<&str> = kinds(&list, "listing")
        .iter()
        .map(|c| c["url"].as_str().unwrap())
        .collect();
    for kind in ["jsonld", "micro", "state", "plain"] {
        assert!(
            listings.iter().any(|u| u.contains(&format!("/{kind}/"))),
            "no {kind} listing in {list}"
        );
    }
    // The about page is neither a listing nor a product.
    assert!(!list.to_string().contains("about.html"), "{list}");
}

#[test]
fn discover_checks_its_input_and_its_scope() {
    let s = server();
    let a = s.account("10");
    let c = s.client(&a.test);
    c.post("/discover", json!({})).error(400, "invalid_param");
    c.post("/discover", json!({ "url": "ftp://x.example/" }))
        .error(400, "invalid_param");
    c.post(
        "/discover",
        json!({ "url": "https://x.example/", "depth": 3 }),
    )
    .error(400, "invalid_param");
    // A live key meets the target wall (this server lets loopback through,
    // so use a metadata address, refused whatever the development flag).
    let live = s.client(&a.live);
    let r = live.post("/discover", json!({ "url": "http://169.254.169.254/" }));
    assert_eq!(r.status, 400, "{}", r.text);
    // A site with nothing recorded answers an empty list, not an error.
    let none = c
        .post(
            "/discover",
            json!({ "url": "https://nothing-here.example/" }),
        )
        .ok();
    assert_eq!(none["data"], json!([]));
    // Closed by default.
    let closed = Server::start();
    let a = closed.account("1");
    closed
        .client(&a.test)
        .post(
            "/discover",
            json!({ "url": "https://outdoor-gear.example/" }),
        )
        .error(501, "not_implemented");
}
