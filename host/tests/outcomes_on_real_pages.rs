//! Page outcomes on real saved pages: every page of the repository's
//! listing sets is a page to read (`ok`), never a block, a sign-in, a
//! "not found" or a script shell, whatever its markup carries (CAPTCHA
//! widgets, "404" in a product name, bot-protection scripts).

use std::io::Read;
use std::path::Path;

use fnhost::fetch::outcome::{of_empty, of_response, PageOutcome};
use fnhost::fetch::Fetched;

#[test]
fn real_shop_pages_are_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets");
    // The sets kept beside the repository, when they are there.
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/datasets");
    let mut sets: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().collect();
    sets.extend(std::fs::read_dir(&beside).into_iter().flatten().flatten());
    let mut pages = 0;
    for set in sets {
        let urls: std::collections::BTreeMap<String, String> =
            match std::fs::read(set.path().join("urls.json")) {
                Ok(b) => serde_json::from_slice(&b).unwrap(),
                Err(_) => continue,
            };
        // A set whose pages sit beside the repository keeps only its
        // annotation here.
        let Ok(files) = std::fs::read_dir(set.path().join("pages")) else {
            continue;
        };
        for entry in files.flatten() {
            let path = entry.path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let id = name
                .trim_end_matches(".gz")
                .trim_end_matches(".html")
                .to_string();
            let bytes = std::fs::read(&path).unwrap();
            let body = if name.ends_with(".gz") {
                let mut s = Vec::new();
                flate2::read::GzDecoder::new(&bytes[..])
                    .read_to_end(&mut s)
                    .unwrap();
                String::from_utf8_lossy(&s).into_owned()
            } else {
                String::from_utf8_lossy(&bytes).into_owned()
            };
            let url = urls[&id].clone();
            let page = Fetched {
                url: url.clone(),
                status: 200,
                content_type: Some("text/html; charset=utf-8".into()),
                headers: Vec::new(),
                bytes: body.len(),
                sha256: String::new(),
                body,
                fetched_at: String::new(),
            };
            assert_eq!(of_response(&url, &page), None, "{}", path.display());
            pages += 1;
        }
    }
    assert!(pages >= 37, "the listing sets' pages were read ({pages})");
}

/// What becomes of a saved page served with `status`, as a run decides it:
/// the response alone, else the extractor's records, else why it gave none.
fn outcome_of(url: &str, status: u16, body: String) -> (PageOutcome, String) {
    let page = Fetched {
        url: url.to_string(),
        status,
        content_type: Some("text/html; charset=utf-8".into()),
        headers: Vec::new(),
        bytes: body.len(),
        sha256: String::new(),
        body,
        fetched_at: String::new(),
    };
    if let Some(v) = of_response(url, &page) {
        return (v.outcome, v.signal);
    }
    let hints = serde_json::json!({});
    let extraction = fnhost_extractor::extract(
        &fnhost_extractor::Page {
            url,
            status,
            content_type: page.content_type.as_deref(),
            body: &page.body,
        },
        &fnhost_extractor::Request {
            entity: "product",
            guidance: None,
            hints: &hints,
        },
    )
    .expect("extraction");
    if !extraction.records.is_empty() {
        return (
            PageOutcome::Ok,
            format!("{} records", extraction.records.len()),
        );
    }
    let v = of_empty(&page);
    (v.outcome, v.signal)
}

/// Real pages served instead of a shop's content (challenges and blocks of
/// several vendors, sign-in pages, a soft 404, a page that needs script)
/// and real shop pages that merely mention such things
/// (`datasets/page-outcomes`): each ends in its labelled outcome.
#[test]
fn real_refusals_are_told_apart_from_real_pages() {
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/page-outcomes");
    let labels: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&std::fs::read(set.join("labels.json")).unwrap()).unwrap();
    let mut wrong = Vec::new();
    for (id, label) in &labels {
        let body = std::fs::read(set.join("pages").join(format!("{id}.html"))).unwrap();
        let body = String::from_utf8_lossy(&body).into_owned();
        // Some URLs are stated with a remark after them.
        let url = label["url"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        let status = label["status"].as_u64().map_or(200, |s| s as u16);
        let expected = label["outcome"].as_str().unwrap();
        let (outcome, signal) = outcome_of(url, status, body);
        if outcome.as_str() != expected {
            wrong.push(format!(
                "{id}: {} ({signal}), labelled {expected}",
                outcome.as_str()
            ));
        }
    }
    assert!(labels.len() >= 24, "{} pages", labels.len());
    assert!(
        wrong.is_empty(),
        "{} of {} wrong:\n{}",
        wrong.len(),
        labels.len(),
        wrong.join("\n")
    );
}
