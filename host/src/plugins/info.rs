//! What the plugin runtime tells its callers: the roles plugins play, the
//! plugins loaded and how each load went, and why a call failed.

use serde::{Deserialize, Serialize};

use super::CacheUse;

/// Why a plugin call failed. Each failure is confined to its call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    /// The call ran past `call_timeout` and was interrupted.
    #[error("plugin call exceeded its time limit")]
    Timeout,
    /// The plugin needed more memory than `memory_limit_bytes`.
    #[error("plugin ran out of memory (limit reached)")]
    OutOfMemory,
    /// The plugin trapped (a panic, an unbounded recursion, a bad access).
    #[error("plugin trapped: {0}")]
    Trap(String),
    /// The plugin returned more than `max_output_bytes`, or more than
    /// [`MAX_RECORDS`] records or [`MAX_LINKS`] links.
    #[error("plugin output exceeds the configured bound")]
    OutputTooLarge,
    /// The plugin reported an error, or returned something invalid (a
    /// record that is not a JSON object, ...).
    #[error("plugin failed: {0}")]
    Plugin(String),
    /// No plugin serves this role, or no instance slot freed up in time.
    #[error("no plugin is available for this call")]
    Unavailable,
}

impl PluginError {
    /// A stable code for logs and API error bodies.
    pub fn code(&self) -> &'static str {
        match self {
            PluginError::Timeout => "plugin_timeout",
            PluginError::OutOfMemory => "plugin_out_of_memory",
            PluginError::Trap(_) => "plugin_trap",
            PluginError::OutputTooLarge => "plugin_output_too_large",
            PluginError::Plugin(_) => "plugin_error",
            PluginError::Unavailable => "plugin_unavailable",
        }
    }
}

/// The part a plugin plays; each role is one world of the WIT contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `estimate(query)`, world `planner`.
    Planner,
    /// `extract(page, request)`, world `extractor`.
    Extractor,
    /// `diff(before, after)`, world `differ`.
    Differ,
    /// `fetch(url)`, world `source-plugin`.
    Source,
}

impl Role {
    /// Every role.
    pub const ALL: [Role; 4] = [Role::Planner, Role::Extractor, Role::Differ, Role::Source];

    /// The WIT world a component of this role implements.
    pub fn world(self) -> &'static str {
        match self {
            Role::Planner => "fnhost:plugin/planner@0.1.0",
            Role::Extractor => "fnhost:plugin/extractor@0.2.0 or @0.1.0",
            Role::Differ => "fnhost:plugin/differ@0.1.0",
            Role::Source => "fnhost:plugin/source-plugin@0.1.0",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::Planner => "planner",
            Role::Extractor => "extractor",
            Role::Differ => "differ",
            Role::Source => "source",
        })
    }
}

/// A loaded plugin, as [`Plugins::list`] shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginInfo {
    pub name: String,
    pub role: Role,
    pub version: String,
    /// Sites a site-specific extractor serves (empty: generic).
    pub domains: Vec<String>,
    /// What the plugin extracts, as its manifest declares (informational).
    pub entities: Vec<String>,
    /// Embedded in the binary, rather than loaded from `plugins_dir`.
    pub builtin: bool,
    /// Hex sha256 of the component's bytes.
    pub sha256: String,
}

impl PluginInfo {
    /// `name@version`, as extractions name their plugin.
    pub fn id(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }
}

/// What happened to one plugin (or one entry of `plugins_dir`) at load.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// `built-in:<name>`, or the path of the plugin's folder or file.
    pub source: String,
    pub outcome: LoadOutcome,
}

/// The outcome of loading one plugin.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum LoadOutcome {
    /// The plugin is in service.
    Loaded { plugin: PluginInfo, cache: CacheUse },
    /// The plugin was not loaded, for the reason given.
    Skipped { reason: String },
}

impl LoadReport {
    /// The plugin, if it was loaded.
    pub fn loaded(&self) -> Option<&PluginInfo> {
        match &self.outcome {
            LoadOutcome::Loaded { plugin, .. } => Some(plugin),
            LoadOutcome::Skipped { .. } => None,
        }
    }

    /// Why the plugin was skipped, if it was.
    pub fn skipped(&self) -> Option<&str> {
        match &self.outcome {
            LoadOutcome::Loaded { .. } => None,
            LoadOutcome::Skipped { reason } => Some(reason),
        }
    }
}
