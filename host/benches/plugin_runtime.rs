//! Plugin runtime figures, printed (nothing is asserted):
//!
//! - the latency of a whole plugin call through the public API (slot,
//!   blocking-thread hop, fresh instance, call, checks): median and p99 over
//!   many trivial calls, and the slot alone for comparison;
//! - extraction throughput over the product-pages dataset (pages/s, MB/s of
//!   HTML), the extractor as a plugin and the same extractor compiled
//!   natively: wall-clock, each page's best pass, and per CPU-second (the
//!   last two are less disturbed by other work on a shared machine).
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

    let plugin = runtime.block_on(async {
        for page in pages.iter().take(5) {
            let _ = plugins
                .extract(page.clone(), ExtractRequest::new("product"))
                .await;
        }
        let mut timed = Timed::start(pages.len());
        for _ in 0..PASSES {
            for (i, page) in pages.iter().enumerate() {
                // The copy is the bench's own (a caller hands over its page).
                let page = page.clone();
                let started = Instant::now();
                let _ = plugins.extract(page, ExtractRequest::new("product")).await;
                timed.page(i, started.elapsed());
            }
        }
        timed.stop()
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
    let mut timed = Timed::start(pages.len());
    for _ in 0..PASSES {
        for (i, page) in pages.iter().enumerate() {
            let started = Instant::now();
            native(page);
            timed.page(i, started.elapsed());
        }
    }
    let native = timed.stop();

    for (what, t) in [("plugin", &plugin), ("native", &native)] {
        let secs = t.wall.as_secs_f64();
        println!(
            "extraction, {what:>6}: {:8.1} pages/s {:8.2} MB/s (best pass per page: {:.1} pages/s; CPU: {:.1} pages per CPU-second)",
            n / secs,
            mb / secs,
            pages.len() as f64 / t.best().as_secs_f64(),
            n / t.cpu.as_secs_f64(),
        );
    }
    println!(
        "extraction, plugin/native time: {:.2}x (best pass per page: {:.2}x; CPU time: {:.2}x)",
        plugin.wall.as_secs_f64() / native.wall.as_secs_f64(),
        plugin.best().as_secs_f64() / native.best().as_secs_f64(),
        plugin.cpu.as_secs_f64() / native.cpu.as_secs_f64(),
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
        pages.push(Page {
            url,
            status: 200,
            content_type: Some("text/html".into()),
            body: read_page(&path)?,
        });
    }
    Ok(pages)
}

/// The times of a run over the dataset: wall-clock (the sum of the calls'
/// times), the process's CPU time (less disturbed than wall-clock by other
/// work on a shared machine), and each page's fastest pass.
struct Timed {
    cpu_started: Duration,
    best: Vec<Duration>,
    wall: Duration,
    cpu: Duration,
}

impl Timed {
    fn start(pages: usize) -> Timed {
        Timed {
            cpu_started: process_cpu_time(),
            best: vec![Duration::MAX; pages],
            wall: Duration::ZERO,
            cpu: Duration::ZERO,
        }
    }

    fn page(&mut self, i: usize, took: Duration) {
        self.best[i] = self.best[i].min(took);
        self.wall += took;
    }

    fn stop(mut self) -> Timed {
        self.cpu = process_cpu_time().saturating_sub(self.cpu_started);
        self
    }

    /// One pass over the dataset, each page at its fastest.
    fn best(&self) -> Duration {
        self.best.iter().sum()
    }
}

/// User + system time of this process (all threads), from /proc (Linux);
/// zero elsewhere.
fn process_cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (which is in parentheses): utime and
    // stime are the 12th and 13th, in clock ticks (100 per second on Linux).
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
