//! Large pages, natively: the time per page of the pages of at least
//! `--min-bytes` (p50, p99, max over every page and round), and the time and
//! peak memory of one synthetic page of `--synthetic-mb` MB.
//!
//! usage: large [--min-bytes N] [--rounds N] DIR...
//!        large --synthetic-mb N [--write FILE]
//!
//! DIR holds urls.json and pages/<id>.html[.gz] (a dataset folder). The
//! synthetic page is a listing page as shops write them: a style sheet (a
//! tenth), a large inline state script (four tenths), navigation, then
//! product cards with names, links, images, prices and a description (about
//! 3,000 cards in 10 MB, under the host's bound of 10,000 records a call);
//! `--write FILE` also saves it (for timing the component on the same page). Peak memory is the
//! process's high-water mark of resident memory (VmHWM, Linux), read after
//! the extraction; the process holds nothing else of size.

use fnhost_extractor::{extract, Page, Request};
use std::io::Read;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut min_bytes = 1_000_000usize;
    let mut rounds = 5usize;
    let mut synthetic_mb: Option<usize> = None;
    let mut write: Option<String> = None;
    let mut dirs = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().expect("a value after the option");
        match a.as_str() {
            "--min-bytes" => min_bytes = value().parse().expect("a number"),
            "--rounds" => rounds = value().parse().expect("a number"),
            "--synthetic-mb" => synthetic_mb = Some(value().parse().expect("a number")),
            "--write" => write = Some(value()),
            _ => dirs.push(a),
        }
    }
    let hints = serde_json::json!({});
    let request = Request {
        entity: "product",
        guidance: None,
        hints: &hints,
    };
    if let Some(mb) = synthetic_mb {
        let body = synthetic_page(mb * 1_000_000);
        if let Some(path) = &write {
            std::fs::write(path, &body).expect("write the synthetic page");
        }
        let before = peak_rss_kib();
        let page = Page {
            url: "https://shop.example/c/everything?page=1",
            status: 200,
            content_type: Some("text/html"),
            body: &body,
        };
        let started = Instant::now();
        let found = extract(&page, &request).expect("extract");
        let took = started.elapsed();
        let after = peak_rss_kib();
        println!(
            "synthetic page: {:.1} MB, {} records, {:.0} ms, peak RSS {} (before the extraction {})",
            body.len() as f64 / 1e6,
            found.records.len(),
            took.as_secs_f64() * 1e3,
            mib(after),
            mib(before),
        );
        return;
    }
    let mut pages = Vec::new();
    for dir in &dirs {
        for (url, body) in read_dir(dir) {
            if body.len() >= min_bytes {
                pages.push((url, body));
            }
        }
    }
    if pages.is_empty() {
        println!("no page of at least {min_bytes} bytes");
        return;
    }
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..rounds {
        for (url, body) in &pages {
            let page = Page {
                url,
                status: 200,
                content_type: Some("text/html"),
                body,
            };
            let started = Instant::now();
            std::hint::black_box(extract(&page, &request).ok());
            times.push(started.elapsed());
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let mb: f64 = pages.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1e6;
    println!(
        "pages of at least {:.1} MB: {} pages ({:.1} MB of HTML), {} rounds: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms per page",
        min_bytes as f64 / 1e6,
        pages.len(),
        mb,
        rounds,
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        times.last().unwrap().as_secs_f64() * 1e3,
    );
}

/// A dataset folder's pages: (url, HTML), ids without a saved page skipped.
fn read_dir(dir: &str) -> Vec<(String, String)> {
    let urls: serde_json::Map<String, serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{dir}/urls.json")).expect("urls.json"),
    )
    .expect("json");
    let mut out = Vec::new();
    for (id, url) in &urls {
        let bytes = match std::fs::read(format!("{dir}/pages/{id}.html")) {
            Ok(b) => b,
            Err(_) => {
                let Ok(f) = std::fs::File::open(format!("{dir}/pages/{id}.html.gz")) else {
                    continue;
                };
                let mut b = Vec::new();
                flate2::read::GzDecoder::new(f)
                    .read_to_end(&mut b)
                    .expect("gunzip");
                b
            }
        };
        out.push((
            url.as_str().unwrap_or("").to_string(),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    out
}

/// A listing page of about `size` bytes: a tenth style sheet, four tenths
/// inline state script, the rest product cards.
fn synthetic_page(size: usize) -> String {
    let mut s = String::with_capacity(size + 4096);
    s.push_str(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Everything | Shop</title>\
         <meta property=\"og:title\" content=\"Everything\">\
         <link rel=\"next\" href=\"/c/everything?page=2\"><style>",
    );
    let mut i = 0;
    while s.len() < size / 10 {
        s.push_str(&format!(
            ".c{i}{{margin:0 {i}px;padding:2px;color:#{:06x}}}\n",
            i * 7919 % 0xffffff
        ));
        i += 1;
    }
    s.push_str("</style><script>window.__STATE__={\"items\":[");
    let mut i = 0;
    let script_end = s.len() + size * 4 / 10;
    while s.len() < script_end {
        s.push_str(&format!(
            "{{\"id\":{i},\"title\":\"Item {i}\",\"tags\":[\"a\",\"b\"],\"score\":{}}},",
            i % 97
        ));
        i += 1;
    }
    s.push_str("{}]};</script></head><body><header><nav>");
    for c in 0..40 {
        s.push_str(&format!("<a href=\"/c/category-{c}\">Category {c}</a> "));
    }
    s.push_str("</nav></header><main><h1>Everything</h1><ul class=\"product-grid\">");
    let mut n = 0;
    while s.len() < size {
        let cents = 199 + (n * 37) % 9800;
        s.push_str(&format!(
            "<li class=\"product-card\" data-product-id=\"{n}\">\
             <a class=\"product-link\" href=\"/p/item-{n}\"><img src=\"/img/{n}.jpg\" alt=\"Item {n}\" loading=\"lazy\"></a>\
             <h3 class=\"product-title\"><a href=\"/p/item-{n}\">Garden chair model {n}</a></h3>\
             <div class=\"rating\" aria-label=\"4.5 out of 5\">★★★★☆ <span>({})</span></div>\
             <div class=\"price-box\"><span class=\"price\">${}.{:02}</span></div>\
             <p class=\"description\">{}</p>\
             <button class=\"add-to-cart\" type=\"button\">Add to cart</button></li>\n",
            n % 300,
            cents / 100,
            cents % 100,
            DESCRIPTION
        ));
        n += 1;
    }
    s.push_str(
        "</ul><nav class=\"pagination\"><a href=\"/c/everything?page=2\">2</a>\
         <a href=\"/c/everything?page=2\" rel=\"next\">Next</a></nav></main>\
         <footer><a href=\"/about\">About</a></footer></body></html>",
    );
    s
}

/// A card's description (about 1 KB).
const DESCRIPTION: &str = "A folding garden chair of powder-coated steel with a weatherproof \
    woven seat and back, armrests of oiled acacia wood and plastic feet that keep the frame off wet \
    ground. It folds flat to 9 cm for the shed or the car boot, carries up to 120 kg and needs no \
    tools to set up. The seat fabric is UV-stabilised polyester that dries quickly after rain and \
    can be wiped clean with a damp cloth and mild soap. Sold singly; the matching table and the \
    seat cushions are sold separately. Dimensions unfolded: 56 cm wide, 62 cm deep, 88 cm high, \
    seat height 45 cm. Weight 4.2 kg. Colours: anthracite, sage, sand and white. Assembly: none. \
    Care: store folded and dry over winter; oil the armrests once a year. Warranty: two years on \
    the frame, one year on the fabric. Delivered in recyclable cardboard packaging without \
    plastic film. Free returns within 30 days when the chair is unused and in its packaging.";

/// The process's peak resident memory in KiB (VmHWM), 0 where unknown.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn mib(kib: u64) -> String {
    if kib == 0 {
        "unknown".into()
    } else {
        format!("{:.0} MiB", kib as f64 / 1024.0)
    }
}
