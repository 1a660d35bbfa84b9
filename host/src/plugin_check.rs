//! `fnhost plugin check FILE.wasm`: what a plugin author runs before
//! deploying a component. It says which world and contract version the
//! component implements, refuses what the host would refuse (not a
//! component, a forbidden import, no plugin world, too big), times its
//! compilation and instantiation, and makes a smoke call on a sample page;
//! the exit status is for CI.

use std::path::{Path, PathBuf};
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
    /// What it exports (interfaces and functions).
    pub exports: Vec<String>,
    /// The manifest checked with it (`--manifest`), as the host reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest: Option<ManifestSummary>,
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

/// A `plugin.toml` as the host reads it.
#[derive(Debug, Serialize)]
pub struct ManifestSummary {
    pub name: String,
    pub version: String,
    pub role: String,
    pub domains: Vec<String>,
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
    /// The plugin's `plugin.toml`, checked as the host would load it.
    pub manifest: Option<std::path::PathBuf>,
}

/// Check a component file.
pub async fn check(plugins: &Plugins, file: &Path, expect: &Expect) -> Report {
    let mut report = Report {
        file: file.display().to_string(),
        bytes: 0,
        role: None,
        contract: None,
        exports: Vec::new(),
        manifest: None,
        prepare_ms: None,
        call_ms: None,
        smoke: None,
        problems: Vec::new(),
        warnings: Vec::new(),
        ok: false,
    };
    let mut manifest_role = None;
    if let Some(path) = &expect.manifest {
        match read_manifest(path, file) {
            Ok((summary, role, warnings)) => {
                manifest_role = Some(role);
                report.warnings.extend(warnings);
                report.manifest = Some(summary);
            }
            Err(e) => report
                .problems
                .push(format!("the manifest {}: {e:#}", path.display())),
        }
    }
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
    match plugins.exports_of(&wasm) {
        Ok(names) => report.exports = names,
        Err(e) => report.problems.push(format!("{e:#}")),
    }
    for (want, said_by) in [
        (expect.role, "--role"),
        (manifest_role, "the manifest's role"),
    ] {
        if let Some(want) = want {
            if want != role {
                report.problems.push(format!(
                    "the component implements the {role} world ({contract}), not the {want} world ({}) that {said_by} names",
                    want.world()
                ));
            }
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

/// Reads and checks a manifest as the host would load it: its summary, its
/// role, and warnings (a component file other than the one checked).
fn read_manifest(path: &Path, file: &Path) -> anyhow::Result<(ManifestSummary, Role, Vec<String>)> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("cannot read it: {e}"))?;
    let m = crate::plugins::manifest::parse(&text)?;
    let mut warnings = Vec::new();
    // The folder as the host scans it: `folder/plugin.toml` beside its component.
    let folder = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    let named = crate::plugins::manifest::component_of(&folder, &m);
    let same = match (named.canonicalize(), file.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same {
        warnings.push(format!(
            "the manifest loads {}, not the file checked here",
            named.display()
        ));
    }
    let summary = ManifestSummary {
        name: m.name.clone(),
        version: m.version.clone(),
        role: m.role.to_string(),
        domains: m.domains.clone(),
    };
    Ok((summary, m.role, warnings))
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
