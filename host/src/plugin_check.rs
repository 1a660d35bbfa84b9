//! `fnhost plugin check FILE.wasm`: what a plugin author runs before
//! deploying a component. It says which world and contract version the
//! component implements, refuses what the host would refuse (not a
//! component, a forbidden import, no plugin world, too big), times its
//! compilation and instantiation, and makes a smoke call on a sample page;
//! the exit status is for CI.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::plugins::{ExtractRequest, Page, Plugins, Role};

/// The largest component the check accepts (the host loads larger ones,
/// but a plugin this size costs every node memory and start time).
pub const MAX_COMPONENT_BYTES: usize = 50 * 1024 * 1024;

/// What the check found.
#[derive(Debug, Serialize)]
pub struct Report {
    pub file: String,
    pub bytes: usize,
    /// planner, extractor, differ or source (once identified).
    pub role: Option<String>,
    /// The WIT world and contract version it implements.
    pub contract: Option<String>,
    /// Compiling and preparing the component, in ms.
    pub prepare_ms: Option<u64>,
    /// The smoke call on the sample page, in ms (instantiation included).
    pub call_ms: Option<u64>,
    /// What the smoke call returned, in short.
    pub smoke: Option<String>,
    /// Everything wrong, each a sentence; empty when the component passes.
    pub problems: Vec<String>,
    /// What may be fine but deserves a look (no record from the sample page).
    pub warnings: Vec<String>,
    pub ok: bool,
}

/// A small product page every extractor should read.
const SAMPLE_PRODUCT: &str = r#"<!DOCTYPE html><html lang="en"><head><title>Amber Lamp</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Amber Lamp","sku":"AL-1","offers":{"@type":"Offer","price":"49.00","priceCurrency":"USD","availability":"https://schema.org/InStock"}}</script>
</head><body><h1>Amber Lamp</h1><p class="price">$49.00</p></body></html>"#;

/// What to check a component against: the role it must play, and the
/// author's own sample page (else a built-in product page).
#[derive(Debug, Default)]
pub struct Expect {
    pub role: Option<Role>,
    pub page: Option<(String, String)>,
}

/// Check a component file.
pub async fn check(plugins: &Plugins, file: &Path, expect: &Expect) -> Report {
    let mut report = Report {
        file: file.display().to_string(),
        bytes: 0,
        role: None,
        contract: None,
        prepare_ms: None,
        call_ms: None,
        smoke: None,
        problems: Vec::new(),
        warnings: Vec::new(),
        ok: false,
    };
    let wasm = match std::fs::read(file) {
        Ok(w) => w,
        Err(e) => {
            report
                .problems
                .push(format!("cannot read {}: {e}", file.display()));
            return report;
        }
    };
    report.bytes = wasm.len();
    if wasm.len() > MAX_COMPONENT_BYTES {
        report.problems.push(format!(
            "the component is {} bytes, more than the {} a plugin may have",
            wasm.len(),
            MAX_COMPONENT_BYTES
        ));
        return report;
    }
    if !wasm.starts_with(b"\0asm") {
        report
            .problems
            .push("not a WebAssembly file (no \\0asm header)".into());
        return report;
    }
    let started = Instant::now();
    let identified = {
        let wasm = wasm.clone();
        let plugins = plugins.clone();
        tokio::task::spawn_blocking(move || plugins.identify(&wasm)).await
    };
    report.prepare_ms = Some(started.elapsed().as_millis() as u64);
    let (role, contract) = match identified {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => {
            report.problems.push(format!("{e:#}"));
            return report;
        }
        Err(e) => {
            report.problems.push(format!("the check failed: {e}"));
            return report;
        }
    };
    report.role = Some(role.to_string());
    report.contract = Some(contract.to_string());
    if let Some(want) = expect.role {
        if want != role {
            report.problems.push(format!(
                "the component implements the {role} world ({contract}), not the {want} world ({})",
                want.world()
            ));
        }
    }
    if role == Role::Extractor {
        smoke_extract(plugins, file, expect, &mut report).await;
    } else {
        report.smoke = Some(format!(
            "no smoke call for a {role}: only extractors are called on a sample page"
        ));
    }
    report.ok = report.problems.is_empty();
    report
}

async fn smoke_extract(plugins: &Plugins, file: &Path, expect: &Expect, report: &mut Report) {
    if let Err(e) = plugins.load_extractor_file(file) {
        report.problems.push(format!("{e:#}"));
        return;
    }
    let (url, body) = expect.page.clone().unwrap_or_else(|| {
        (
            "https://shop.example/lamps/amber.html".into(),
            SAMPLE_PRODUCT.into(),
        )
    });
    let page = Page {
        url,
        status: 200,
        content_type: Some("text/html; charset=utf-8".into()),
        body,
    };
    let request = ExtractRequest {
        entity: "lamp".into(),
        guidance: None,
        hints: serde_json::Value::Object(Default::default()),
    };
    let started = Instant::now();
    let result = plugins.extract(page, request).await;
    report.call_ms = Some(started.elapsed().as_millis() as u64);
    match result {
        Ok(x) => {
            report.smoke = Some(format!(
                "kind {:?}, {} record(s), {} link(s), {} next page(s)",
                x.kind,
                x.records.len(),
                x.links.len(),
                x.next_pages.len()
            ));
            if x.records.is_empty() {
                report.warnings.push(
                    "the smoke call returned no record from the sample page (pass your own with --page FILE --url URL)"
                        .into(),
                );
            }
        }
        Err(e) => report
            .problems
            .push(format!("the smoke call failed: {e} ({})", e.code())),
    }
}
