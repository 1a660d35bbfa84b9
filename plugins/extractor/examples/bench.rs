//! Time the extractor natively over a dataset folder: HTML parsing alone,
//! then the whole extraction, in pages per second.
//!
//! usage: bench --dir DATASET_DIR [--rounds N] [--dump FILE]
//!
//! `--dump FILE` writes every page's whole extraction (records, claim,
//! links, notes) as JSON, to check that a speed change left the results as
//! they were.

use fnhost_extractor::{extract, parse, Page, Request};
use std::io::Read;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let dir = arg("--dir").expect("usage: bench --dir DATASET_DIR [--rounds N] [--dump FILE]");
    let rounds: usize = arg("--rounds").and_then(|r| r.parse().ok()).unwrap_or(3);
    let urls: serde_json::Map<String, serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{dir}/urls.json")).expect("urls.json"),
    )
    .expect("json");
    let mut pages = Vec::new();
    for (id, url) in &urls {
        let plain = format!("{dir}/pages/{id}.html");
        let bytes = match std::fs::read(&plain) {
            Ok(b) => b,
            Err(_) => {
                // An id without a saved page (urls.json may list more) is skipped.
                let Ok(f) = std::fs::File::open(format!("{dir}/pages/{id}.html.gz")) else {
                    continue;
                };
                let mut out = Vec::new();
                flate2::read::GzDecoder::new(f)
                    .read_to_end(&mut out)
                    .expect("gunzip");
                out
            }
        };
        pages.push((
            url.as_str().unwrap_or("").to_string(),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    let hints = serde_json::json!({});
    let request = Request {
        entity: "product",
        guidance: None,
        hints: &hints,
    };
    if let Some(out) = arg("--dump") {
        let mut all = serde_json::Map::new();
        for (url, body) in &pages {
            let page = Page {
                url,
                status: 200,
                content_type: Some("text/html"),
                body,
            };
            let found = match extract(&page, &request) {
                Ok(x) => serde_json::json!({
                    "records": x.records.iter().map(|r| r.to_json()).collect::<Vec<_>>(),
                    "complete": x.complete,
                    "links": x.links,
                    "notes": x.notes,
                }),
                Err(e) => serde_json::json!({ "error": e }),
            };
            all.insert(url.clone(), found);
        }
        let text = serde_json::to_string_pretty(&all).expect("json");
        std::fs::write(&out, text).expect("write the dump");
    }
    // `--check-parse`: the fast tokenizer's tree against html5ever's own,
    // page by page.
    if args.iter().any(|a| a == "--check-parse") {
        let (mut same, mut fell_back, mut differ) = (0, 0, 0);
        for (url, body) in &pages {
            let reference = parse::outline(&fnhost_extractor::tree::Html::parse_document(body));
            match parse::fast(body) {
                None => {
                    fell_back += 1;
                    println!("falls back to html5ever: {url}");
                }
                Some(tree) if parse::outline(&tree) == reference => same += 1,
                Some(tree) => {
                    differ += 1;
                    let ours = parse::outline(&tree);
                    let at = ours
                        .lines()
                        .zip(reference.lines())
                        .position(|(a, b)| a != b)
                        .unwrap_or(0);
                    println!("DIFFERS {url} at node {at}:");
                    for (a, b) in ours.lines().zip(reference.lines()).skip(at).take(3) {
                        println!("  fast:      {}", a.chars().take(200).collect::<String>());
                        println!("  html5ever: {}", b.chars().take(200).collect::<String>());
                    }
                }
            }
        }
        println!("parse check: {same} same, {fell_back} fell back, {differ} differ");
        if differ > 0 {
            std::process::exit(1);
        }
        return;
    }
    // `--extract-only` skips the parse-only timing (for profiling).
    let extract_only = args.iter().any(|a| a == "--extract-only");
    let (mut parse, mut fast, mut full) = (Duration::MAX, Duration::MAX, Duration::MAX);
    for _ in 0..rounds {
        if !extract_only {
            let start = Instant::now();
            for (_, body) in &pages {
                std::hint::black_box(fnhost_extractor::tree::Html::parse_document(body));
            }
            parse = parse.min(start.elapsed());
            let start = Instant::now();
            for (_, body) in &pages {
                std::hint::black_box(parse::document(body));
            }
            fast = fast.min(start.elapsed());
        }
        let start = Instant::now();
        for (url, body) in &pages {
            let page = Page {
                url,
                status: 200,
                content_type: Some("text/html"),
                body,
            };
            std::hint::black_box(extract(&page, &request).ok());
        }
        full = full.min(start.elapsed());
    }
    let n = pages.len() as f64;
    println!("{} pages, best of {} rounds", pages.len(), rounds);
    if !extract_only {
        println!(
            "parse only (html5ever's tokenizer): {:.1} pages/s",
            n / parse.as_secs_f64()
        );
        println!(
            "parse only (the fast tokenizer):    {:.1} pages/s",
            n / fast.as_secs_f64()
        );
    }
    println!("extract:    {:.1} pages/s", n / full.as_secs_f64());
}
