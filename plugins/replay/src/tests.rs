use super::*;

const OG: &str = "https://outdoor-gear.example";

#[test]
fn serves_fixture_index_for_root_and_dirs() {
    let home = fetch("https://outdoor-gear.example/").expect("home page");
    assert_eq!(home.status, 200);
    assert_eq!(home.url, "https://outdoor-gear.example/");
    assert_eq!(
        home.content_type.as_deref(),
        Some("text/html; charset=utf-8")
    );
    assert!(home.body.contains("<h1>Outdoor Gear</h1>"));
    // Without a path, with index.html, over http: the same page.
    for u in [
        "https://outdoor-gear.example",
        "http://outdoor-gear.example/",
        "https://outdoor-gear.example/index.html",
    ] {
        assert_eq!(fetch(u).expect(u).body, home.body, "{u}");
    }
    let tents = fetch(&format!("{OG}/tents/")).unwrap();
    assert!(tents.body.contains("Page 1 of 2"));
    assert_eq!(tents.url, "https://outdoor-gear.example/tents/");
    // Trailing slash is lenient.
    assert_eq!(fetch(&format!("{OG}/tents")).unwrap().body, tents.body);
    assert_eq!(
        fetch(&format!("{OG}/tents/index.html")).unwrap().body,
        tents.body
    );
}

#[test]
fn query_string_must_match_exactly() {
    let p2 = fetch(&format!("{OG}/tents/?page=2")).expect("page 2");
    assert!(p2.body.contains("Page 2 of 2"));
    assert_eq!(p2.url, "https://outdoor-gear.example/tents/?page=2");
    assert_eq!(fetch(&format!("{OG}/tents?page=2")).unwrap().body, p2.body);
    assert!(fetch(&format!("{OG}/tents/?page=3")).is_none());
    assert!(fetch(&format!("{OG}/tents/?page=2&sort=price")).is_none());
    // An empty query is no query.
    assert!(fetch(&format!("{OG}/tents/?"))
        .unwrap()
        .body
        .contains("Page 1 of 2"));
    // A query on a page that has none recorded is unknown.
    assert!(fetch(&format!("{OG}/tents/meadow-4p.html?ref=x")).is_none());
}

#[test]
fn fragment_case_and_default_port_are_ignored() {
    let a = fetch(&format!("{OG}/tents/meadow-4p.html")).unwrap();
    for u in [
        "https://outdoor-gear.example/tents/meadow-4p.html#reviews",
        "HTTPS://Outdoor-Gear.Example/tents/meadow-4p.html",
        "https://outdoor-gear.example:443/tents/meadow-4p.html",
        "http://outdoor-gear.example:80/tents/meadow-4p.html",
    ] {
        assert_eq!(fetch(u).expect(u).body, a.body, "{u}");
    }
    // Path case matters.
    assert!(fetch("https://outdoor-gear.example/Tents/meadow-4p.html").is_none());
    // A non-default port is a different origin.
    assert!(fetch("https://outdoor-gear.example:8443/tents/meadow-4p.html").is_none());
}

#[test]
fn unknown_urls_give_none() {
    assert!(fetch("https://outdoor-gear.example/nope.html").is_none());
    assert!(fetch("https://unknown.example/").is_none());
    assert!(fetch("ftp://outdoor-gear.example/").is_none());
    assert!(fetch("not a url").is_none());
    assert!(fetch("").is_none());
    assert!(fetch("https:///tents/").is_none());
}

#[test]
fn robots_and_sitemap_are_served() {
    let robots = fetch(&format!("{OG}/robots.txt")).unwrap();
    assert_eq!(
        robots.content_type.as_deref(),
        Some("text/plain; charset=utf-8")
    );
    assert!(robots.body.contains("Disallow: /private/"));
    assert!(robots
        .body
        .contains("Sitemap: https://outdoor-gear.example/sitemap.xml"));
    let sitemap = fetch(&format!("{OG}/sitemap.xml")).unwrap();
    assert_eq!(sitemap.content_type.as_deref(), Some("application/xml"));
    assert!(sitemap
        .body
        .contains("<loc>https://outdoor-gear.example/tents/trailhead-1p.html</loc>"));
    assert!(!sitemap.body.contains("/private/"));
    assert!(fetch("https://bookshop.example/robots.txt").is_some());
    assert!(fetch("https://plain-electronics.example/robots.txt").is_some());
}

#[test]
fn every_fixture_site_is_embedded() {
    assert_eq!(
        fixture_domains(),
        vec![
            "bookshop.example",
            "camp-supply.example",
            "market-kinds.example",
            "outdoor-gear.example",
            "plain-electronics.example",
            "script-shop.example"
        ]
    );
    let book = fetch("https://bookshop.example/books/the-quiet-orchard.html").unwrap();
    assert!(book.body.contains("itemprop=\"price\""));
    let laptop = fetch("https://plain-electronics.example/products/aero-13.html").unwrap();
    assert!(laptop.body.contains("£1,299.00"));
}

#[test]
fn outdoor_gear_facts_hold() {
    // Six tent pages with JSON-LD offers in USD, one of them out of stock.
    let sitemap = fetch(&format!("{OG}/sitemap.xml")).unwrap().body;
    let tent_pages: Vec<&str> = sitemap
        .split("<loc>")
        .skip(1)
        .map(|s| s.split("</loc>").next().unwrap())
        .filter(|u| u.contains("/tents/") && u.ends_with(".html"))
        .collect();
    assert_eq!(tent_pages.len(), 6);
    let mut out_of_stock = 0;
    let mut under_200 = 0;
    for u in &tent_pages {
        let body = fetch(u).expect(u).body;
        assert!(body.contains("\"@type\": \"Product\""), "{u}");
        assert!(body.contains("\"priceCurrency\": \"USD\""), "{u}");
        out_of_stock += body.contains("schema.org/OutOfStock") as usize;
        let price = body
            .split("\"price\": \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let whole: u32 = price.split('.').next().unwrap().parse().unwrap();
        under_200 += (whole < 200) as usize;
    }
    assert_eq!(out_of_stock, 1);
    assert_eq!(under_200, 4);
}

#[test]
fn recordings_are_served_with_their_status() {
    assert_eq!(recording_names(), vec!["gadget-outlet.json"]);
    let p = fetch("http://gadget-outlet.example/deals").unwrap();
    assert_eq!(p.url, "https://gadget-outlet.example/deals/");
    assert_eq!(p.status, 200);
    assert!(p.body.contains("Pocket Power Bank"));
    let r = fetch("https://gadget-outlet.example/robots.txt").unwrap();
    assert_eq!(r.status, 404);
    assert_eq!(r.content_type.as_deref(), Some("text/plain"));
}

#[test]
fn recording_format_round_trips() {
    let text = r#"{"name":"x","recorded_at":"2026-11-20T09:30:00Z","pages":[{"url":"https://a.example/","status":200,"content_type":null,"body":"hi"}]}"#;
    let rec = parse_recording(text).unwrap();
    assert_eq!(rec.pages[0].content_type, None);
    let again = parse_recording(&serde_json::to_string(&rec).unwrap()).unwrap();
    assert_eq!(rec, again);
    assert!(parse_recording("{\"pages\": []}")
        .unwrap_err()
        .contains("name"));
    assert!(parse_recording("nope").is_err());
}

#[test]
fn serve_fixture_rewrites_the_origin() {
    let robots = serve_fixture(
        "outdoor-gear.example",
        "/robots.txt",
        "http://127.0.0.1:4000/",
    )
    .unwrap();
    assert!(robots
        .body
        .contains("Sitemap: http://127.0.0.1:4000/sitemap.xml"));
    assert_eq!(robots.url, "http://127.0.0.1:4000/robots.txt");
    let sitemap = serve_fixture(
        "outdoor-gear.example",
        "sitemap.xml",
        "http://127.0.0.1:4000",
    )
    .unwrap();
    assert!(sitemap
        .body
        .contains("<loc>http://127.0.0.1:4000/tents/?page=2</loc>"));
    assert!(!sitemap.body.contains("outdoor-gear.example"));
    let p2 = serve_fixture(
        "outdoor-gear.example",
        "/tents/?page=2",
        "http://127.0.0.1:4000",
    )
    .unwrap();
    assert!(p2.body.contains("Page 2 of 2"));
    assert!(serve_fixture("outdoor-gear.example", "/missing", "http://127.0.0.1:4000").is_none());
}

#[test]
fn private_page_exists_but_is_disallowed() {
    let p = fetch(&format!("{OG}/private/")).unwrap();
    assert!(p.body.contains("Staff Sample Tent"));
    let robots = fetch(&format!("{OG}/robots.txt")).unwrap().body;
    assert!(robots.lines().any(|l| l.trim() == "Disallow: /private/"));
}

#[test]
fn content_types_by_extension() {
    assert_eq!(content_type_for("a/b.HTML"), "text/html; charset=utf-8");
    assert_eq!(content_type_for("robots.txt"), "text/plain; charset=utf-8");
    assert_eq!(content_type_for("sitemap.xml"), "application/xml");
    assert_eq!(content_type_for("noext"), "application/octet-stream");
}

#[test]
fn the_generated_catalog_serves_every_listing_and_product_page() {
    use crate::generated::{PAGES, PER_PAGE, PRODUCTS};
    let first = fetch("https://big-catalog.example/catalog/").unwrap();
    assert_eq!(first.url, "https://big-catalog.example/catalog/");
    assert!(first
        .body
        .contains("rel=\"next\" href=\"/catalog/?page=2\""));
    assert_eq!(
        first.body.matches("class=\"card\"").count(),
        PER_PAGE as usize
    );
    let last = fetch(&format!(
        "https://big-catalog.example/catalog/?page={PAGES}"
    ))
    .unwrap();
    assert!(!last.body.contains("rel=\"next\""));
    assert!(last.body.contains(&format!("/p/{PRODUCTS}.html")));
    assert!(fetch(&format!(
        "https://big-catalog.example/catalog/?page={}",
        PAGES + 1
    ))
    .is_none());
    assert!(fetch("https://big-catalog.example/catalog/?page=1").is_none());
    assert!(fetch("https://big-catalog.example/p/1.html")
        .unwrap()
        .body
        .contains("Lamp No. 1"));
    assert!(fetch(&format!(
        "https://big-catalog.example/p/{}.html",
        PRODUCTS + 1
    ))
    .is_none());
    // The same bytes on every call.
    assert_eq!(
        fetch("https://big-catalog.example/catalog/?page=7"),
        fetch("https://big-catalog.example/catalog/?page=7")
    );
}
