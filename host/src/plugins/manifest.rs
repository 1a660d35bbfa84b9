//! Operator plugins: one folder per plugin under the configured
//! `plugins_dir`, each with a `plugin.toml` manifest and a component.
//!
//! ```toml
//! name = "acme-extractor"
//! version = "1.2.0"
//! role = "extractor"             # planner | extractor | differ | source
//! domains = ["acme.example"]      # extractors only: pages of these sites
//! entities = ["product"]          # what the plugin extracts (informational)
//! component = "acme.wasm"         # optional; default `<folder name>.wasm`
//! ```

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::Deserialize;

use super::Role;

/// A parsed and checked `plugin.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) role: Role,
    #[serde(default)]
    pub(crate) domains: Vec<String>,
    #[serde(default)]
    pub(crate) entities: Vec<String>,
    /// The component file, relative to the manifest's folder.
    pub(crate) component: Option<PathBuf>,
}

/// One folder found under the plugins directory.
pub(crate) struct Candidate {
    /// The folder (or stray file) this candidate came from.
    pub(crate) source: PathBuf,
    /// The manifest and the component path, or why there are none.
    pub(crate) found: anyhow::Result<(Manifest, PathBuf)>,
}

/// Lists the plugin folders under `dir`, in name order so that loading is
/// deterministic. Stray `.wasm` files are reported (they need a manifest);
/// other files are ignored.
pub(crate) fn scan(dir: &Path) -> anyhow::Result<Vec<Candidate>> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("failed to read the plugins directory {}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let mut found = Vec::new();
    for path in paths {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_none_or(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            let found_here = read_folder(&path);
            found.push(Candidate {
                source: path,
                found: found_here,
            });
        } else if path.extension().is_some_and(|e| e == "wasm") {
            let reason =
                anyhow::anyhow!("a component needs its own folder with a plugin.toml manifest");
            found.push(Candidate {
                source: path,
                found: Err(reason),
            });
        }
    }
    Ok(found)
}

/// The component a manifest in `folder` loads: its `component`, else
/// `<folder name>.wasm`, else `<name>.wasm` when only that one exists.
pub(crate) fn component_of(folder: &Path, manifest: &Manifest) -> PathBuf {
    match &manifest.component {
        Some(file) => folder.join(file),
        None => {
            let folder_name = folder
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let by_folder = folder.join(format!("{folder_name}.wasm"));
            let by_name = folder.join(format!("{}.wasm", manifest.name));
            if by_folder.is_file() || !by_name.is_file() {
                by_folder
            } else {
                by_name
            }
        }
    }
}

fn read_folder(folder: &Path) -> anyhow::Result<(Manifest, PathBuf)> {
    let manifest_path = folder.join("plugin.toml");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("failed to read {}", manifest_path.display()))?;
    let manifest =
        parse(&text).with_context(|| format!("bad manifest {}", manifest_path.display()))?;
    let component = component_of(folder, &manifest);
    Ok((manifest, component))
}

/// Parses and checks a manifest.
pub(crate) fn parse(text: &str) -> anyhow::Result<Manifest> {
    let mut manifest: Manifest = toml::from_str(text)?;
    if manifest.name.is_empty()
        || !manifest
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        bail!(
            "`name` must be non-empty and made of letters, digits, `-`, `_` and `.`, not {:?}",
            manifest.name
        );
    }
    if manifest.version.trim().is_empty() {
        bail!("`version` must not be empty");
    }
    if !manifest.domains.is_empty() && manifest.role != Role::Extractor {
        bail!(
            "`domains` applies only to extractors, and this plugin's role is {}",
            manifest.role
        );
    }
    for domain in &mut manifest.domains {
        *domain = normalize_domain(domain)?;
    }
    Ok(manifest)
}

/// Lowercases a domain and checks that it is a host name (`*.` and a
/// leading dot are accepted and dropped: subdomains always match).
fn normalize_domain(domain: &str) -> anyhow::Result<String> {
    let d = domain
        .trim()
        .trim_start_matches("*.")
        .trim_start_matches('.')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let valid = !d.is_empty()
        && d.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        });
    if !valid {
        bail!("{domain:?} in `domains` is not a host name");
    }
    Ok(d)
}

/// Whether `host` is `domain` or one of its subdomains.
pub(crate) fn host_matches(host: &str, domain: &str) -> bool {
    host == domain
        || (host.len() > domain.len()
            && host.ends_with(domain)
            && host.as_bytes()[host.len() - domain.len() - 1] == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_full_manifest() {
        let m = parse(
            r#"
            name = "acme"
            version = "1.0.0"
            role = "extractor"
            domains = ["*.Acme.example."]
            entities = ["product"]
            component = "x.wasm"
            "#,
        )
        .unwrap();
        assert_eq!(m.role, Role::Extractor);
        assert_eq!(m.domains, ["acme.example"]);
        assert_eq!(m.component.as_deref(), Some(Path::new("x.wasm")));
    }

    #[test]
    fn rejects_bad_manifests() {
        for text in [
            "name = \"a\"\nversion = \"1\"\nrole = \"wizard\"",
            "name = \"a\"\nrole = \"planner\"",
            "name = \"a b\"\nversion = \"1\"\nrole = \"planner\"",
            "name = \"a\"\nversion = \"1\"\nrole = \"planner\"\ndomains = [\"x.example\"]",
            "name = \"a\"\nversion = \"1\"\nrole = \"extractor\"\ndomains = [\"bad host\"]",
            "name = \"a\"\nversion = \"1\"\nrole = \"extractor\"\nsurprise = true",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn matches_domains_and_subdomains_only() {
        assert!(host_matches("acme.example", "acme.example"));
        assert!(host_matches("www.acme.example", "acme.example"));
        assert!(!host_matches("notacme.example", "acme.example"));
        assert!(!host_matches("acme.example.org", "acme.example"));
    }
}
