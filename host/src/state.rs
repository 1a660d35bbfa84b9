//! The state every handler shares.

use std::sync::Arc;

use crate::auth::cache::KeyCache;
use crate::config::Config;
use crate::fetch::Fetcher;
use crate::limits::{RateLimiter, RunSlots};
use crate::plugins::Plugins;
use crate::receipts::ReceiptSigner;
use crate::sessions::events::EventBus;
use crate::sessions::runs::Runs;
use crate::store::Store;
use crate::webhooks::Webhooks;

/// Cheap to clone (one reference count: handlers and layers clone it on
/// every request); its fields are reached through `Deref`.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// Changing a field is for set-up only, before the state is first cloned.
impl std::ops::DerefMut for AppState {
    fn deref_mut(&mut self) -> &mut Shared {
        Arc::get_mut(&mut self.0).expect("the state is changed only before it is shared")
    }
}

/// What every handler shares.
pub struct Shared {
    pub config: Arc<Config>,
    pub store: Store,
    /// Keys and accounts by key hash, checked against the store's generation.
    pub key_cache: Arc<KeyCache>,
    pub rate_limiter: Arc<RateLimiter>,
    pub run_slots: RunSlots,
    pub plugins: Plugins,
    pub signer: ReceiptSigner,
    pub bus: EventBus,
    pub runs: Runs,
    pub fetcher: Fetcher,
    /// When pages are rendered, and the renderer (`None` when off).
    pub render_mode: crate::render::RenderMode,
    pub renderer: Option<Arc<crate::render::Renderer>>,
    pub webhooks: Webhooks,
}

impl AppState {
    pub fn new(config: Config, store: Store, plugins: Plugins, signer: ReceiptSigner) -> AppState {
        let fetcher = Fetcher::new(config.target_policy(), config.fetch_manners());
        let (render_mode, renderer) = crate::render::from_config(&config);
        AppState(Arc::new(Shared {
            rate_limiter: Arc::new(RateLimiter::new(
                config.rate_limit_per_s,
                config.rate_limit_burst,
            )),
            run_slots: RunSlots::new(config.max_runs_in_flight),
            config: Arc::new(config),
            store,
            key_cache: Arc::default(),
            plugins,
            signer,
            bus: EventBus::default(),
            runs: Runs::default(),
            fetcher,
            render_mode,
            renderer,
            webhooks: Webhooks::default(),
        }))
    }
}

#[cfg(test)]
mod tests {
    /// The modules whose types the state holds, and the wire shapes, do not
    /// depend on the state (no import cycle through it); the OpenAPI
    /// builder does not depend on the router it describes.
    #[test]
    fn no_cycles_through_the_state_or_the_router() {
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src/");
        let read = |file: &str| std::fs::read_to_string(format!("{src}{file}")).unwrap();
        let mut held = vec![
            "auth/cache.rs".to_string(),
            "config.rs".into(),
            "fetch/mod.rs".into(),
            "fetch/outcome.rs".into(),
            "fetch/politeness.rs".into(),
            "fetch/robots.rs".into(),
            "render/mod.rs".into(),
            "render/wall.rs".into(),
            "render/browser.rs".into(),
            "limits.rs".into(),
            "plugins/mod.rs".into(),
            "receipts/mod.rs".into(),
            "sessions/events.rs".into(),
            "sessions/runs.rs".into(),
            "store/mod.rs".into(),
            "webhooks/mod.rs".into(),
        ];
        for entry in std::fs::read_dir(format!("{src}wire")).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            held.push(format!("wire/{name}"));
        }
        for file in &held {
            assert!(
                !read(file).contains("crate::state"),
                "{file} depends on the state"
            );
        }
        // Code lines only (doc comments may name any module).
        let code_of = |file: &str| -> String {
            let text = read(file);
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            code.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        // The configuration knows its own preview switches (the planned
        // routes read them, not the other way round); a run's redaction is
        // domain code the handlers call, and calls no handler back.
        assert!(!code_of("config.rs").contains("crate::planned"));
        assert!(!code_of("sessions/redaction.rs").contains("api::"));
        let openapi = read("openapi/mod.rs");
        let code = openapi.split("#[cfg(test)]").next().unwrap();
        assert!(
            !code.contains("crate::app"),
            "openapi depends on the router"
        );
        // The monitor scheduler opens runs through the domain, never through
        // the HTTP layer or the API modules.
        let scheduler = code_of("monitors/scheduler.rs");
        for layer in ["crate::http", "api::", "ApiError"] {
            assert!(!scheduler.contains(layer), "the scheduler uses {layer}");
        }
    }

    /// The wire shapes are a leaf: they name std, serde, serde_json, utoipa
    /// and themselves, nothing of the domain or the HTTP layer.
    #[test]
    fn wire_is_a_leaf() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/wire");
        let allowed = [
            "std::",
            "serde::",
            "serde_json::",
            "utoipa::",
            "super::",
            "crate::wire",
            "money::",
        ];
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                assert!(
                    !line.contains("crate::") || line.contains("crate::wire"),
                    "{}: {line}",
                    path.display()
                );
                if let Some(rest) = line.trim_start().strip_prefix("use ") {
                    assert!(
                        allowed.iter().any(|a| rest.starts_with(a))
                            || rest.starts_with("chrono::") && false,
                        "{}: {line}",
                        path.display()
                    );
                }
            }
        }
    }

    /// No host module imports one that imports it back, through any chain
    /// (`crate::` and `super::` paths; a module and its own submodules are
    /// one unit here, as Rust declares them).
    #[test]
    fn host_modules_import_no_cycle() {
        use std::collections::{BTreeMap, BTreeSet};
        fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    files(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
        let mut paths = Vec::new();
        files(&root, &mut paths);
        let module_of = |p: &std::path::Path| -> Vec<String> {
            let rel = p.strip_prefix(&root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into()).collect();
            if parts
                .last()
                .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
            {
                parts.pop();
            }
            parts
        };
        let modules: BTreeSet<Vec<String>> = paths.iter().map(|p| module_of(p)).collect();
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        let ident = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == ':';
        for path in &paths {
            let from = module_of(path);
            let text = std::fs::read_to_string(path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for line in code.lines() {
                let line = line.split("//").next().unwrap_or_default();
                for (at, _) in line
                    .match_indices("crate::")
                    .chain(line.match_indices("super::"))
                {
                    if at > 0 && line[..at].ends_with(|c: char| ident(c)) {
                        continue;
                    }
                    let rest: String = line[at..].chars().take_while(|&c| ident(c)).collect();
                    let mut target: Vec<String> = Vec::new();
                    let mut base = from.clone();
                    for part in rest.split("::").filter(|p| !p.is_empty()) {
                        match part {
                            "crate" => base.clear(),
                            "super" => {
                                base.pop();
                            }
                            _ => target.push(part.to_string()),
                        }
                    }
                    let full: Vec<String> = base.into_iter().chain(target).collect();
                    let Some(to) = (1..=full.len())
                        .rev()
                        .map(|n| full[..n].to_vec())
                        .find(|m| modules.contains(m))
                    else {
                        continue;
                    };
                    let nested = to.starts_with(&from) || from.starts_with(&to);
                    if !nested {
                        edges.entry(from.clone()).or_default().insert(to);
                    }
                }
            }
        }
        // Depth-first search for a back edge.
        fn visit(
            m: &Vec<String>,
            edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
            done: &mut BTreeSet<Vec<String>>,
            stack: &mut Vec<Vec<String>>,
        ) {
            if done.contains(m) {
                return;
            }
            if let Some(at) = stack.iter().position(|s| s == m) {
                let cycle: Vec<String> = stack[at..].iter().map(|s| s.join("::")).collect();
                panic!("import cycle: {} -> {}", cycle.join(" -> "), m.join("::"));
            }
            stack.push(m.clone());
            for next in edges.get(m).into_iter().flatten() {
                visit(next, edges, done, stack);
            }
            stack.pop();
            done.insert(m.clone());
        }
        let mut done = BTreeSet::new();
        for m in &modules {
            visit(m, &edges, &mut done, &mut Vec::new());
        }
        assert!(edges.len() > 20, "the import graph was read");
    }
}
