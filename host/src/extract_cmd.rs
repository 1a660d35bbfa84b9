//! `fnhost extract --dir DIR --out FILE`: runs the extractor plugin over a
//! folder of saved pages and writes one prediction per page.
//!
//! DIR holds `pages/<id>.html` or `pages/<id>.html.gz` and `urls.json`
//! (`{id: url}`). The output maps every page id to `{price, currency, sku,
//! availability, brand, mpn, gtin}` taken from the extraction's first record
//! (a product page's main product, by convention), `null` where absent, the
//! shape `product-f1` scores. With `--list` it maps every page id to
//! `{kind, records}`: the page's kind (`product`, `listing`, `other`) and
//! every record it yields, each with [`LIST_ATTRIBUTES`] (`null` where absent).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use futures::stream::{self, StreamExt};
use serde_json::{Map, Value};

use crate::plugins::{ExtractRequest, Page, Plugins};

/// The attributes written for each page, in order.
pub const ATTRIBUTES: [&str; 7] = [
    "price",
    "currency",
    "sku",
    "availability",
    "brand",
    "mpn",
    "gtin",
];

/// The attributes of each record written with `--list`, in order.
pub const LIST_ATTRIBUTES: [&str; 5] = ["name", "price", "currency", "url", "availability"];

/// What is written for each page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The first record's scored attributes.
    MainProduct,
    /// The page kind and every record.
    List,
}

/// Pages extracted at once, each in a task of its own (a plugin call runs
/// in place on its worker thread, so pages polled by one task would take
/// turns on one core). On one core (`taskset -c 0`), one: a second call
/// only takes turns with the first, each in a slot of its own whose memory
/// is faulted in afresh and evicts the other's from the cache (7-8 % more
/// time on the larger listing sets). On several, two per core: the next
/// pages are read and their calls started while others run (on two cores,
/// the product pages took 300 ms with two at once, 265 with three, 255 with
/// four).
pub fn concurrency() -> usize {
    match std::thread::available_parallelism().map_or(2, |n| n.get()) {
        1 => 1,
        n => n * 2,
    }
}

/// Extracts every page of `dir` and writes the predictions to `out`.
pub async fn run(plugins: &Plugins, dir: &Path, out: &Path, shape: Shape) -> anyhow::Result<()> {
    let urls_path = dir.join("urls.json");
    let urls: BTreeMap<String, String> = serde_json::from_slice(
        &std::fs::read(&urls_path)
            .with_context(|| format!("failed to read {}", urls_path.display()))?,
    )
    .with_context(|| format!("failed to parse {}", urls_path.display()))?;
    let pages = list_pages(&dir.join("pages"))?;

    let started = Instant::now();
    let bytes: usize = pages
        .iter()
        .filter_map(|(_, path)| path.metadata().ok())
        .map(|m| m.len() as usize)
        .sum();
    let results: Vec<(String, anyhow::Result<Value>)> = stream::iter(pages)
        .map(|(id, path)| {
            let url = urls.get(&id).cloned();
            let plugins = plugins.clone();
            async move {
                let task = tokio::spawn(async move { predict(&plugins, &path, url, shape).await });
                let row = task
                    .await
                    .unwrap_or_else(|e| Err(anyhow::anyhow!("the extraction task failed: {e}")));
                (id, row)
            }
        })
        .buffer_unordered(concurrency())
        .collect()
        .await;

    let mut predictions = BTreeMap::new();
    let mut failed = 0;
    for (id, row) in results {
        let row = row.unwrap_or_else(|e| {
            failed += 1;
            eprintln!("page {id}: extraction failed: {e:#}");
            match shape {
                Shape::MainProduct => empty_row(),
                Shape::List => list_prediction("other", Vec::new()),
            }
        });
        predictions.insert(id, row);
    }
    let json = serde_json::to_vec_pretty(&predictions)?;
    std::fs::write(out, json).with_context(|| format!("failed to write {}", out.display()))?;
    eprintln!(
        "extracted {} pages ({} failed, {:.1} MB on disk) in {:.2}s -> {}",
        predictions.len(),
        failed,
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

/// `(id, path)` of every `*.html` and `*.html.gz` file, sorted by id.
fn list_pages(dir: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("failed to read {}", dir.display()))?;
    let mut pages: Vec<(String, PathBuf)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?;
            let id = name
                .strip_suffix(".html.gz")
                .or_else(|| name.strip_suffix(".html"))?;
            Some((id.to_owned(), path.clone()))
        })
        .collect();
    pages.sort();
    Ok(pages)
}

/// The size a gzip file says its content has (its last four bytes, the
/// size modulo 2^32 of its last member), bounded by what any compression
/// ratio makes plausible: the buffer is allocated once instead of doubling.
fn gzip_size_hint(gz: &[u8]) -> usize {
    let Some(tail) = gz.len().checked_sub(4).map(|at| &gz[at..]) else {
        return 0;
    };
    let size = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]) as usize;
    size.min(gz.len().saturating_mul(64))
}

/// The content of a gzip file: by libdeflate in one call into a buffer of
/// the size the file states (5.0 % of `fnhost extract` over the product
/// pages, against 6.4 % for zlib-rs's stream), else (several members, a
/// size past 4 GiB) by a stream.
fn gunzip(gz: &[u8]) -> std::io::Result<Vec<u8>> {
    let size = gzip_size_hint(gz);
    let mut out = vec![0; size];
    let mut whole = libdeflater::Decompressor::new();
    if let Ok(n) = whole.gzip_decompress(gz, &mut out) {
        if n == size {
            return Ok(out);
        }
    }
    out.clear();
    flate2::read::GzDecoder::new(gz).read_to_end(&mut out)?;
    Ok(out)
}

/// Reads a saved page, decompressing `.gz`, as text in the character set
/// it declares (see `fetch::decode`: when it declares none, UTF-8 or the
/// guess of a browser at `url`).
pub fn read_page(path: &Path, url: Option<&str>) -> anyhow::Result<String> {
    let raw = std::fs::read(path).with_context(|| format!("failed to read {}", path.display()))?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        gunzip(&raw).with_context(|| format!("failed to decompress {}", path.display()))?
    } else {
        raw
    };
    let host = url
        .and_then(|u| url::Url::parse(u).ok())
        .and_then(|u| u.host_str().map(str::to_string));
    Ok(crate::fetch::decode::decode_at(
        bytes,
        None,
        host.as_deref(),
    ))
}

async fn predict(
    plugins: &Plugins,
    path: &Path,
    url: Option<String>,
    shape: Shape,
) -> anyhow::Result<Value> {
    let body = read_page(path, url.as_deref())?;
    let url = url.unwrap_or_default();
    let page = Page {
        url,
        status: 200,
        content_type: Some("text/html; charset=utf-8".into()),
        body,
    };
    let extraction = plugins
        .extract(page, ExtractRequest::new("product"))
        .await?;
    if shape == Shape::List {
        let records: Vec<Value> = extraction
            .records
            .iter()
            .map(|r| row_of(r, &LIST_ATTRIBUTES))
            .collect();
        return Ok(list_prediction(extraction.kind.as_str(), records));
    }
    Ok(extraction
        .records
        .first()
        .map(row)
        .unwrap_or_else(empty_row))
}

fn empty_row() -> Value {
    Value::Object(
        ATTRIBUTES
            .iter()
            .map(|a| (a.to_string(), Value::Null))
            .collect(),
    )
}

/// The scored attributes of a record, each a string or null.
fn row(record: &Map<String, Value>) -> Value {
    row_of(record, &ATTRIBUTES)
}

/// `attributes` of a record, each a string or null.
fn row_of(record: &Map<String, Value>, attributes: &[&str]) -> Value {
    let mut out = Map::new();
    for &attribute in attributes {
        let value = record
            .get(attribute)
            .and_then(scalar)
            .map(|v| match attribute {
                "availability" => schema_org_name(&v),
                _ => v,
            });
        out.insert(
            attribute.to_owned(),
            value.map_or(Value::Null, Value::String),
        );
    }
    Value::Object(out)
}

/// A string, a number as written, or an object's `name` (schema.org brands
/// are often `{"@type": "Brand", "name": ...}`).
fn scalar(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        Value::Object(o) => return o.get("name").and_then(scalar),
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

/// `https://schema.org/InStock` → `InStock`.
fn schema_org_name(value: &str) -> String {
    let trimmed = value.trim_end_matches('/');
    match trimmed.rsplit_once('/') {
        Some((prefix, name)) if prefix.contains("schema.org") => name.to_owned(),
        _ => trimmed.to_owned(),
    }
}

/// A listing page's prediction as the list scorers read it.
fn list_prediction(kind: &str, records: Vec<Value>) -> Value {
    #[derive(serde::Serialize)]
    struct ListPrediction<'a> {
        kind: &'a str,
        records: Vec<Value>,
    }
    serde_json::to_value(ListPrediction { kind, records }).expect("a prediction is plain JSON")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_take_scalars_and_null_the_rest() {
        let record = json!({
            "price": "12.50", "currency": "EUR", "sku": 1234, "brand": {"@type": "Brand", "name": "Acme"},
            "availability": "https://schema.org/InStock", "gtin": "", "mpn": ["x"]
        });
        let got = row(record.as_object().unwrap());
        assert_eq!(
            got,
            json!({"price": "12.50", "currency": "EUR", "sku": "1234", "availability": "InStock",
                   "brand": "Acme", "mpn": null, "gtin": null})
        );
    }
}
