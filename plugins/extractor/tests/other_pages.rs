//! Real pages that are not shop pages (news, blog posts, recipes, notices)
//! beside real shop pages from the same collection: each page's kind as
//! labelled by hand in `datasets/other-pages/labels.json`.

use std::io::Read;

use fnhost_extractor::{extract, Page, PageKind, Request};

#[test]
fn articles_and_notices_are_no_products_and_shops_still_are() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../datasets/other-pages");
    let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).expect(name);
    let labels: serde_json::Value = serde_json::from_str(&read("labels.json")).unwrap();
    let urls: serde_json::Value = serde_json::from_str(&read("urls.json")).unwrap();
    let hints = serde_json::json!({});
    let request = Request {
        entity: "product",
        guidance: None,
        hints: &hints,
    };
    let mut wrong = Vec::new();
    let labels = labels.as_object().unwrap();
    assert!(labels.len() >= 20, "the set's labels are read");
    for (id, label) in labels {
        let file = std::fs::File::open(format!("{dir}/pages/{id}.html.gz")).expect(id);
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(file)
            .read_to_end(&mut bytes)
            .unwrap();
        let body = String::from_utf8_lossy(&bytes);
        let page = Page {
            url: urls[id].as_str().unwrap(),
            status: 200,
            content_type: Some("text/html"),
            body: &body,
        };
        let found = extract(&page, &request).unwrap();
        let expected = match label["kind"].as_str().unwrap() {
            "product" => PageKind::Product,
            "listing" => PageKind::Listing,
            _ => PageKind::Other,
        };
        if found.kind != expected || (expected == PageKind::Other && !found.records.is_empty()) {
            wrong.push(format!(
                "{id} ({}): {:?} with {} records, expected {expected:?}",
                label["why"],
                found.kind,
                found.records.len()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
