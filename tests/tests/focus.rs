//! Focused runs (SESSIONS.md, "How a run chooses pages"): on a shop of many
//! departments (camp-supply.example, fixtures/sites/README.md) a run reads
//! the pages that name what the query asks for, by anchor text, title or a
//! synonym, and leaves the rest of the shop unread.

use fnhost_tests::*;
use serde_json::{json, Value};

const SITE: &str = "https://camp-supply.example";

/// A test-key session of `query`, answered: its result and its events.
fn run(c: &Client, query: &str) -> (Value, Vec<Value>) {
    let r = c.post("/sessions", json!({ "query": query, "max_spend_usd": 1 }));
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let result = result(c, &id);
    assert_eq!(result["status"], "answered", "{result}");
    (result, events(c, &id))
}

/// The pages a run wanted (the result's `sources`).
fn read(result: &Value) -> Vec<String> {
    result["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["url"].as_str().unwrap().to_string())
        .collect()
}

/// How the run came to a page, as its page event says.
fn via(events: &[Value], url: &str) -> Value {
    events
        .iter()
        .find(|e| e["data"]["url"] == url && e["data"]["via"].is_string())
        .map(|e| e["data"]["via"].clone())
        .unwrap_or(Value::Null)
}

/// The closing `skipped` event naming the unrelated pages never read.
fn unread(events: &[Value]) -> Value {
    events
        .iter()
        .find(|e| e["phase"] == "skipped" && e["data"]["url"].is_null())
        .map(|e| e["data"].clone())
        .expect("the unrelated pages left unread are named")
}

#[test]
fn a_run_reads_the_department_its_query_names_and_nothing_else() {
    let s = Server::start();
    let a = s.account("10");
    let c = s.client(&a.test);

    // "Shelters" names tents by a synonym; the home page's other departments,
    // its featured stove, lantern and backpack, brands and journal do not.
    let query = "tents under $200 from camp-supply.example";
    let (result, events) = run(&c, query);
    let qualified: Vec<&Value> = result["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["qualified"] == json!(true))
        .collect();
    assert_eq!(qualified.len(), 5, "{result}");
    for row in &qualified {
        let record = &row["record"];
        assert!(record["name"].as_str().unwrap().contains("Tent"), "{row}");
        let price: f64 = record["price"].as_str().unwrap().parse().unwrap();
        assert!(price <= 200.0, "{row}");
    }
    let pages = read(&result);
    let shelters = format!("{SITE}/shelters/");
    let shelters_2 = format!("{SITE}/shelters/?page=2");
    assert!(pages.contains(&shelters), "{pages:?}");
    assert!(pages.contains(&shelters_2), "{pages:?}");
    for elsewhere in [
        "/cooking/",
        "/lighting/",
        "/packs/",
        "/sleeping-bags/",
        "/footwear/",
        "/blog/",
        "/brands/",
        "/about.html",
        "/emberline-two-burner-stove.html",
        "/glowpoint-400-lantern.html",
        "/switchback-45l-backpack.html",
    ] {
        assert!(
            pages.iter().all(|u| !u.contains(elsewhere)),
            "{elsewhere} was read: {pages:?}"
        );
    }
    assert_eq!(via(&events, &format!("{SITE}/")), "seed");
    assert_eq!(via(&events, &shelters), "related_link");
    assert_eq!(via(&events, &shelters_2), "next_page");
    let skipped = unread(&events);
    let examples = skipped["examples"].as_array().unwrap();
    assert!(!examples.is_empty() && examples.len() <= 10, "{skipped}");
    assert!(
        examples.contains(&json!(format!("{SITE}/cooking/"))),
        "{skipped}"
    );
    assert!(!skipped.to_string().contains("/shelters/"), "{skipped}");
    let fetched = result["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["outcome"] != "robots_disallowed")
        .count();
    println!(
        "pages fetched per qualifying row ({query}): {fetched} / {} = {:.2}",
        qualified.len(),
        fetched as f64 / qualified.len() as f64
    );

    // "Footwear" names no sneaker, but its link's title says trainers and
    // running shoes: the run reads it, and no tent page.
    let (result, events) = run(&c, "sneakers from camp-supply.example");
    let pages = read(&result);
    let footwear = format!("{SITE}/footwear/");
    assert!(pages.contains(&footwear), "{pages:?}");
    assert_eq!(via(&events, &footwear), "related_link");
    assert!(
        pages.iter().all(|u| !u.contains("/shelters/")),
        "a tent page was read: {pages:?}"
    );
    let rows = result["rows"].as_array().unwrap();
    assert!(!rows.is_empty(), "{result}");
    assert!(
        rows.iter().all(|r| r["source"]["url"] == footwear),
        "{result}"
    );
    assert!(!unread(&events).to_string().contains("/footwear/"));

    // A row named by another name of the kind meets the query: the tents
    // of "Shelters" are shelters.
    let (result, _) = run(&c, "shelters from camp-supply.example");
    let tents = result["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["qualified"] == json!(true))
        .filter(|r| r["record"]["name"].as_str().unwrap().contains("Tent"))
        .count();
    assert!(tents >= 5, "{result}");
    s.audit();
}
