//! The sandboxed WebAssembly plugin runtime.
//!
//! Parse-estimate, extraction, diffing and recorded replays run as
//! WebAssembly components behind the WIT contract in `wit/`. A plugin
//! receives data and returns data: it is linked against empty WASI and
//! nothing else, so customer guidance handed to it can never act as an
//! instruction to fetch, spend or store.
//!
//! - Built-in plugins are embedded in the binary (see `host/build.rs`);
//!   operators add or replace plugins through `plugins_dir` (see
//!   [`manifest`]). A plugin that cannot be loaded is reported and skipped.
//! - Each component is compiled once and its artifact cached under
//!   `<data_dir>/plugin-cache/` ([`cache`]).
//! - Every call gets a fresh instance from a pre-linked `InstancePre` and a
//!   pooling allocator ([`engine`]), with a time limit (epoch deadline), a
//!   memory limit and a bound on the size of what it returns. A call runs
//!   in place under `block_in_place` on a multi-thread runtime (tokio moves
//!   the worker's other tasks to another thread meanwhile), on tokio's
//!   blocking pool otherwise, so the executor never blocks.
//! - A planner, extractor or replay call made before with the same
//!   component and the same input is answered from the results memo
//!   (`memo`, `plugins.memo_mib`) without running the plugin again.
//!
//! A plugin that traps, loops, recurses without end or exhausts its memory
//! fails that one call with a [`PluginError`]; the host goes on serving.

mod bindings;
mod builtin;
pub mod cache;
mod calls;
mod engine;
mod info;
mod loading;
pub mod manifest;
mod memo;
mod sandbox;
pub mod schemas;
mod types;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, Store};

pub use cache::CacheUse;
pub use info::{LoadOutcome, LoadReport, PluginError, PluginInfo, Role};
pub use loading::{fingerprint, watch};
pub use memo::MemoStats;
pub use types::{
    Estimate, ExtractHints, ExtractRequest, Extraction, Page, PageKind, PriceMove, RowDiff,
};

use bindings::{
    differ::DifferPre, extractor::ExtractorPre, extractor_v2::ExtractorPre as ExtractorV2Pre,
    planner::PlannerPre, source::SourcePluginPre,
};
use cache::ArtifactCache;
use memo::Memo;
use sandbox::Sandbox;

/// The most records one extraction may return.
pub const MAX_RECORDS: usize = 10_000;
/// The most links one extraction may return.
pub const MAX_LINKS: usize = 10_000;

/// How plugins are loaded and bounded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PluginConfig {
    /// A directory of operator plugins, one folder each (see [`manifest`]).
    pub plugins_dir: Option<PathBuf>,
    /// Wall-clock time one call may take, instantiation included.
    pub call_timeout: Duration,
    /// Bytes each of a plugin's linear memories may grow to.
    pub memory_limit_bytes: usize,
    /// Bytes of strings (and list entries) one call may return.
    pub max_output_bytes: usize,
    /// Plugin instances alive at once; further calls wait for a slot.
    pub max_instances: u32,
    /// Bytes of checked results kept to answer repeated calls (0: none).
    pub memo_bytes: u64,
}

impl Default for PluginConfig {
    fn default() -> Self {
        PluginConfig {
            plugins_dir: None,
            call_timeout: Duration::from_secs(5),
            memory_limit_bytes: 256 << 20,
            max_output_bytes: 16 << 20,
            max_instances: 64,
            memo_bytes: 0,
        }
    }
}

/// The plugin runtime: a cheap, cloneable handle shared by the whole host.
#[derive(Clone)]
pub struct Plugins {
    inner: Arc<Inner>,
}

struct Inner {
    engine: Engine,
    linker: Linker<Sandbox>,
    cache: ArtifactCache,
    limits: Limits,
    /// One permit per pool slot: a burst of calls queues here instead of
    /// failing on an exhausted pool.
    slots: Arc<Semaphore>,
    registry: RwLock<Registry>,
    /// Checked results of earlier calls, by what went in.
    memo: Memo,
    /// The roles whose built-in plugins are loaded (and reloaded).
    builtin_roles: Vec<Role>,
}

/// Per-call bounds, from [`PluginConfig`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) timeout: Duration,
    pub(crate) deadline_ticks: u64,
    pub(crate) memory: usize,
    pub(crate) output: usize,
}

/// A component prepared for fast instantiation, typed by its role.
pub(crate) enum Prepared {
    Planner(PlannerPre<Sandbox>),
    /// An extractor of contract 0.1.0 (records only).
    Extractor(ExtractorPre<Sandbox>),
    /// An extractor of contract 0.2.0 (page kind and next pages too).
    ExtractorV2(ExtractorV2Pre<Sandbox>),
    Differ(DifferPre<Sandbox>),
    Source(SourcePluginPre<Sandbox>),
}

pub(crate) struct Loaded {
    pub(crate) info: PluginInfo,
    pub(crate) prepared: Prepared,
}

/// The plugins in service. Operator plugins take a role's slot before the
/// built-ins; site-specific extractors sit beside the generic one.
#[derive(Default)]
struct Registry {
    planner: Option<Arc<Loaded>>,
    extractor: Option<Arc<Loaded>>,
    differ: Option<Arc<Loaded>>,
    source: Option<Arc<Loaded>>,
    site_extractors: Vec<Arc<Loaded>>,
}

impl Registry {
    fn slot(&mut self, role: Role) -> &mut Option<Arc<Loaded>> {
        match role {
            Role::Planner => &mut self.planner,
            Role::Extractor => &mut self.extractor,
            Role::Differ => &mut self.differ,
            Role::Source => &mut self.source,
        }
    }

    fn all(&self) -> impl Iterator<Item = &Arc<Loaded>> {
        self.planner
            .iter()
            .chain(self.extractor.iter())
            .chain(self.site_extractors.iter())
            .chain(self.differ.iter())
            .chain(self.source.iter())
    }

    fn holds_name(&self, name: &str) -> bool {
        self.all().any(|p| p.info.name == name)
    }

    /// The extractor for a page: the site-specific one with the most
    /// specific domain matching the URL's host, else the generic one.
    fn extractor_for(&self, url: &str) -> Option<Arc<Loaded>> {
        let host = url::Url::parse(url).ok().and_then(|u| {
            u.host_str()
                .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
        });
        if let Some(host) = host {
            let best = self
                .site_extractors
                .iter()
                .filter_map(|p| {
                    let longest = p
                        .info
                        .domains
                        .iter()
                        .filter(|d| manifest::host_matches(&host, d))
                        .map(|d| d.len())
                        .max()?;
                    Some((longest, p))
                })
                // `max_by_key` keeps the last of equals; prefer the first loaded.
                .fold(None::<(usize, &Arc<Loaded>)>, |best, (len, p)| match best {
                    Some((best_len, _)) if best_len >= len => best,
                    _ => Some((len, p)),
                });
            if let Some((_, plugin)) = best {
                return Some(plugin.clone());
            }
        }
        self.extractor.clone()
    }
}

impl Plugins {
    /// Loads the built-in plugins and those of `config.plugins_dir`, and
    /// returns a report of what was loaded and what was skipped (and why).
    ///
    /// Fails only when the runtime itself cannot start (the engine, the
    /// cache directory); a plugin that cannot be loaded is skipped. Compiling
    /// a component not yet in the cache takes a while, so call this at
    /// startup (or from a blocking thread).
    pub fn load(
        config: &PluginConfig,
        data_dir: &Path,
    ) -> anyhow::Result<(Plugins, Vec<LoadReport>)> {
        Self::load_builtins_of(config, data_dir, &Role::ALL)
    }

    /// [`Plugins::load`] with only the built-in plugins of `roles`: a
    /// command that calls one role (`fnhost extract`) does not read and
    /// prepare the others at every start. Operator plugins load as ever.
    pub fn load_builtins_of(
        config: &PluginConfig,
        data_dir: &Path,
        roles: &[Role],
    ) -> anyhow::Result<(Plugins, Vec<LoadReport>)> {
        let engine = engine::build(config.max_instances, config.memory_limit_bytes)?;
        engine::start_ticker(&engine)?;
        let linker = sandbox::linker(&engine).context("failed to link WASI for plugins")?;
        let cache = ArtifactCache::open(&engine, data_dir)?;
        let limits = Limits {
            timeout: config.call_timeout,
            deadline_ticks: engine::deadline_ticks(config.call_timeout),
            memory: config.memory_limit_bytes,
            output: config.max_output_bytes,
        };
        let inner = Inner {
            engine,
            linker,
            cache,
            limits,
            slots: Arc::new(Semaphore::new(config.max_instances.max(1) as usize)),
            memo: Memo::new(config.memo_bytes),
            registry: RwLock::new(Registry::default()),
            builtin_roles: roles.to_vec(),
        };

        let mut reports = Vec::new();
        if let Some(dir) = &config.plugins_dir {
            inner.load_dir(dir, &mut reports);
        }
        inner.load_builtins(&mut reports);
        for report in &reports {
            match &report.outcome {
                LoadOutcome::Loaded { plugin, cache } => {
                    tracing::info!(source = %report.source, plugin = %plugin.id(), role = %plugin.role, ?cache, "plugin loaded")
                }
                LoadOutcome::Skipped { reason } => {
                    tracing::warn!(source = %report.source, "plugin skipped: {reason}")
                }
            }
        }
        Ok((
            Plugins {
                inner: Arc::new(inner),
            },
            reports,
        ))
    }

    /// Parses a natural-language query with the planner.
    pub async fn estimate(&self, query: &str) -> Result<Estimate, PluginError> {
        let plugin = self.inner.plugin(Role::Planner)?;
        let key = memo::Key::new("estimate", &plugin.info.sha256)
            .add(query.as_bytes())
            .finish();
        if let Some(e) = self.inner.memo.get(&key) {
            return Ok(e);
        }
        let query = query.to_owned();
        let estimate = self
            .run(plugin, move |store, plugin, limits| {
                calls::estimate(store, plugin, limits, &query)
            })
            .await?;
        self.inner.memo.put(key, &estimate);
        Ok(estimate)
    }

    /// Extracts records from a page with the extractor for its site (see
    /// [`Plugins::list`]: a site-specific extractor whose domain matches the
    /// page URL's host, else the generic one).
    pub async fn extract(
        &self,
        page: Page,
        request: ExtractRequest,
    ) -> Result<Extraction, PluginError> {
        let plugin = self
            .inner
            .registry()
            .extractor_for(&page.url)
            .ok_or(PluginError::Unavailable)?;
        // Hashing a page of megabytes costs a few percent of its
        // extraction: only when there is a memo to look in.
        let key = self.inner.memo.is_on().then(|| {
            memo::Key::new("extract", &plugin.info.sha256)
                .add(page.url.as_bytes())
                .add(&page.status.to_le_bytes())
                .add_opt(page.content_type.as_deref())
                .add(page.body.as_bytes())
                .add(request.entity.as_bytes())
                .add_opt(request.guidance.as_deref())
                .add(request.hints.to_string().as_bytes())
                .finish()
        });
        if let Some(x) = key.as_ref().and_then(|key| self.inner.memo.get(key)) {
            return Ok(x);
        }
        let extraction = self
            .run(plugin, move |store, plugin, limits| {
                calls::extract(store, plugin, limits, page, &request)
            })
            .await?;
        if let Some(key) = key {
            self.inner.memo.put(key, &extraction);
        }
        Ok(extraction)
    }

    /// Compares two row sets (each a list of JSON record objects).
    pub async fn diff(
        &self,
        before: Vec<String>,
        after: Vec<String>,
    ) -> Result<RowDiff, PluginError> {
        let plugin = self.inner.plugin(Role::Differ)?;
        self.run(plugin, move |store, plugin, limits| {
            calls::diff(store, plugin, limits, &before, &after)
        })
        .await
    }

    /// The recorded page for a URL, from the source (replay) plugin.
    pub async fn replay(&self, url: &str) -> Result<Option<Page>, PluginError> {
        let plugin = self.inner.plugin(Role::Source)?;
        let key = memo::Key::new("replay", &plugin.info.sha256)
            .add(url.as_bytes())
            .finish();
        if let Some(page) = self.inner.memo.get_page(&key) {
            return Ok(page);
        }
        let url = url.to_owned();
        let page = self
            .run(plugin, move |store, plugin, limits| {
                calls::replay(store, plugin, limits, &url)
            })
            .await?;
        self.inner.memo.put_page(key, &page);
        Ok(page)
    }

    /// How often repeated calls were answered from the memo.
    pub fn memo_stats(&self) -> MemoStats {
        self.inner.memo.stats()
    }

    /// The plugins in service: planner, generic extractor, site-specific
    /// extractors, differ, source.
    pub fn list(&self) -> Vec<PluginInfo> {
        self.inner
            .registry()
            .all()
            .map(|p| p.info.clone())
            .collect()
    }

    /// Loads an extractor component from a file and puts it in service as
    /// the generic extractor (site-specific extractors still take their
    /// sites). Used by `fnhost extract --plugin FILE` and by tests. The
    /// plugin is named after the file; fails, naming the reason, if the
    /// component is not an extractor or imports what the host does not
    /// grant.
    pub fn load_extractor_file(&self, path: &Path) -> anyhow::Result<PluginInfo> {
        let wasm = std::fs::read(path)
            .with_context(|| format!("failed to read plugin {}", path.display()))?;
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .replace('_', "-");
        let (prepared, sha256, _) = self
            .inner
            .prepare(Role::Extractor, &wasm)
            .with_context(|| format!("failed to load plugin {}", path.display()))?;
        let info = PluginInfo {
            name,
            role: Role::Extractor,
            version: "unversioned".into(),
            domains: vec![],
            entities: vec![],
            builtin: false,
            sha256,
        };
        let loaded = Arc::new(Loaded {
            info: info.clone(),
            prepared,
        });
        self.inner
            .registry
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .extractor = Some(loaded);
        Ok(info)
    }

    /// Loads the plugins folder again (development: `plugins.watch`): the
    /// folder's plugins as they now are, then the built-ins for the roles
    /// they leave. Calls in flight finish on the components they started
    /// with; a call that arrives during the reload may find no plugin.
    pub fn reload(&self, dir: &Path) -> Vec<LoadReport> {
        let mut reports = Vec::new();
        *self
            .inner
            .registry
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Registry::default();
        self.inner.load_dir(dir, &mut reports);
        self.inner.load_builtins(&mut reports);
        reports
    }

    /// Which role and contract a component implements (the first that fits:
    /// extractor 0.2.0, extractor 0.1.0, planner, differ, source), or why
    /// none does (a forbidden import, no matching world: with its exports).
    /// The names a component exports (`plugin check` lists them).
    pub fn exports_of(&self, wasm: &[u8]) -> anyhow::Result<Vec<String>> {
        let inner = &self.inner;
        let (component, _) = inner
            .cache
            .load(&inner.engine, wasm, &cache::sha256_hex(wasm))?;
        Ok(loading::export_names(&inner.engine, &component))
    }

    pub fn identify(&self, wasm: &[u8]) -> anyhow::Result<(Role, &'static str)> {
        let mut why = Vec::new();
        for role in [Role::Extractor, Role::Planner, Role::Differ, Role::Source] {
            match self.inner.prepare(role, wasm) {
                Ok((prepared, _, _)) => {
                    let contract = match prepared {
                        Prepared::ExtractorV2(_) => "fnhost:plugin/extractor@0.2.0",
                        Prepared::Extractor(_) => "fnhost:plugin/extractor@0.1.0",
                        Prepared::Planner(_) => "fnhost:plugin/planner@0.1.0",
                        Prepared::Differ(_) => "fnhost:plugin/differ@0.1.0",
                        Prepared::Source(_) => "fnhost:plugin/source-plugin@0.1.0",
                    };
                    return Ok((role, contract));
                }
                Err(e) => {
                    let text = format!("{e:#}");
                    // Not a component, or an import the host refuses: the
                    // same for every role.
                    if !text.contains("does not implement") {
                        return Err(e);
                    }
                    why.push(text);
                }
            }
        }
        anyhow::bail!(
            "the component implements none of the plugin worlds: {}",
            why.first().cloned().unwrap_or_default()
        )
    }

    /// Runs one call off the executor (see the module documentation),
    /// holding a pool slot.
    async fn run<R, F>(&self, plugin: Arc<Loaded>, call: F) -> Result<R, PluginError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Store<Sandbox>, &Loaded, &Limits) -> calls::CallResult<R> + Send + 'static,
    {
        let limits = self.inner.limits;
        // Waiting for a slot counts against the same time limit as the call.
        let permit = match tokio::time::timeout(
            limits.timeout,
            self.inner.slots.clone().acquire_owned(),
        )
        .await
        {
            Ok(Ok(permit)) => permit,
            _ => {
                tracing::warn!(plugin = %plugin.info.id(), "no plugin instance slot freed up within the time limit");
                return Err(PluginError::Unavailable);
            }
        };
        let id = plugin.info.id();
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if multi_thread {
            // Run the call on this thread, which tokio gives up as a worker
            // meanwhile (its other tasks move to another thread): no hop to
            // a blocking thread and back, each of which waits for a core
            // when the machine is busy.
            let _permit = permit;
            let inner = &self.inner;
            let called = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                tokio::task::block_in_place(|| inner.call(&plugin, call))
            }));
            return called.unwrap_or_else(|_| {
                tracing::error!(plugin = %id, "plugin call panicked in the host");
                Err(PluginError::Unavailable)
            });
        }
        // A current-thread runtime cannot give its only thread away.
        let inner = self.inner.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            inner.call(&plugin, call)
        })
        .await;
        joined.unwrap_or_else(|e| {
            tracing::error!(plugin = %id, "plugin call panicked in the host: {e}");
            Err(PluginError::Unavailable)
        })
    }
}

impl Inner {
    fn registry(&self) -> std::sync::RwLockReadGuard<'_, Registry> {
        // A panic while holding the lock cannot leave the registry half
        // updated (each update is one assignment), so poisoning is ignored.
        self.registry.read().unwrap_or_else(|e| e.into_inner())
    }

    fn plugin(&self, role: Role) -> Result<Arc<Loaded>, PluginError> {
        let registry = self.registry();
        let plugin = match role {
            Role::Planner => &registry.planner,
            Role::Extractor => &registry.extractor,
            Role::Differ => &registry.differ,
            Role::Source => &registry.source,
        };
        plugin.clone().ok_or(PluginError::Unavailable)
    }

    /// One call in a fresh store and instance, bounded by the limits.
    fn call<R>(
        &self,
        plugin: &Loaded,
        call: impl FnOnce(&mut Store<Sandbox>, &Loaded, &Limits) -> calls::CallResult<R>,
    ) -> Result<R, PluginError> {
        let started = Instant::now();
        let mut store = Store::new(
            &self.engine,
            Sandbox::new(self.limits.memory, self.limits.timeout),
        );
        store.limiter(|sandbox| &mut sandbox.limiter);
        store.set_epoch_deadline(self.limits.deadline_ticks);
        store.epoch_deadline_trap();
        let result = call(&mut store, plugin, &self.limits);
        let exhausted = store.data().limiter.exhausted;
        let result = match result {
            // A plugin that slept past the deadline was woken at it; whatever
            // it returned after that came too late.
            _ if store.data().overslept => Err(PluginError::Timeout),
            Ok(result) => result,
            Err(e) => Err(calls::classify(&e, exhausted)),
        };
        if let Err(error) = &result {
            tracing::warn!(
                plugin = %plugin.info.id(),
                code = error.code(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "plugin call failed: {error}"
            );
        }
        result
    }
}
