//! Loading plugins: the built-in ones, then those of `plugins_dir`, each
//! compiled (or taken from the cache), linked and checked against its
//! role's world; a directory watched for changes.

use super::*;

impl Inner {
    /// Compiles (or loads from the cache), links and type-checks a component
    /// for `role`. Returns it with its sha256 and whether the cache served it.
    pub(super) fn prepare(
        &self,
        role: Role,
        wasm: &[u8],
    ) -> anyhow::Result<(Prepared, String, CacheUse)> {
        self.prepare_hashed(role, wasm, cache::sha256_hex(wasm))
    }

    /// [`Inner::prepare`] for a component whose sha256 is known (the
    /// built-ins', hashed at build time).
    fn prepare_hashed(
        &self,
        role: Role,
        wasm: &[u8],
        sha256: String,
    ) -> anyhow::Result<(Prepared, String, CacheUse)> {
        let (component, cache) = self.cache.load(&self.engine, wasm, &sha256)?;
        let pre = sandbox::prepare(&self.engine, &self.linker, &component)?;
        let wrong_world = |e: wasmtime::Error| {
            anyhow::anyhow!(
                "the component does not implement the {role} world ({}): {e:#}; it exports {}",
                role.world(),
                exports(&self.engine, &component)
            )
        };
        let prepared = match role {
            Role::Planner => Prepared::Planner(PlannerPre::new(pre).map_err(wrong_world)?),
            // The newest contract first; components built against 0.1.0 still load.
            Role::Extractor => match ExtractorV2Pre::new(pre.clone()) {
                Ok(v2) => Prepared::ExtractorV2(v2),
                Err(_) => Prepared::Extractor(ExtractorPre::new(pre).map_err(wrong_world)?),
            },
            Role::Differ => Prepared::Differ(DifferPre::new(pre).map_err(wrong_world)?),
            Role::Source => Prepared::Source(SourcePluginPre::new(pre).map_err(wrong_world)?),
        };
        Ok((prepared, sha256, cache))
    }

    pub(super) fn load_dir(&self, dir: &Path, reports: &mut Vec<LoadReport>) {
        let candidates = match manifest::scan(dir) {
            Ok(candidates) => candidates,
            Err(e) => {
                reports.push(LoadReport {
                    source: dir.display().to_string(),
                    outcome: LoadOutcome::Skipped {
                        reason: format!("{e:#}"),
                    },
                });
                return;
            }
        };
        for candidate in candidates {
            let source = candidate.source.display().to_string();
            let outcome = match self.load_candidate(candidate.found) {
                Ok((plugin, cache)) => LoadOutcome::Loaded { plugin, cache },
                Err(e) => LoadOutcome::Skipped {
                    reason: format!("{e:#}"),
                },
            };
            reports.push(LoadReport { source, outcome });
        }
    }

    pub(super) fn load_candidate(
        &self,
        found: anyhow::Result<(manifest::Manifest, PathBuf)>,
    ) -> anyhow::Result<(PluginInfo, CacheUse)> {
        let (manifest, component_path) = found?;
        let name = &manifest.name;
        if builtin::ALL.iter().any(|b| b.name == name) {
            anyhow::bail!("the name `{name}` belongs to a built-in plugin");
        }
        let generic = manifest.domains.is_empty();
        {
            let mut registry = self.registry.write().unwrap_or_else(|e| e.into_inner());
            if registry.holds_name(name) {
                anyhow::bail!("another plugin is already named `{name}`");
            }
            if generic {
                if let Some(other) = registry.slot(manifest.role) {
                    anyhow::bail!(
                        "the plugin `{}` already serves as the {}",
                        other.info.name,
                        manifest.role
                    );
                }
            }
        }
        let wasm = std::fs::read(&component_path).with_context(|| {
            format!("failed to read the component {}", component_path.display())
        })?;
        let (prepared, sha256, cache) = self
            .prepare(manifest.role, &wasm)
            .with_context(|| format!("failed to load plugin `{name}`"))?;
        let info = PluginInfo {
            name: manifest.name,
            role: manifest.role,
            version: manifest.version,
            domains: manifest.domains,
            entities: manifest.entities,
            builtin: false,
            sha256,
        };
        let loaded = Arc::new(Loaded {
            info: info.clone(),
            prepared,
        });
        let mut registry = self.registry.write().unwrap_or_else(|e| e.into_inner());
        if generic {
            *registry.slot(info.role) = Some(loaded);
        } else {
            registry.site_extractors.push(loaded);
        }
        Ok((info, cache))
    }

    pub(super) fn load_builtins(&self, reports: &mut Vec<LoadReport>) {
        for builtin in builtin::ALL {
            if !self.builtin_roles.contains(&builtin.role) {
                continue;
            }
            let source = format!("built-in:{}", builtin.name);
            let taken = self
                .registry()
                .all()
                .find(|p| p.info.role == builtin.role && p.info.domains.is_empty())
                .map(|p| p.info.name.clone());
            if let Some(other) = taken {
                let reason = format!("replaced by the operator plugin `{other}`");
                reports.push(LoadReport {
                    source,
                    outcome: LoadOutcome::Skipped { reason },
                });
                continue;
            }
            let outcome =
                match self.prepare_hashed(builtin.role, builtin.wasm, builtin.sha256.into()) {
                    Ok((prepared, sha256, cache)) => {
                        let info = PluginInfo {
                            name: builtin.name.into(),
                            role: builtin.role,
                            version: env!("CARGO_PKG_VERSION").into(),
                            domains: vec![],
                            entities: builtin.entities.iter().map(|e| e.to_string()).collect(),
                            builtin: true,
                            sha256,
                        };
                        let loaded = Arc::new(Loaded {
                            info: info.clone(),
                            prepared,
                        });
                        *self
                            .registry
                            .write()
                            .unwrap_or_else(|e| e.into_inner())
                            .slot(builtin.role) = Some(loaded);
                        LoadOutcome::Loaded {
                            plugin: info,
                            cache,
                        }
                    }
                    Err(e) => LoadOutcome::Skipped {
                        reason: format!("failed to load built-in plugin `{}`: {e:#}", builtin.name),
                    },
                };
            reports.push(LoadReport { source, outcome });
        }
    }
}

/// The names a component exports, for error messages.
fn exports(engine: &Engine, component: &Component) -> String {
    let names: Vec<String> = export_names(engine, component)
        .into_iter()
        .map(|name| format!("`{name}`"))
        .collect();
    if names.is_empty() {
        "nothing".into()
    } else {
        names.join(", ")
    }
}

/// The names a component exports (interfaces and functions), in its order.
pub(super) fn export_names(engine: &Engine, component: &Component) -> Vec<String> {
    component
        .component_type()
        .exports(engine)
        .map(|(name, _)| name.to_string())
        .collect()
}

/// What a folder's files are now: each path with its length and
/// modification time, sorted. Two equal fingerprints: nothing changed.
pub fn fingerprint(dir: &Path) -> Vec<(PathBuf, u64, Option<std::time::SystemTime>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(path),
                Ok(m) => out.push((path, m.len(), m.modified().ok())),
                Err(_) => {}
            }
        }
    }
    out.sort();
    out
}

/// Development: reload the plugins folder whenever its files change and
/// stay unchanged for a second (a component being copied is not loaded
/// half-written), logging each plugin's outcome.
pub async fn watch(plugins: Plugins, dir: PathBuf) {
    let mut seen = fingerprint(&dir);
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = fingerprint(&dir);
        if now == seen {
            continue;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let settled = fingerprint(&dir);
        if settled != now {
            continue;
        }
        seen = settled;
        let (p, d) = (plugins.clone(), dir.clone());
        let reports = match tokio::task::spawn_blocking(move || p.reload(&d)).await {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "reloading the plugins folder failed");
                continue;
            }
        };
        for report in &reports {
            match &report.outcome {
                LoadOutcome::Loaded { plugin, .. } => {
                    tracing::info!(source = %report.source, plugin = %plugin.id(), role = %plugin.role, "plugin reloaded")
                }
                LoadOutcome::Skipped { reason } => {
                    tracing::warn!(source = %report.source, "plugin skipped on reload: {reason}")
                }
            }
        }
    }
}
