//! The `fnhost` command: serve the API, administer accounts, run the
//! extractor over a folder of pages.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use fnhost::accounts::Mode;
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
        op: AdminCommand,
    },
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Create an account with a starting balance, a live key and a test key.
    CreateAccount {
        #[arg(long, default_value = "account")]
        name: String,
        /// Starting balance in USD, in live mode and in test mode.
        #[arg(long, default_value = "0")]
        balance_usd: String,
    },
    /// Create a key with scopes and a per-session cap.
    CreateKey {
        #[arg(long)]
        account: String,
        #[arg(long, value_parser = parse_mode, default_value = "live")]
        mode: Mode,
        #[arg(long, default_value = "key")]
        name: String,
        /// Comma-separated scopes (default: all).
        #[arg(long, value_delimiter = ',')]
        scopes: Option<Vec<String>>,
        /// The most one session may reserve with this key, in USD.
        #[arg(long)]
        session_cap_usd: Option<String>,
    },
    /// Add money to a balance.
    TopUp {
        #[arg(long)]
        account: String,
        #[arg(long, value_parser = parse_mode, default_value = "live")]
        mode: Mode,
        #[arg(long)]
        amount_usd: String,
    },
    /// Set caps: the account's monthly cap and/or a key's session cap ("none" clears).
    SetCaps {
        #[arg(long)]
        account: String,
        #[arg(long)]
        monthly_cap_usd: Option<String>,
        #[arg(long)]
        key: Option<String>,
        #[arg(long)]
        session_cap_usd: Option<String>,
    },
    /// Set the low-balance threshold that fires balance.low.
    SetThreshold {
        #[arg(long)]
        account: String,
        #[arg(long)]
        threshold_usd: String,
    },
    /// Check every invariant of the ledger.
    Audit,
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    match s {
        "live" => Ok(Mode::Live),
        "test" => Ok(Mode::Test),
        _ => Err("mode is live or test".into()),
    }
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
        Command::Extract { dir, out, list } => tokio::runtime::Runtime::new()?.block_on(async {
            let (plugins, _) = fnhost::plugins::Plugins::load(
                &config.plugin_config(),
                &config.plugin_cache_root(),
            )?;
            let shape = if list {
                fnhost::extract_cmd::Shape::List
            } else {
                fnhost::extract_cmd::Shape::MainProduct
            };
            fnhost::extract_cmd::run(&plugins, &dir, &out, shape).await
        }),
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
            let op = match op {
                AdminCommand::CreateAccount { name, balance_usd } => {
                    AdminOp::CreateAccount { name, balance_usd }
                }
                AdminCommand::CreateKey {
                    account,
                    mode,
                    name,
                    scopes,
                    session_cap_usd,
                } => AdminOp::CreateKey {
                    account,
                    mode,
                    name,
                    scopes,
                    session_cap_usd,
                },
                AdminCommand::TopUp {
                    account,
                    mode,
                    amount_usd,
                } => AdminOp::TopUp {
                    account,
                    mode,
                    amount_usd,
                },
                AdminCommand::SetCaps {
                    account,
                    monthly_cap_usd,
                    key,
                    session_cap_usd,
                } => AdminOp::SetCaps {
                    account,
                    monthly_cap_usd,
                    key,
                    session_cap_usd,
                },
                AdminCommand::SetThreshold {
                    account,
                    threshold_usd,
                } => AdminOp::SetThreshold {
                    account,
                    threshold_usd,
                },
                AdminCommand::Audit => AdminOp::Audit,
            };
            let out = admin::run(&config.data_dir, op)?;
            println!("{}", serde_json::to_string_pretty(&out)?);
            Ok(())
        }
    }
}
