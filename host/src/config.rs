//! Configuration: built-in defaults, then a TOML file, then `FNHOST_*`
//! environment variables, then command-line flags (each wins over the one
//! before). Every key is documented in docs/CONFIGURATION.md.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::money::Micros;

/// The preview switches this build can open: surfaces served fully once
/// opened (each opens planned routes of `crate::planned`; the configuration refuses others).
pub const PREVIEW_SWITCHES: &[&str] = &[
    "extractions",
    "receipts",
    "webhook_test",
    "redaction",
    "refresh",
    "discover",
    "monitors",
    "mcp",
];

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Where the database, the plugin cache and the admin socket live.
    pub data_dir: PathBuf,
    /// The storage engine: `redb` (embedded, one node, the default) or
    /// `postgres` (shared by several nodes; needs `postgres_url`).
    pub storage: StorageKind,
    /// The PostgreSQL connection URL when `storage = "postgres"`
    /// (`postgres://user:password@host:port/database`, or key=value form).
    pub postgres_url: Option<String>,
    /// TLS to PostgreSQL: `disable`, `prefer`, `require`, `verify-ca` or
    /// `verify-full` (libpq's `sslmode`; wins over the URL's). Unset: the
    /// URL's, else `prefer`.
    pub postgres_sslmode: Option<String>,
    /// A PEM file of the CA certificates that verify the database's
    /// certificate, or `system` (libpq's `sslrootcert`; wins over the URL's).
    pub postgres_ca_file: Option<String>,
    /// How long a node's lease lasts without a heartbeat, in milliseconds:
    /// after that, another node ends the runs it left (PostgreSQL only).
    pub node_lease_ms: u64,
    /// The address the API listens on.
    pub listen: SocketAddr,
    /// The server's public base URL (without /v1), used in links it returns.
    /// Default: `http://<listen>`.
    pub public_url: Option<String>,
    /// Base of `doc_url` in errors. Default: `<public_url>/docs`.
    pub docs_url: Option<String>,
    /// Development only: let fetches and webhook deliveries reach loopback and
    /// private addresses, over plain http too.
    pub allow_private_targets: bool,
    /// Create a demo account with a live and a test key on first start.
    pub demo_account: bool,
    /// Requests per second allowed per key (token bucket refill rate).
    pub rate_limit_per_s: u32,
    /// Requests a key may make in a burst.
    pub rate_limit_burst: u32,
    /// Runs in flight allowed per account and mode.
    pub max_runs_in_flight: u32,
    pub pricing: Pricing,
    pub fetch: FetchConfig,
    pub webhooks: WebhookConfig,
    pub monitors: MonitorConfig,
    pub plugins: PluginSettings,
    /// An optional search provider: `GET <url>?q=<query>` answering
    /// `{"results": [{"url": "..."}]}`. Unset: queries must name their sources.
    pub search_provider_url: Option<String>,
    /// Names answered without DNS (like curl's --resolve), checked like any
    /// other answer: `{"hooks.example" = ["203.0.113.7"]}`.
    pub resolve_overrides: std::collections::HashMap<String, Vec<std::net::IpAddr>>,
    pub faults: Faults,
    /// Planned surfaces the operator opens ahead of their release (see
    /// `PREVIEW_SWITCHES`): a TOML list, or from the
    /// environment a list or a comma-separated string
    /// (`FNHOST_PREVIEW=extractions,receipts`). Empty: every planned route
    /// answers 501 as the specification says.
    #[serde(deserialize_with = "list_or_commas")]
    pub preview: Vec<String>,
}

/// The storage engine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageKind {
    #[default]
    Redb,
    Postgres,
}

/// A list of strings, or one string of comma-separated items.
fn list_or_commas<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Form {
        List(Vec<String>),
        Commas(String),
    }
    Ok(match Form::deserialize(d)? {
        Form::List(items) => items,
        Form::Commas(text) => text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    })
}

/// Fault injection, for drills and tests only; everything off by default.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Faults {
    /// A run whose query contains this text panics after its first page
    /// commits (the watchdog and the run's own guard must end it).
    pub run_panic_marker: Option<String>,
    /// A run whose query contains this text is lost: its task ends at once
    /// without ending the session (the watchdog must).
    pub run_lost_marker: Option<String>,
}

/// What runs cost. See docs/PRICING.md.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Pricing {
    /// Charged per page fetched and receipted.
    pub per_fetch_usd: String,
    /// Charged per record extracted.
    pub per_record_usd: String,
    /// Charged per page rendered in the browser that yields records (on
    /// top of its fetch).
    pub per_render_usd: String,
    /// The reservation when a session sends no max_spend_usd.
    pub default_max_spend_usd: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FetchConfig {
    /// The most bytes read from one page.
    pub max_page_bytes: usize,
    /// Time limit for one fetch, in seconds.
    pub timeout_s: u64,
    /// The most pages one turn of a session fetches.
    pub max_pages_per_turn: u32,
    /// The most turns a session may have.
    pub max_turns: u32,
    /// The User-Agent of every fetch. Empty: `fnhost/<version> (+<public_url>)`,
    /// so a site's operator can find who reads it.
    pub user_agent: String,
    /// Requests in flight to one host, shared by every run of the node.
    pub per_host_concurrency: usize,
    /// Least milliseconds between the starts of two requests to one host.
    pub per_host_interval_ms: u64,
    /// Retries of a page answered 429/503 (after its Retry-After) or another 5xx.
    pub retries: u32,
    /// The longest Retry-After honoured, in seconds; a longer one ends the
    /// page `rate_limited` at once.
    pub retry_after_max_s: u64,
    /// The first back-off after a 5xx, in ms; doubled per retry, plus jitter.
    pub backoff_ms: u64,
    /// How long a site's robots.txt is kept before it is read again, in seconds.
    pub robots_ttl_s: u64,
    /// Hosts whose robots.txt is not applied: only sites the operator owns.
    pub robots_exempt_hosts: Vec<String>,
    /// Rendering in headless Chromium: "off", "auto" (pages whose plain read
    /// is a script shell) or "always". Unset: "auto" when a browser is
    /// found at start, "off" otherwise.
    pub render: Option<crate::wire::RenderMode>,
    /// The Chromium binary. Empty: `chromium`, `chromium-browser`,
    /// `google-chrome`, `google-chrome-stable` or `chrome` on PATH.
    pub browser: String,
    /// Tabs rendering at once on this node.
    pub render_tabs: usize,
    /// The longest one render may take, in seconds (a hung browser is
    /// killed and started again).
    pub render_timeout_s: u64,
    /// Render time one run may use in all, in seconds; past it, pages that
    /// need a browser end `needs_rendering`.
    pub render_run_budget_s: u64,
    /// Scrolls to the bottom of a rendered page (lazy loading).
    pub render_scrolls: u32,
    /// Clicks on a "load more" control of a rendered page.
    pub render_clicks: u32,
    /// Quiet milliseconds after which a rendered page's network is settled.
    pub render_settle_ms: u64,
    /// The JavaScript heap of a tab, in MB.
    pub render_heap_mb: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MonitorConfig {
    /// The length of one second of a monitor's cadence, in milliseconds.
    /// 1000 in production; tests shrink it so a cadence of a minute passes
    /// in about a second.
    pub second_ms: u64,
    /// How often the scheduler looks for monitors that are due, in ms.
    pub tick_ms: u64,
}

impl Default for MonitorConfig {
    fn default() -> MonitorConfig {
        MonitorConfig {
            second_ms: 1000,
            tick_ms: 1000,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebhookConfig {
    /// The length of one "minute" of the retry schedule, in milliseconds.
    /// 60000 in production; tests shrink it to run the schedule in seconds.
    pub schedule_minute_ms: u64,
    /// A PEM file of an extra root certificate to trust for deliveries
    /// (for a test receiver with a self-signed certificate).
    pub extra_root_cert: Option<PathBuf>,
    /// A delivery must be answered 2xx within this many seconds.
    pub timeout_s: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PluginSettings {
    /// A directory of operator plugins (`<name>/plugin.toml` + component).
    pub dir: Option<PathBuf>,
    /// Development: load `dir` again whenever a file in it changes (checked
    /// every second), logging the load report.
    pub watch: bool,
    /// Time limit per plugin call, in milliseconds.
    pub call_timeout_ms: u64,
    /// Memory limit per plugin instance, in MiB.
    pub memory_limit_mib: usize,
    /// The most bytes a plugin call may return.
    pub max_output_bytes: usize,
    /// Plugin instances alive at once (default: four per core). Calls past
    /// it wait for a slot, first come first served: a few per core keeps the
    /// cores busy while no call's latency balloons behind dozens of others.
    pub max_instances: u32,
    /// Compiled plugins are cached in `<cache_dir>/plugin-cache/` (default:
    /// the data directory). Servers may share one.
    pub cache_dir: Option<PathBuf>,
    /// MiB of checked plugin results kept in memory to answer a repeated
    /// call (the same page, recording or query for the same component)
    /// without running the plugin again; 0 runs every call.
    pub memo_mib: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            data_dir: PathBuf::from("data"),
            storage: StorageKind::Redb,
            postgres_url: None,
            postgres_sslmode: None,
            postgres_ca_file: None,
            node_lease_ms: 5_000,
            listen: "127.0.0.1:8080".parse().unwrap(),
            public_url: None,
            docs_url: None,
            allow_private_targets: false,
            demo_account: true,
            rate_limit_per_s: 100,
            rate_limit_burst: 200,
            max_runs_in_flight: 10,
            pricing: Pricing::default(),
            fetch: FetchConfig::default(),
            webhooks: WebhookConfig::default(),
            monitors: MonitorConfig::default(),
            plugins: PluginSettings::default(),
            search_provider_url: None,
            resolve_overrides: Default::default(),
            faults: Faults::default(),
            preview: Vec::new(),
        }
    }
}

impl Default for Pricing {
    fn default() -> Pricing {
        Pricing {
            per_fetch_usd: "0.002".into(),
            per_record_usd: "0.0005".into(),
            per_render_usd: "0.003".into(),
            default_max_spend_usd: "1".into(),
        }
    }
}

impl Default for FetchConfig {
    fn default() -> FetchConfig {
        FetchConfig {
            max_page_bytes: 5 * 1024 * 1024,
            timeout_s: 10,
            max_pages_per_turn: 500,
            max_turns: 5,
            user_agent: String::new(),
            per_host_concurrency: 2,
            per_host_interval_ms: 250,
            retries: 2,
            retry_after_max_s: 20,
            backoff_ms: 500,
            robots_ttl_s: 3600,
            robots_exempt_hosts: Vec::new(),
            render: None,
            browser: String::new(),
            render_tabs: 2,
            render_timeout_s: 30,
            render_run_budget_s: 180,
            render_scrolls: 8,
            render_clicks: 8,
            render_settle_ms: 400,
            render_heap_mb: 512,
        }
    }
}

impl Default for WebhookConfig {
    fn default() -> WebhookConfig {
        WebhookConfig {
            schedule_minute_ms: 60_000,
            extra_root_cert: None,
            timeout_s: 10,
        }
    }
}

impl Default for PluginSettings {
    fn default() -> PluginSettings {
        PluginSettings {
            dir: None,
            watch: false,
            call_timeout_ms: 5_000,
            memory_limit_mib: 256,
            max_output_bytes: 16 * 1024 * 1024,
            max_instances: default_max_instances(),
            cache_dir: None,
            memo_mib: 64,
        }
    }
}

/// Four plugin instances per core, at least eight.
fn default_max_instances() -> u32 {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    u32::try_from(cores * 4).unwrap_or(u32::MAX).max(8)
}

impl Config {
    /// Defaults, then the file (if any), then the environment.
    pub fn load(
        file: Option<&Path>,
        env: impl Iterator<Item = (String, String)>,
    ) -> anyhow::Result<Config> {
        let mut table = toml::Table::try_from(Config::default())?;
        if let Some(file) = file {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("failed to read {}", file.display()))?;
            let from_file: toml::Table = text
                .parse()
                .with_context(|| format!("failed to parse {}", file.display()))?;
            merge(&mut table, from_file);
        }
        for (name, value) in env {
            let Some(key) = name.strip_prefix("FNHOST_") else {
                continue;
            };
            if key == "CONFIG" || key == "LOG" {
                continue;
            }
            let path: Vec<String> = key
                .to_ascii_lowercase()
                .split("__")
                .map(str::to_string)
                .collect();
            set_path(&mut table, &path, parse_env_value(&value));
        }
        let config: Config = table.try_into().context("invalid configuration")?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> anyhow::Result<()> {
        if let Some(mode) = &self.postgres_sslmode {
            crate::store::tls::SslMode::parse(mode).context("postgres_sslmode")?;
        }
        for (name, v) in [
            ("pricing.per_fetch_usd", &self.pricing.per_fetch_usd),
            ("pricing.per_record_usd", &self.pricing.per_record_usd),
            ("pricing.per_render_usd", &self.pricing.per_render_usd),
            (
                "pricing.default_max_spend_usd",
                &self.pricing.default_max_spend_usd,
            ),
        ] {
            Micros::parse_usd(v)
                .with_context(|| format!("{name} must be a decimal USD amount, got {v:?}"))?;
        }
        anyhow::ensure!(
            self.rate_limit_per_s > 0,
            "rate_limit_per_s must be positive"
        );
        anyhow::ensure!(
            self.max_runs_in_flight > 0,
            "max_runs_in_flight must be positive"
        );
        for name in &self.preview {
            anyhow::ensure!(
                PREVIEW_SWITCHES.contains(&name.as_str()),
                "preview: {name:?} is not a surface this build can open (it can open: {})",
                PREVIEW_SWITCHES.join(", ")
            );
        }
        Ok(())
    }

    /// Has the operator opened this preview surface?
    pub fn preview_open(&self, switch: &str) -> bool {
        self.preview.iter().any(|p| p == switch)
    }

    pub fn public_url(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.listen))
            .trim_end_matches('/')
            .to_string()
    }

    pub fn docs_url(&self) -> String {
        self.docs_url
            .clone()
            .unwrap_or_else(|| format!("{}/docs", self.public_url()))
    }

    /// How fetches treat the sites they read.
    pub fn fetch_manners(&self) -> crate::fetch::Manners {
        let f = &self.fetch;
        let user_agent = if f.user_agent.trim().is_empty() {
            format!(
                "fnhost/{} (+{})",
                env!("CARGO_PKG_VERSION"),
                self.public_url()
            )
        } else {
            f.user_agent.clone()
        };
        crate::fetch::Manners {
            timeout: std::time::Duration::from_secs(f.timeout_s),
            max_bytes: f.max_page_bytes,
            user_agent,
            per_host: f.per_host_concurrency.max(1),
            interval: std::time::Duration::from_millis(f.per_host_interval_ms),
            retries: f.retries,
            retry_after_max: std::time::Duration::from_secs(f.retry_after_max_s),
            backoff: std::time::Duration::from_millis(f.backoff_ms),
            robots_ttl: std::time::Duration::from_secs(f.robots_ttl_s),
            robots_exempt: f.robots_exempt_hosts.clone(),
        }
    }

    pub fn per_fetch(&self) -> Micros {
        Micros::parse_usd(&self.pricing.per_fetch_usd).expect("validated")
    }

    pub fn per_render(&self) -> Micros {
        Micros::parse_usd(&self.pricing.per_render_usd).expect("validated")
    }

    pub fn per_record(&self) -> Micros {
        Micros::parse_usd(&self.pricing.per_record_usd).expect("validated")
    }

    pub fn default_max_spend(&self) -> Micros {
        Micros::parse_usd(&self.pricing.default_max_spend_usd).expect("validated")
    }

    /// The outbound target policy (the hard wall) this configuration sets.
    pub fn target_policy(&self) -> crate::targets::Policy {
        crate::targets::Policy {
            allow_private: self.allow_private_targets,
            resolve_overrides: self
                .resolve_overrides
                .iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                .collect(),
        }
    }

    /// The plugin runtime's settings.
    pub fn plugin_config(&self) -> crate::plugins::PluginConfig {
        crate::plugins::PluginConfig {
            plugins_dir: self.plugins.dir.clone(),
            call_timeout: std::time::Duration::from_millis(self.plugins.call_timeout_ms),
            memory_limit_bytes: self.plugins.memory_limit_mib * 1024 * 1024,
            max_output_bytes: self.plugins.max_output_bytes,
            max_instances: self.plugins.max_instances,
            memo_bytes: self.plugins.memo_mib.saturating_mul(1024 * 1024),
        }
    }

    /// Where the compiled-plugin cache lives (its `plugin-cache/` folder is inside).
    pub fn plugin_cache_root(&self) -> PathBuf {
        self.plugins
            .cache_dir
            .clone()
            .unwrap_or_else(|| self.data_dir.clone())
    }

    pub fn db_path(&self) -> PathBuf {
        self.data_dir.join("fnhost.redb")
    }

    /// Where the store is, by the `storage` setting.
    pub fn store_location(&self) -> anyhow::Result<crate::store::Location> {
        Ok(match self.storage {
            StorageKind::Redb => crate::store::Location::Redb(self.db_path()),
            StorageKind::Postgres => {
                let url = self
                    .postgres_url
                    .clone()
                    .filter(|u| !u.trim().is_empty())
                    .context(
                        "storage = \"postgres\" needs postgres_url (or FNHOST_POSTGRES_URL)",
                    )?;
                crate::store::Location::Postgres(crate::store::tls::with_settings(
                    &url,
                    self.postgres_sslmode.as_deref(),
                    self.postgres_ca_file.as_deref(),
                ))
            }
        })
    }

    pub fn admin_socket(&self) -> PathBuf {
        self.data_dir.join("admin.sock")
    }
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

fn set_path(table: &mut toml::Table, path: &[String], value: toml::Value) {
    match path {
        [] => {}
        [last] => {
            table.insert(last.clone(), value);
        }
        [first, rest @ ..] => {
            let entry = table
                .entry(first.clone())
                .or_insert_with(|| toml::Value::Table(Default::default()));
            if let toml::Value::Table(t) = entry {
                set_path(t, rest, value);
            }
        }
    }
}

/// An environment value as TOML if it parses as a scalar, else as a string.
fn parse_env_value(raw: &str) -> toml::Value {
    let doc = format!("v = {raw}");
    match doc.parse::<toml::Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(raw.into())),
        Err(_) => toml::Value::String(raw.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_file_then_environment() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("fnhost.toml");
        std::fs::write(
            &file,
            "rate_limit_per_s = 7\n[pricing]\nper_fetch_usd = \"0.01\"\n",
        )
        .unwrap();
        let env = vec![
            ("FNHOST_RATE_LIMIT_PER_S".to_string(), "9".to_string()),
            (
                "FNHOST_WEBHOOKS__SCHEDULE_MINUTE_MS".to_string(),
                "100".to_string(),
            ),
            ("FNHOST_DATA_DIR".to_string(), "/tmp/x".to_string()),
            ("OTHER".to_string(), "1".to_string()),
        ];
        let c = Config::load(Some(&file), env.into_iter()).unwrap();
        assert_eq!(c.rate_limit_per_s, 9);
        assert_eq!(c.pricing.per_fetch_usd, "0.01");
        assert_eq!(c.webhooks.schedule_minute_ms, 100);
        assert_eq!(c.data_dir, PathBuf::from("/tmp/x"));
    }

    #[test]
    fn rejects_unknown_keys_and_bad_prices() {
        let env = vec![("FNHOST_NO_SUCH_KEY".to_string(), "1".to_string())];
        assert!(Config::load(None, env.into_iter()).is_err());
        let env = vec![(
            "FNHOST_PRICING__PER_FETCH_USD".to_string(),
            "\"cheap\"".to_string(),
        )];
        assert!(Config::load(None, env.into_iter()).is_err());
    }
}
