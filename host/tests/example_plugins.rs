//! The example plugins of `examples/plugins/`, installed into a plugins
//! directory the way an operator installs them (a folder each, with its
//! `plugin.toml` and its component) and run through the real runtime.
//!
//! The components are built by `cargo xtask test` (or `cargo xtask
//! plugins`) into `target/wasm32-wasip2/plugin/`.

use std::path::{Path, PathBuf};

use fnhost::plugins::{ExtractRequest, Extraction, LoadReport, Page, PluginConfig, Plugins, Role};
use serde_json::{json, Value};

/// A listing page in the markup both examples read: two products, one
/// product without a name, and a next page.
const LISTING: &str = r#"<!doctype html>
<html><head><title>Kettles</title></head><body>
<div class="product" data-sku="ES-1001">
  <a class="name" href="/products/es-1001">Trail   Kettle
    1.2 L</a>
  <span class="price" data-currency="eur">1,024.90</span>
  <span class="stock">In stock</span>
</div>
<div class="product" data-sku="ES-1002">
  <h2 class="name">Camp Mug &amp; Lid</h2><br><img src="mug.png"/>
  <a href="/products/es-1002">details</a>
  <span class="price" data-currency="EUR">7</span>
  <span class="stock">Sold out</span>
</div>
<div class="product" data-sku="ES-1003">
  <span class="price" data-currency="EUR">3.50</span>
</div>
<a rel="next" href="?page=2">Next</a>
</body></html>"#;

/// A product page of another site, marked up with schema.org JSON-LD, which
/// only the generic extractor reads.
const OTHER_SITE: &str = r#"<!doctype html>
<html><head><title>Tent</title>
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "Product", "name": "Ridge Tent 2P", "sku": "RT-2",
 "offers": {"@type": "Offer", "price": "189.00", "priceCurrency": "USD",
            "availability": "https://schema.org/InStock"}}
</script></head>
<body><h1>Ridge Tent 2P</h1><div class="product" data-sku="RT-2"><span class="name">Ridge Tent 2P</span></div></body></html>"#;

/// What both examples return for `LISTING` served from `site`.
fn expected_records(site: &str) -> Vec<Value> {
    vec![
        json!({
            "name": "Trail Kettle 1.2 L",
            "sku": "ES-1001",
            "url": format!("https://{site}/products/es-1001"),
            "price": "1024.90",
            "currency": "EUR",
            "availability": "InStock",
        }),
        json!({
            "name": "Camp Mug & Lid",
            "sku": "ES-1002",
            "url": format!("https://{site}/products/es-1002"),
            "price": "7",
            "currency": "EUR",
            "availability": "OutOfStock",
        }),
    ]
}

/// The workspace's target directory, found as host/build.rs finds it.
fn target_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        Some(dir) => workspace.join(dir),
        None => workspace.join("target"),
    }
}

fn built_component(file: &str) -> PathBuf {
    let path = target_dir().join("wasm32-wasip2/plugin").join(file);
    assert!(
        path.is_file(),
        "{} is missing: run `cargo xtask plugins` (or `cargo xtask test`)",
        path.display()
    );
    path
}

/// Installs an example as an operator would: `<plugins>/<folder>/` with
/// the example's own `plugin.toml` and its built component.
fn install(plugins: &Path, folder: &str, example: &str, component: &str) {
    let dir = plugins.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/plugins")
        .join(example)
        .join("plugin.toml");
    std::fs::copy(&manifest, dir.join("plugin.toml")).unwrap();
    std::fs::copy(built_component(component), dir.join(component)).unwrap();
}

fn install_rust(plugins: &Path) {
    install(
        plugins,
        "example-shop",
        "rust-extractor",
        "rust_extractor.wasm",
    );
}

fn install_python(plugins: &Path) {
    install(
        plugins,
        "example-market",
        "python-extractor",
        "python_extractor.wasm",
    );
}

fn install_js(plugins: &Path) {
    install(plugins, "example-mall", "js-extractor", "js_extractor.wasm");
}

/// Loads the runtime with the default limits and `plugins` as the plugins
/// directory, as `fnhost serve` does with `plugins.dir` set. The data
/// directory (only its compile cache is used) is shared by the tests and
/// kept between runs, so that each component is compiled once.
fn load(plugins: &Path) -> (Plugins, Vec<LoadReport>) {
    let config = PluginConfig {
        plugins_dir: Some(plugins.to_path_buf()),
        ..PluginConfig::default()
    };
    let data = target_dir().join("test-data/example-plugins");
    Plugins::load(&config, &data).expect("the runtime starts")
}

/// The report of the plugins directory's folder `folder`.
fn report_of<'a>(reports: &'a [LoadReport], folder: &str) -> &'a LoadReport {
    reports
        .iter()
        .find(|r| {
            Path::new(&r.source)
                .file_name()
                .is_some_and(|n| n == folder)
        })
        .unwrap_or_else(|| panic!("no report for {folder}: {reports:#?}"))
}

fn page(url: &str, body: &str) -> Page {
    Page {
        url: url.into(),
        status: 200,
        content_type: Some("text/html; charset=utf-8".into()),
        body: body.into(),
    }
}

async fn extract(plugins: &Plugins, url: &str, body: &str) -> Extraction {
    plugins
        .extract(page(url, body), ExtractRequest::new("product"))
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"))
}

fn records(extraction: &Extraction) -> Vec<Value> {
    extraction
        .records
        .iter()
        .cloned()
        .map(Value::Object)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn pages_of_their_sites_go_to_the_examples_and_others_to_the_generic_extractor() {
    let plugins = tempfile::tempdir().unwrap();
    install_rust(plugins.path());
    install_python(plugins.path());
    install_js(plugins.path());
    let (runtime, reports) = load(plugins.path());
    for (folder, name) in [
        ("example-shop", "example-shop-rust"),
        ("example-market", "example-market-python"),
        ("example-mall", "example-mall-js"),
    ] {
        let report = report_of(&reports, folder);
        let plugin = report
            .loaded()
            .unwrap_or_else(|| panic!("{folder} is not loaded: {report:#?}"));
        assert_eq!(plugin.name, name);
        assert_eq!(plugin.role, Role::Extractor);
        assert!(!plugin.builtin);
    }

    // The Rust example serves example-shop.test and its subdomains.
    let shop = extract(
        &runtime,
        "https://www.example-shop.test/catalog/kettles",
        LISTING,
    )
    .await;
    assert_eq!(shop.plugin, "example-shop-rust@0.1.0");
    assert_eq!(records(&shop), expected_records("www.example-shop.test"));
    assert!(
        !shop.complete,
        "a paginated listing with an unreadable product is partial"
    );
    assert_eq!(
        shop.links,
        ["https://www.example-shop.test/catalog/kettles?page=2"]
    );
    assert_eq!(
        shop.notes,
        ["example-shop", "skipped 1 products without a name"]
    );

    // The Python example serves example-market.test and reads the same
    // markup to the same records.
    let market = extract(
        &runtime,
        "https://example-market.test/catalog/kettles",
        LISTING,
    )
    .await;
    assert_eq!(market.plugin, "example-market-python@0.1.0");
    assert_eq!(records(&market), expected_records("example-market.test"));
    assert!(!market.complete);
    assert_eq!(
        market.links,
        ["https://example-market.test/catalog/kettles?page=2"]
    );
    assert_eq!(
        market.notes,
        ["example-market", "skipped 1 products without a name"]
    );

    // The JavaScript example (contract 0.2.0) reads the same markup to the
    // same records, and names the listing's next page as such.
    let mall = extract(
        &runtime,
        "https://example-mall.test/catalog/kettles",
        LISTING,
    )
    .await;
    assert_eq!(mall.plugin, "example-mall-js@0.1.0");
    assert_eq!(records(&mall), expected_records("example-mall.test"));
    assert!(!mall.complete);
    assert_eq!(mall.kind, fnhost::plugins::PageKind::Listing);
    assert_eq!(
        mall.next_pages,
        ["https://example-mall.test/catalog/kettles?page=2"]
    );
    assert_eq!(
        mall.notes,
        ["example-mall", "skipped 1 products without a name"]
    );

    // A last page without gaps is complete, in both languages.
    let last = r#"<div class="product" data-sku="A"><span class="name">A</span></div>"#;
    for url in [
        "https://example-shop.test/catalog?page=9",
        "https://example-market.test/catalog?page=9",
    ] {
        let found = extract(&runtime, url, last).await;
        assert!(found.complete, "{url}");
        assert_eq!(records(&found), [json!({"name": "A", "sku": "A"})], "{url}");
    }

    // Other sites, look-alike names included, go to the generic extractor.
    for url in [
        "https://outdoor-gear.example/tents/ridge-2p",
        "https://notexample-shop.test/tents/ridge-2p",
        "https://example-shop.test.outdoor-gear.example/tents/ridge-2p",
    ] {
        let other = extract(&runtime, url, OTHER_SITE).await;
        assert!(
            other.plugin.starts_with("fnhost-extractor@"),
            "{url}: {}",
            other.plugin
        );
        let first = &other.records[0];
        assert_eq!(first["name"], "Ridge Tent 2P", "{url}");
        assert_eq!(first["sku"], "RT-2", "{url}");
        assert_eq!(first["currency"], "USD", "{url}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_folder_with_a_broken_manifest_is_reported_and_skipped() {
    let plugins = tempfile::tempdir().unwrap();
    install_rust(plugins.path());
    // A second copy of the Rust example whose manifest names a role that
    // does not exist and claims another site.
    let broken = plugins.path().join("broken-shop");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::copy(
        built_component("rust_extractor.wasm"),
        broken.join("rust_extractor.wasm"),
    )
    .unwrap();
    std::fs::write(
        broken.join("plugin.toml"),
        "name = \"broken-shop\"\nversion = \"0.1.0\"\nrole = \"wizard\"\ndomains = [\"broken-shop.test\"]\n",
    )
    .unwrap();

    let (runtime, reports) = load(plugins.path());
    let reason = report_of(&reports, "broken-shop")
        .skipped()
        .expect("the broken plugin is skipped");
    assert!(
        reason.contains("bad manifest") && reason.contains("wizard"),
        "the reason names the fault: {reason}"
    );
    assert!(
        report_of(&reports, "example-shop").loaded().is_some(),
        "{reports:#?}"
    );
    assert!(runtime.list().iter().all(|p| p.name != "broken-shop"));

    // The broken plugin serves nothing; the good one still does.
    let skipped = extract(&runtime, "https://broken-shop.test/catalog", OTHER_SITE).await;
    assert!(
        skipped.plugin.starts_with("fnhost-extractor@"),
        "{}",
        skipped.plugin
    );
    let shop = extract(
        &runtime,
        "https://example-shop.test/catalog/kettles",
        LISTING,
    )
    .await;
    assert_eq!(shop.plugin, "example-shop-rust@0.1.0");
    assert_eq!(records(&shop), expected_records("example-shop.test"));
}
