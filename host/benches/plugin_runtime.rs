//! Plugin runtime figures, printed (nothing is asserted):
//!
//! - the latency of a whole plugin call through the public API (slot,
//!   blocking-thread hop, fresh instance, call, checks): median and p99 over
//!   many trivial calls, and the slot alone for comparison;
//! - extraction throughput over the product-pages dataset (pages/s, MB/s of
//!   HTML), the extractor as a plugin and the same extractor compiled
//!   natively, each page through both in turn: wall-clock and each page's
//!   best pass (less disturbed by other work on a shared machine).
//!
//! `cargo bench -p fnhost --bench plugin_runtime [-- latency|extraction]`
//! (after `cargo xtask plugins`). FNHOST_DATASET overrides the dataset
//! folder; FNHOST_BENCH_EXTRACTOR=FILE.wasm measures that extractor component
//! instead of the built-in one (no host rebuild needed to compare builds).
//! Targets: plugin extraction within 2x of native; instantiate + call under
//! 100 µs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fnhost::extract_cmd::read_page;
use fnhost::plugins::{ExtractRequest, Page, PluginConfig, Plugins};

const LATENCY_CALLS: usize = 2000;
const PASSES: usize = 3;
/// A product page of the fixture site that test-mode sessions replay.
const FIXTURE_PAGE: &str = "https://outdoor-gear.example/tents/summit-2p.html";

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

    if let Some(path) = std::env::var_os("FNHOST_BENCH_EXTRACTOR") {
        let info = plugins.load_extractor_file(Path::new(&path))?;
        println!(
            "extractor: {} ({})",
            path.to_string_lossy(),
            &info.sha256[..12]
        );
    }

    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |part: &str| only.is_empty() || only.iter().any(|o| o == part);
    if run("latency") {
        runtime.block_on(async {
            // What a call costs besides the plugin: the slot, and running in
            // place (as `Plugins` does on a multi-thread runtime).
            let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(64));
            latency(
                "slot + block_in_place alone (no plugin)",
                LATENCY_CALLS,
                || async {
                    let permit =
                        tokio::time::timeout(Duration::from_secs(5), slots.clone().acquire_owned())
                            .await
                            .unwrap()
                            .unwrap();
                    tokio::task::block_in_place(move || drop(permit));
                },
            )
            .await;
            latency(
                "instantiate + call, differ, empty input",
                LATENCY_CALLS,
                || async {
                    plugins.diff(vec![], vec![]).await.expect("diff");
                },
            )
            .await;
            latency(
                "instantiate + call, planner, short query",
                LATENCY_CALLS,
                || async {
                    plugins
                        .estimate("tents under $200 from outdoor-gear.example")
                        .await
                        .expect("estimate");
                },
            )
            .await;
            // The calls a test-mode session makes for each page: the replay
            // of a recorded fixture page, then its extraction.
            latency(
                "instantiate + call, replay, one fixture page",
                LATENCY_CALLS,
                || async {
                    plugins
                        .replay(FIXTURE_PAGE)
                        .await
                        .expect("replay")
                        .expect("a recorded page");
                },
            )
            .await;
            let page = plugins
                .replay(FIXTURE_PAGE)
                .await
                .expect("replay")
                .expect("a recorded page");
            latency(
                "instantiate + call, extractor, one fixture page (1 KB)",
                LATENCY_CALLS,
                || async {
                    plugins
                        .extract(page.clone(), ExtractRequest::new("product"))
                        .await
                        .expect("extract");
                },
            )
            .await;
        });
    }
    if !run("extraction") {
        return Ok(());
    }

    let pages = dataset()?;
    let bytes: usize = pages.iter().map(|p| p.body.len()).sum();
    let mb = (bytes * PASSES) as f64 / 1e6;
    let n = (pages.len() * PASSES) as f64;
    println!(
        "dataset: {} pages, {:.1} MB of HTML, {PASSES} passes",
        pages.len(),
        bytes as f64 / 1e6
    );

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
    // Each page through the plugin, then natively, page after page: both
    // meet the same moments of a shared machine's load.
    let (plugin, native) = runtime.block_on(async {
        for page in pages.iter().take(5) {
            let _ = plugins
                .extract(page.clone(), ExtractRequest::new("product"))
                .await;
            native(page);
        }
        let mut plugin = Timed::start(pages.len());
        let mut native_timed = Timed::start(pages.len());
        for _ in 0..PASSES {
            for (i, page) in pages.iter().enumerate() {
                // The copy is the bench's own (a caller hands over its page).
                let copy = page.clone();
                let started = Instant::now();
                let _ = plugins.extract(copy, ExtractRequest::new("product")).await;
                plugin.page(i, started.elapsed());
                let started = Instant::now();
                native(page);
                native_timed.page(i, started.elapsed());
            }
        }
        (plugin, native_timed)
    });

    for (what, t) in [("plugin", &plugin), ("native", &native)] {
        let secs = t.wall.as_secs_f64();
        println!(
            "extraction, {what:>6}: {:8.1} pages/s {:8.2} MB/s (best pass per page: {:.1} pages/s)",
            n / secs,
            mb / secs,
            pages.len() as f64 / t.best().as_secs_f64(),
        );
    }
    println!(
        "extraction, plugin/native time: {:.2}x (best pass per page: {:.2}x), pages interleaved",
        plugin.wall.as_secs_f64() / native.wall.as_secs_f64(),
        plugin.best().as_secs_f64() / native.best().as_secs_f64(),
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
        "{what}: median {:.1} µs, p99 {:.1} µs ({calls} calls)",
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
        let body = read_page(&path, Some(&url))?;
        pages.push(Page {
            url,
            status: 200,
            content_type: Some("text/html".into()),
            body,
        });
    }
    Ok(pages)
}

/// The times of a run over the dataset: wall-clock (the sum of the calls'
/// times) and each page's fastest pass.
struct Timed {
    best: Vec<Duration>,
    wall: Duration,
}

impl Timed {
    fn start(pages: usize) -> Timed {
        Timed {
            best: vec![Duration::MAX; pages],
            wall: Duration::ZERO,
        }
    }

    fn page(&mut self, i: usize, took: Duration) {
        self.best[i] = self.best[i].min(took);
        self.wall += took;
    }

    /// One pass over the dataset, each page at its fastest.
    fn best(&self) -> Duration {
        self.best.iter().sum()
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
