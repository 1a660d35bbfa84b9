//! The compiled-artifact cache: each component is compiled once per engine
//! configuration and kept under `<data_dir>/plugin-cache/`.
//!
//! An artifact's file name is the component's sha256 followed by a digest of
//! the engine's compatibility hash (wasmtime version, target, configuration),
//! so a new build of the host or a changed configuration compiles afresh
//! instead of loading something incompatible.

use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use serde::Serialize;
use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::Engine;

/// Whether a component came from the cache or was compiled by this load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheUse {
    /// A compiled artifact was found and loaded.
    Hit,
    /// The component was compiled and its artifact written.
    Compiled,
}

pub(crate) struct ArtifactCache {
    dir: PathBuf,
    /// Hex digest of the engine's compatibility hash.
    engine_key: String,
}

impl ArtifactCache {
    pub(crate) fn open(engine: &Engine, data_dir: &Path) -> anyhow::Result<Self> {
        let dir = data_dir.join("plugin-cache");
        std::fs::create_dir_all(&dir).with_context(|| {
            format!(
                "failed to create the plugin cache directory {}",
                dir.display()
            )
        })?;
        let mut hasher = Sha256Hasher::default();
        std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut hasher);
        let engine_key = hex::encode(&hasher.0.finalize()[..8]);
        Ok(ArtifactCache { dir, engine_key })
    }

    /// Loads the component whose bytes are `wasm` (with sha256 `digest`),
    /// compiling it and writing its artifact if the cache has none.
    pub(crate) fn load(
        &self,
        engine: &Engine,
        wasm: &[u8],
        digest: &str,
    ) -> anyhow::Result<(Component, CacheUse)> {
        let path = self.dir.join(format!("{digest}-{}.cwasm", self.engine_key));
        if path.is_file() {
            // SAFETY: the file was written by `precompile_component` under the
            // host's own data directory and is named for this engine's
            // compatibility hash; wasmtime checks its header besides.
            match unsafe { Component::deserialize_file(engine, &path) } {
                Ok(component) => return Ok((component, CacheUse::Hit)),
                Err(e) => {
                    tracing::warn!(path = %path.display(), "discarding an unreadable plugin artifact: {e:#}")
                }
            }
        }
        let artifact = engine
            .precompile_component(wasm)
            .map_err(|e| anyhow::anyhow!("failed to compile: {e:#}"))?;
        write_atomically(&path, &artifact)
            .with_context(|| format!("failed to write the compiled plugin {}", path.display()))?;
        // SAFETY: as above; the file was written just now from `artifact`.
        let component = unsafe { Component::deserialize_file(engine, &path) }.map_err(|e| {
            anyhow::anyhow!(
                "failed to load the compiled plugin {}: {e:#}",
                path.display()
            )
        })?;
        Ok((component, CacheUse::Compiled))
    }
}

/// Hex sha256 of a component's bytes.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Writes through a temporary file and a rename, so that a concurrent load
/// never sees half an artifact.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let tmp = path.with_extension(format!(
        "{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Feeds `Hash` output into sha256, which (unlike `DefaultHasher`) is stable
/// across Rust releases.
#[derive(Default)]
struct Sha256Hasher(Sha256);

impl Hasher for Sha256Hasher {
    fn finish(&self) -> u64 {
        // Only the sha256 digest is used.
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}
