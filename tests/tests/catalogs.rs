//! Catalogs, not pages: listing pages are read as every product they show,
//! walked through their pagination, and product pages are fetched only
//! when a listing cannot answer a constraint.

use std::collections::{BTreeMap, HashSet};
use std::process::Command;

use fnhost_tests::*;

/// Every row of a session's result, checked or not.
fn all_rows(result: &Value) -> Vec<Value> {
    let mut rows = result["rows"].as_array().unwrap().clone();
    rows.extend(result["unchecked"].as_array().unwrap().iter().cloned());
    rows
}

fn name_of(row: &Value) -> String {
    row["record"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_readme_query_returns_the_four_tents_from_the_listings_alone() {
    let s = Server::start();
    let a = s.account("10");
    let c = s.client(&a.test);
    let r = c.post(
        "/sessions",
        json!({ "query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 1 }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let result = result(&c, &id);
    assert_eq!(result["status"], "answered", "{result}");
    let rows = all_rows(&result);
    let mut qualified: Vec<String> = rows
        .iter()
        .filter(|r| r["qualified"] == json!(true))
        .map(name_of)
        .collect();
    qualified.sort();
    assert_eq!(
        qualified,
        vec![
            "Canyon 3P Dome Tent",
            "Meadow 4-Person Family Tent",
            "Ridgeline 2-Person Backpacking Tent",
            "Trailhead 1P Ultralight Tent",
        ],
        "{result}"
    );
    assert!(
        rows.iter().all(|r| name_of(r) != "Tents"),
        "a listing page is never a row: {result}"
    );
    // One row per product, each with the listing's price.
    let urls: HashSet<&str> = rows
        .iter()
        .filter_map(|r| r["record"]["url"].as_str())
        .collect();
    assert_eq!(urls.len(), rows.len(), "one row per product");
    let canyon = rows
        .iter()
        .find(|r| name_of(r) == "Canyon 3P Dome Tent")
        .unwrap();
    assert_eq!(canyon["record"]["price"], "129.00");
    assert_eq!(canyon["record"]["availability"], "OutOfStock");
    // The home page, the two listings and the stove's page (linked from the
    // home page): no tent page is fetched, since the listings show price
    // and stock.
    let session = c.get(&format!("/sessions/{id}")).ok();
    let pages = session["receipts_signed"].as_u64().unwrap();
    assert!(pages <= 4, "read {pages} pages: {session}");
    let receipts = c.get(&format!("/sessions/{id}/receipts?limit=100")).ok();
    for receipt in receipts["data"].as_array().unwrap() {
        let url = receipt["url"].as_str().unwrap();
        assert!(
            !url.contains("/tents/") || url.ends_with("/tents/") || url.ends_with("?page=2"),
            "fetched a tent page: {url}"
        );
    }
}

#[test]
fn a_constraint_the_listing_cannot_answer_is_read_from_the_product_page_into_the_same_row() {
    let s = Server::start();
    let a = s.account("10");
    let c = s.client(&a.test);
    let r = c.post(
        "/sessions",
        json!({ "query": "Nordpeak tents from outdoor-gear.example", "max_spend_usd": 1 }),
    );
    let id = r.json()["id"].as_str().unwrap().to_string();
    let result = result(&c, &id);
    let rows = all_rows(&result);
    let mut qualified: Vec<String> = rows
        .iter()
        .filter(|r| r["qualified"] == json!(true))
        .map(name_of)
        .collect();
    qualified.sort();
    assert_eq!(
        qualified,
        vec![
            "Ridgeline 2-Person Backpacking Tent",
            "Trailhead 1P Ultralight Tent"
        ],
        "{result}"
    );
    let urls: Vec<&str> = rows
        .iter()
        .filter_map(|r| r["record"]["url"].as_str())
        .collect();
    let distinct: HashSet<&&str> = urls.iter().collect();
    assert_eq!(
        distinct.len(),
        urls.len(),
        "a product read twice is one row"
    );
    // Billed once: the rows' count is what the receipts charged for.
    let session = c.get(&format!("/sessions/{id}")).ok();
    assert_eq!(session["records"].as_u64().unwrap() as usize, rows.len());
}

#[test]
fn a_large_catalog_is_read_through_its_listings() {
    let s = Server::start();
    let a = s.account("100");
    let c = s.client(&a.test);
    let r = c.post(
        "/sessions",
        json!({ "query": "lamps from big-catalog.example", "max_spend_usd": 5 }),
    );
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let session = wait_for(300, || {
        let s = c.get(&format!("/sessions/{id}")).ok();
        (s["status"] != "running").then_some(s)
    });
    assert_eq!(session["status"], "answered", "{session}");
    assert_eq!(session["records"], json!(5200), "{session}");
    let pages = session["receipts_signed"].as_u64().unwrap();
    assert!(
        (130..=132).contains(&pages),
        "130 listings, no product page (the home page yields no record: no receipt): {pages}"
    );
    // $0.002 a page, $0.0005 a row.
    assert_eq!(
        micros(&session["settled_usd"]),
        pages as i64 * 2_000 + 5_200 * 500
    );
}

/// A page of market-kinds.example as a saved file for `fnhost extract`.
fn save(dir: &std::path::Path, urls: &mut BTreeMap<String, String>, id: &str, path: &str) {
    let page = fnhost_replay::fetch(&format!("https://market-kinds.example{path}"))
        .unwrap_or_else(|| panic!("no fixture page {path}"));
    std::fs::write(dir.join("pages").join(format!("{id}.html")), page.body).unwrap();
    urls.insert(id.into(), page.url);
}

#[test]
fn extract_list_gives_every_record_of_each_kind_of_listing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pages")).unwrap();
    let mut urls = BTreeMap::new();
    for (id, path) in [
        ("jsonld-1", "/jsonld/"),
        ("jsonld-2", "/jsonld/?page=2"),
        ("micro", "/micro/"),
        ("state", "/state/"),
        ("plain-1", "/plain/"),
        ("plain-2", "/plain/?page=2"),
        ("product", "/plain/orbit-sconce.html"),
        ("about", "/about.html"),
        ("home", "/"),
    ] {
        save(dir.path(), &mut urls, id, path);
    }
    std::fs::write(
        dir.path().join("urls.json"),
        serde_json::to_vec(&urls).unwrap(),
    )
    .unwrap();
    let out = dir.path().join("out.json");
    let status = Command::new(binary())
        .args(["--data-dir"])
        .arg(dir.path().join("data"))
        .args(["extract", "--list", "--dir"])
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .env(
            "FNHOST_PLUGINS__CACHE_DIR",
            root().join("target/test-plugin-cache"),
        )
        .status()
        .unwrap();
    assert!(status.success());
    let got: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let names = |id: &str| -> Vec<String> {
        got[id]["records"]
            .as_array()
            .unwrap_or_else(|| panic!("{id}: {got}"))
            .iter()
            .map(|r| r["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let expect = [
        (
            "jsonld-1",
            vec!["Aurora Desk Lamp", "Beacon Floor Lamp", "Cinder Table Lamp"],
        ),
        ("jsonld-2", vec!["Dune Pendant Lamp", "Ember Wall Lamp"]),
        (
            "micro",
            vec!["Fjord Reading Lamp", "Glade Clip Lamp", "Harbor Arc Lamp"],
        ),
        (
            "state",
            vec![
                "Iris Bedside Lamp",
                "Juniper Tripod Lamp",
                "Kestrel Task Lamp",
            ],
        ),
        (
            "plain-1",
            vec![
                "Lantern Mini",
                "Meridian Globe Lamp",
                "Nova Strip Light",
                "Orbit Sconce",
            ],
        ),
        ("plain-2", vec!["Prism Lamp", "Quill Lamp"]),
    ];
    for (id, want) in expect {
        assert_eq!(got[id]["kind"], "listing", "{id}: {}", got[id]);
        assert_eq!(names(id), want, "{id}: {}", got[id]);
        for r in got[id]["records"].as_array().unwrap() {
            let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
            assert_eq!(keys.len(), 5, "{r}");
            assert!(
                r["url"]
                    .as_str()
                    .unwrap()
                    .starts_with("https://market-kinds.example/"),
                "{r}"
            );
            assert_eq!(r["currency"], "USD", "{r}");
        }
    }
    let record = |id: &str, i: usize| got[id]["records"][i].clone();
    assert_eq!(record("jsonld-1", 1)["price"], "120.00");
    assert_eq!(record("jsonld-1", 1)["availability"], "OutOfStock");
    assert_eq!(record("micro", 1)["price"], "19.99");
    assert_eq!(record("state", 2)["price"], "74.25");
    assert_eq!(
        record("plain-1", 0)["price"],
        "15.00",
        "the current price, not the struck one"
    );
    assert_eq!(record("plain-1", 2)["availability"], "OutOfStock");
    assert_eq!(
        record("plain-1", 3)["url"],
        "https://market-kinds.example/plain/orbit-sconce.html"
    );
    assert_eq!(got["product"]["kind"], "product");
    assert_eq!(names("product"), vec!["Orbit Sconce"]);
    assert_eq!(got["about"]["kind"], "other");
    assert_eq!(got["about"]["records"], json!([]));
    assert_ne!(got["home"]["kind"], "product");
}

#[test]
fn a_session_walks_every_kind_of_listing_and_its_pagination() {
    let s = Server::start();
    let a = s.account("10");
    let c = s.client(&a.test);
    let r = c.post(
        "/sessions",
        json!({ "query": "lamps from market-kinds.example", "max_spend_usd": 1 }),
    );
    let id = r.json()["id"].as_str().unwrap().to_string();
    let result = result(&c, &id);
    let rows = all_rows(&result);
    let names: HashSet<String> = rows.iter().map(name_of).collect();
    for want in [
        "Aurora Desk Lamp",
        "Ember Wall Lamp",
        "Glade Clip Lamp",
        "Kestrel Task Lamp",
        "Orbit Sconce",
        "Quill Lamp",
    ] {
        assert!(names.contains(want), "{want} missing: {names:?}");
    }
    assert_eq!(rows.len(), 17, "every product once: {names:?}");
    assert!(!names.contains("Small lights") && !names.contains("Desk lamps"));
}
