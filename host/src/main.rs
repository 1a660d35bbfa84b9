//! The `fnhost` command: serve the API, administer accounts, run the
//! extractor over a folder of pages.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use fnhost::admin::{self, AdminOp};
use fnhost::config::Config;

#[derive(Parser)]
#[command(
    name = "fnhost",
    version,
    about = "Turns pages of the open web into live catalogs."
)]
struct Cli {
    /// A TOML configuration file (also FNHOST_CONFIG). Default: <data-dir>/fnhost.toml if present.
    #[arg(long, global = true, env = "FNHOST_CONFIG")]
    config: Option<PathBuf>,
    /// The data directory (database, plugin cache, admin socket).
    #[arg(long, global = true)]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum PluginOp {
    /// Make a ready extractor project: the contract's WIT, bindings, a
    /// manifest, a test page and a build script.
    New {
        /// The plugin's name (lower-case letters, digits, -).
        name: String,
        /// rust, python or js.
        #[arg(long)]
        lang: String,
        /// Where to make it (default: ./NAME); must not exist or be empty.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Check a component before deploying it: its world and contract
    /// version, its exports, imports the host refuses, size, preparation
    /// time and a smoke call on a sample page (and its manifest, with
    /// --manifest). Prints JSON; exits 1 when it fails.
    Check {
        file: PathBuf,
        /// The role it must play: extractor, planner, differ or source.
        #[arg(long)]
        role: Option<String>,
        /// A page of yours for the smoke call (with --url), instead of the built-in one.
        #[arg(long, requires = "url")]
        page: Option<PathBuf>,
        /// The URL the page was served at.
        #[arg(long)]
        url: Option<String>,
        /// The plugin's plugin.toml, checked as the host would load it (its
        /// role must be the component's).
        #[arg(long)]
        manifest: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Serve the API.
    Serve {
        /// Address to listen on (default 127.0.0.1:8080).
        #[arg(long)]
        listen: Option<SocketAddr>,
        /// Development only: let fetches and webhooks reach loopback and private addresses, over http too.
        #[arg(long)]
        allow_private_targets: bool,
    },
    /// Run the extractor plugin over DIR/pages/<id>.html[.gz] (DIR/urls.json maps
    /// ids to URLs) and write each page's main product as JSON.
    Extract {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Write every record of each page with the page's kind:
        /// `{id: {"kind": ..., "records": [{name, price, currency, url, availability}, ...]}}`.
        #[arg(long)]
        list: bool,
        /// Run this extractor component instead of the built-in one.
        #[arg(long)]
        plugin: Option<PathBuf>,
        /// Score the `--list` predictions against this ground truth
        /// (`{id: {items: [{name, url, price, currency}]}}`, the datasets'
        /// format) and print items F1, price, currency and kind figures.
        #[arg(long, requires = "list")]
        truth: Option<PathBuf>,
    },
    /// Plugin authors' commands.
    Plugin {
        #[command(subcommand)]
        op: PluginOp,
    },
    /// Run one live session in-process and save the pages it fetched as a
    /// recording for test mode (plugins/replay/recordings/).
    Record {
        /// The query to run, naming its sources.
        query: String,
        /// Where to write the recording (JSON).
        #[arg(long)]
        out: PathBuf,
        /// The recording's name.
        #[arg(long, default_value = "recording")]
        name: String,
        /// Rewrite the seed's origin to this one in every URL and body
        /// (record a site served on loopback as https://shop.example).
        #[arg(long)]
        as_origin: Option<String>,
        /// Development only: allow loopback and private targets.
        #[arg(long)]
        allow_private_targets: bool,
    },
    /// Operator commands; each prints JSON.
    Admin {
        #[command(subcommand)]
        op: AdminOp,
    },
}

fn load_config(cli: &Cli) -> anyhow::Result<Config> {
    let data_dir = cli.data_dir.clone();
    let default_file = data_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("data"))
        .join("fnhost.toml");
    let file = cli
        .config
        .clone()
        .or_else(|| default_file.exists().then_some(default_file));
    let mut config = Config::load(file.as_deref(), std::env::vars())?;
    if let Some(dir) = data_dir {
        config.data_dir = dir;
    }
    Ok(config)
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let config = load_config(&cli)?;
    match cli.command {
        Command::Serve {
            listen,
            allow_private_targets,
        } => {
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_env("FNHOST_LOG")
                        .unwrap_or_else(|_| "info".into()),
                )
                .with_writer(std::io::stderr)
                .init();
            let mut config = config;
            if let Some(listen) = listen {
                config.listen = listen;
            }
            config.allow_private_targets |= allow_private_targets;
            tokio::runtime::Runtime::new()?.block_on(fnhost::server::serve(config))
        }
        Command::Extract {
            dir,
            out,
            list,
            plugin,
            truth,
        } => tokio::runtime::Runtime::new()?.block_on(async {
            // Every page is read once: a memo of results would only cost
            // the hashing of every page. No more instances than pages are
            // extracted at once (the pool sets up every slot at the start),
            // and only the extractor among the built-ins.
            let configured = config.plugin_config();
            let plugin_config = fnhost::plugins::PluginConfig {
                memo_bytes: 0,
                max_instances: configured
                    .max_instances
                    .min(u32::try_from(fnhost::extract_cmd::concurrency()).unwrap_or(u32::MAX)),
                ..configured
            };
            let (plugins, _) = fnhost::plugins::Plugins::load_builtins_of(
                &plugin_config,
                &config.plugin_cache_root(),
                &[fnhost::plugins::Role::Extractor],
            )?;
            if let Some(file) = &plugin {
                let info = plugins.load_extractor_file(file)?;
                eprintln!("extractor: {} ({})", info.id(), file.display());
            }
            let shape = if list {
                fnhost::extract_cmd::Shape::List
            } else {
                fnhost::extract_cmd::Shape::MainProduct
            };
            fnhost::extract_cmd::run(&plugins, &dir, &out, shape).await?;
            if let Some(truth) = truth {
                let read = |p: &std::path::Path| -> anyhow::Result<serde_json::Value> {
                    Ok(serde_json::from_slice(&std::fs::read(p).map_err(|e| {
                        anyhow::anyhow!("failed to read {}: {e}", p.display())
                    })?)?)
                };
                fnhost::extract_cmd_score::score(&read(&out)?, &read(&truth)?)?;
            }
            // Done: the output is written and the scores printed. The
            // process ends here rather than unmapping the plugin pool, the
            // compiled code and the runtime piece by piece on the way out.
            use std::io::Write;
            std::io::stdout().flush()?;
            std::process::exit(0)
        }),
        Command::Plugin {
            op: PluginOp::New { name, lang, dir },
        } => {
            let lang: fnhost::plugin_new::Lang = lang.parse()?;
            let dir = dir.unwrap_or_else(|| PathBuf::from(&name));
            let written = fnhost::plugin_new::create(&dir, &name, lang)?;
            for f in &written {
                println!("{}", f.display());
            }
            eprintln!(
                "made {} ({} files); build it with {}/build.sh, then `fnhost plugin check {}`",
                dir.display(),
                written.len(),
                dir.display(),
                dir.join(fnhost::plugin_new::component_path(lang, &name))
                    .display()
            );
            Ok(())
        }
        Command::Plugin {
            op:
                PluginOp::Check {
                    file,
                    role,
                    page,
                    url,
                    manifest,
                },
        } => {
            let role = match role.as_deref() {
                None => None,
                Some("extractor") => Some(fnhost::plugins::Role::Extractor),
                Some("planner") => Some(fnhost::plugins::Role::Planner),
                Some("differ") => Some(fnhost::plugins::Role::Differ),
                Some("source") => Some(fnhost::plugins::Role::Source),
                Some(other) => {
                    anyhow::bail!("--role {other}: a role is extractor, planner, differ or source")
                }
            };
            let page = match page {
                Some(p) => Some((
                    url.unwrap_or_default(),
                    std::fs::read_to_string(&p)
                        .map_err(|e| anyhow::anyhow!("failed to read {}: {e}", p.display()))?,
                )),
                None => None,
            };
            let expect = fnhost::plugin_check::Expect {
                role,
                page,
                manifest,
            };
            let report = tokio::runtime::Runtime::new()?.block_on(async {
                let (plugins, _) = fnhost::plugins::Plugins::load(
                    &config.plugin_config(),
                    &config.plugin_cache_root(),
                )?;
                anyhow::Ok(fnhost::plugin_check::check(&plugins, &file, &expect).await)
            })?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            if !report.ok {
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Record {
            query,
            out,
            name,
            as_origin,
            allow_private_targets,
        } => {
            let mut config = config;
            config.allow_private_targets |= allow_private_targets;
            let summary = tokio::runtime::Runtime::new()?.block_on(fnhost::record::record(
                config,
                &query,
                &name,
                &out,
                as_origin.as_deref(),
            ))?;
            println!("{}", serde_json::to_string_pretty(&summary)?);
            Ok(())
        }
        Command::Admin { op } => {
            let out = admin::run(&config, op)?;
            println!("{}", serde_json::to_string_pretty(&out)?);
            Ok(())
        }
    }
}
