//! Run the extractor natively over a dataset folder and write a prediction
//! file for `product-f1`.
//!
//! usage: predict --dir DATASET_DIR --out PRED.json [--list]
//! DATASET_DIR holds urls.json (id -> URL) and pages/<id>.html or .html.gz.
//! With --list the file holds each page's kind and all its records (name,
//! price, currency, url, availability), the input of the listing scorer.

use fnhost_extractor::{extract, Page, Request};
use serde_json::{json, Map, Value};
use std::io::Read;
use std::path::Path;
use std::time::Instant;

fn read_page(dir: &Path, id: &str) -> Result<String, String> {
    let plain = dir.join("pages").join(format!("{id}.html"));
    let gz = dir.join("pages").join(format!("{id}.html.gz"));
    let bytes = if plain.exists() {
        std::fs::read(&plain).map_err(|e| format!("{}: {e}", plain.display()))?
    } else {
        let f = std::fs::File::open(&gz).map_err(|e| format!("{}: {e}", gz.display()))?;
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(f)
            .read_to_end(&mut out)
            .map_err(|e| format!("{}: {e}", gz.display()))?;
        out
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let (Some(dir), Some(out)) = (arg("--dir"), arg("--out")) else {
        eprintln!("usage: predict --dir DATASET_DIR --out PRED.json [--list]");
        std::process::exit(2);
    };
    let dir = Path::new(&dir);
    let urls: Map<String, Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("urls.json")).expect("read urls.json"),
    )
    .expect("parse urls.json");
    let show = arg("--show");
    let print_notes = args.iter().any(|a| a == "--notes");
    let list_mode = args.iter().any(|a| a == "--list");
    let hints = json!({});
    let request = Request {
        entity: "product",
        guidance: None,
        hints: &hints,
    };
    let mut preds = Map::new();
    let mut total = std::time::Duration::ZERO;
    let mut ids: Vec<&String> = urls.keys().collect();
    ids.sort();
    for id in ids {
        let url = urls[id].as_str().unwrap_or("");
        let body = match read_page(dir, id) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let page = Page {
            url,
            status: 200,
            content_type: Some("text/html"),
            body: &body,
        };
        let start = Instant::now();
        let found = extract(&page, &request);
        total += start.elapsed();
        if let (true, Ok(x)) = (print_notes, &found) {
            eprintln!(
                "{} {} records={} {:?}",
                &id[..8.min(id.len())],
                url,
                x.records.len(),
                x.notes
            );
        }
        if let (Some(prefix), Ok(x)) = (&show, &found) {
            if id.starts_with(prefix.as_str()) {
                for r in &x.records {
                    eprintln!("record {}", Value::Object(r.to_json()));
                }
                eprintln!("complete {} notes {:?}", x.complete, x.notes);
                eprintln!(
                    "links {} {:?}",
                    x.links.len(),
                    x.links.iter().take(5).collect::<Vec<_>>()
                );
            }
        }
        if list_mode {
            let (kind, records) = match &found {
                Ok(x) => (
                    Value::String(x.kind.as_str().to_string()),
                    x.records
                        .iter()
                        .map(|r| {
                            let mut p = Map::new();
                            for k in ["name", "price", "currency", "url", "availability"] {
                                p.insert(
                                    k.to_string(),
                                    r.value(k).map_or(Value::Null, |v| Value::String(v.into())),
                                );
                            }
                            Value::Object(p)
                        })
                        .collect(),
                ),
                Err(e) => {
                    eprintln!("{id}: {e}");
                    (Value::Null, Vec::new())
                }
            };
            preds.insert(
                id.clone(),
                json!({"kind": kind, "records": Value::Array(records)}),
            );
            continue;
        }
        let rec = match &found {
            Ok(x) => x.records.first().map(|r| r.to_json()).unwrap_or_default(),
            Err(e) => {
                eprintln!("{id}: {e}");
                Map::new()
            }
        };
        let mut p = Map::new();
        for k in [
            "price",
            "currency",
            "sku",
            "availability",
            "brand",
            "mpn",
            "gtin",
        ] {
            p.insert(k.to_string(), rec.get(k).cloned().unwrap_or(Value::Null));
        }
        preds.insert(id.clone(), Value::Object(p));
    }
    let n = preds.len();
    std::fs::write(
        &out,
        serde_json::to_string_pretty(&Value::Object(preds)).unwrap(),
    )
    .expect("write predictions");
    eprintln!(
        "{} pages in {:.2}s ({:.1} pages/s)",
        n,
        total.as_secs_f64(),
        n as f64 / total.as_secs_f64().max(1e-9)
    );
}
