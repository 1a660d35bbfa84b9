//! Plugin runtime figures, printed (nothing is asserted):
//!
//! - the latency of a whole plugin call through the public API (slot,
//!   blocking-thread hop, fresh instance, call, checks): median and p99 over
//!   many trivial calls;
//! - extraction throughput over the product-pages dataset (pages/s, MB/s of
//!   HTML), the extractor as a plugin and the same extractor compiled
//!   natively.
//!
//! `cargo bench -p fnhost --bench plugin_runtime` (after `cargo xtask
//! plugins`). FNHOST_DATASET overrides the dataset folder.
//! Targets: plugin extraction within 2x of native; instantiate + call under
//! 100 µs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fnhost::extract_cmd::read_page;
use fnhost::plugins::{ExtractRequest, Page, PluginConfig, Plugins};

const LATENCY_CALLS: usize = 2000;
const PASSES: usize = 3;

fn main() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let data_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-bench-data");
    let started = Instant::now();
    let (plugins, _) = Plugins::load(&PluginConfig::default(), &data_dir)?;
    println!(
        "load (built-ins, cache warm after the first run): {:.1} ms",
        ms(started.elapsed())
    );

    runtime.block_on(async {
        latency("differ, empty input", LATENCY_CALLS, || async {
            plugins.diff(vec![], vec![]).await.expect("diff");
        })
        .await;
        latency("planner, short query", LATENCY_CALLS, || async {
            plugins
                .estimate("tents under $200 from outdoor-gear.example")
                .await
                .expect("estimate");
        })
        .await;
    });

    let pages = dataset()?;
    let bytes: usize = pages.iter().map(|p| p.body.len()).sum();
    let mb = (bytes * PASSES) as f64 / 1e6;
    let n = (pages.len() * PASSES) as f64;
    println!(
        "dataset: {} pages, {:.1} MB of HTML, {PASSES} passes",
        pages.len(),
        bytes as f64 / 1e6
    );

    let plugin_time = runtime.block_on(async {
        for page in pages.iter().take(5) {
            let _ = plugins
                .extract(page.clone(), ExtractRequest::new("product"))
                .await;
        }
        let started = Instant::now();
        for _ in 0..PASSES {
            for page in &pages {
                let _ = plugins
                    .extract(page.clone(), ExtractRequest::new("product"))
                    .await;
            }
        }
        started.elapsed()
    });

    let hints = serde_json::json!({});
    let native = |page: &Page| {
        let page = fnhost_extractor::Page {
            url: &page.url,
            status: page.status,
            content_type: page.content_type.as_deref(),
            body: &page.body,
        };
        let request = fnhost_extractor::Request {
            entity: "product",
            guidance: None,
            hints: &hints,
        };
        let _ = std::hint::black_box(fnhost_extractor::extract(&page, &request));
    };
    pages.iter().take(5).for_each(native);
    let started = Instant::now();
    for _ in 0..PASSES {
        pages.iter().for_each(native);
    }
    let native_time = started.elapsed();

    for (what, time) in [("plugin", plugin_time), ("native", native_time)] {
        let secs = time.as_secs_f64();
        println!(
            "extraction, {what:>6}: {:8.1} pages/s {:8.2} MB/s",
            n / secs,
            mb / secs
        );
    }
    println!(
        "extraction, plugin/native time: {:.2}x",
        plugin_time.as_secs_f64() / native_time.as_secs_f64()
    );
    Ok(())
}

/// Runs `call` `calls` times, one at a time, and prints median and p99.
async fn latency<F, Fut>(what: &str, calls: usize, call: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..50 {
        call().await;
    }
    let mut times: Vec<Duration> = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        call().await;
        times.push(started.elapsed());
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "instantiate + call, {what}: median {:.1} µs, p99 {:.1} µs ({calls} calls)",
        us(at(0.5)),
        us(at(0.99))
    );
}

fn dataset() -> anyhow::Result<Vec<Page>> {
    let dir = std::env::var_os("FNHOST_DATASET")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/datasets/product-pages")
        });
    let urls: std::collections::BTreeMap<String, String> =
        serde_json::from_slice(&std::fs::read(dir.join("urls.json"))?)?;
    let mut pages = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir.join("pages"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    for path in paths {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Some(id) = name
            .strip_suffix(".html.gz")
            .or_else(|| name.strip_suffix(".html"))
        else {
            continue;
        };
        let url = urls.get(id).cloned().unwrap_or_default();
        pages.push(Page {
            url,
            status: 200,
            content_type: Some("text/html".into()),
            body: read_page(&path)?,
        });
    }
    Ok(pages)
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
