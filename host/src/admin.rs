//! Operator commands (`fnhost admin ...`). Each prints JSON. They run
//! against the database directly, or, when a server holds the data
//! directory, through that server's admin socket (redb allows one process
//! per database file).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::accounts::{Account, Mode};
use crate::keys;
use crate::ledger;
use crate::money::Micros;
use crate::store::{Store, Tx};
use crate::wire::{self, Usd};

/// One admin operation: the command line (`fnhost admin <op> --flags`,
/// derived from this type) and the admin socket's JSON (`{"op": ...}`)
/// carry the same value.
#[derive(Debug, Clone, Serialize, Deserialize, clap::Subcommand)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum AdminOp {
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

fn usd(name: &str, v: &str) -> anyhow::Result<Micros> {
    Micros::parse_usd(v).with_context(|| format!("{name} must be a decimal USD amount, got {v:?}"))
}

fn optional_cap(name: &str, v: &Option<String>) -> anyhow::Result<Option<Option<Micros>>> {
    match v.as_deref() {
        None => Ok(None),
        Some("none") => Ok(Some(None)),
        Some(v) => Ok(Some(Some(usd(name, v)?))),
    }
}

fn account_of(tx: &Tx, id: &str) -> anyhow::Result<Account> {
    crate::accounts::get(tx, id)?.with_context(|| format!("no account {id}"))
}

/// Carry out an operation on the database.
/// `account create`: the account and its two keys' secrets (shown once).
#[derive(Serialize)]
struct AccountCreated {
    account_id: String,
    balance_usd: Usd,
    live_key: String,
    live_key_id: String,
    test_key: String,
    test_key_id: String,
}

/// `key create`: the key, with its secret (shown once).
#[derive(Serialize)]
struct KeyCreated {
    #[serde(flatten)]
    key: wire::Key,
    #[serde(rename = "key")]
    secret: String,
}

/// `caps set`: the account's monthly cap, and the key's when one was named.
#[derive(Serialize)]
struct CapsSet {
    account_id: String,
    monthly_cap_usd: Option<Usd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<wire::Key>,
}

/// `threshold set`: the account's low-balance threshold.
#[derive(Serialize)]
struct ThresholdSet {
    account_id: String,
    low_balance_threshold_usd: Usd,
}

/// One line the admin socket answers: `{"ok": …}` or `{"error": "…"}`.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum SocketAnswer {
    Ok(Value),
    Error(String),
}

fn answer(x: impl Serialize) -> anyhow::Result<Value> {
    Ok(serde_json::to_value(x)?)
}

pub fn execute(store: &Store, op: AdminOp) -> anyhow::Result<Value> {
    ledger::adopt_account_sequences(store)?;
    if let AdminOp::Audit = op {
        let audit = store.read(ledger::audit)?;
        return Ok(serde_json::to_value(audit)?);
    }
    store.write(|tx| -> anyhow::Result<Value> {
        match op {
            AdminOp::CreateAccount { name, balance_usd } => {
                let amount = usd("balance_usd", &balance_usd)?;
                let account = Account::new(&name);
                crate::accounts::put(tx, &account)?;
                if amount > Micros::ZERO {
                    ledger::top_up(tx, &account.id, Mode::Live, amount, "starting balance")?;
                    ledger::top_up(tx, &account.id, Mode::Test, amount, "starting balance")?;
                }
                let (live, live_secret) =
                    keys::create(tx, &account.id, Mode::Live, "live key", None, None)?;
                let (test, test_secret) =
                    keys::create(tx, &account.id, Mode::Test, "test key", None, None)?;
                answer(AccountCreated {
                    account_id: account.id,
                    balance_usd: amount.into(),
                    live_key: live_secret,
                    live_key_id: live.id,
                    test_key: test_secret,
                    test_key_id: test.id,
                })
            }
            AdminOp::CreateKey {
                account,
                mode,
                name,
                scopes,
                session_cap_usd,
            } => {
                account_of(tx, &account)?;
                let cap = optional_cap("session_cap_usd", &session_cap_usd)?.flatten();
                let (key, secret) = keys::create(tx, &account, mode, &name, scopes, cap)?;
                answer(KeyCreated {
                    key: key.to_wire(),
                    secret,
                })
            }
            AdminOp::TopUp {
                account,
                mode,
                amount_usd,
            } => {
                let acct = account_of(tx, &account)?;
                let b = ledger::top_up(
                    tx,
                    &account,
                    mode,
                    usd("amount_usd", &amount_usd)?,
                    "top-up",
                )
                .map_err(|e| anyhow::anyhow!("{e}"))?;
                Ok(serde_json::to_value(crate::platform::balance_wire(
                    &acct, mode, &b,
                ))?)
            }
            AdminOp::SetCaps {
                account,
                monthly_cap_usd,
                key,
                session_cap_usd,
            } => {
                let mut acct = account_of(tx, &account)?;
                if let Some(cap) = optional_cap("monthly_cap_usd", &monthly_cap_usd)? {
                    acct.monthly_cap = cap;
                    crate::accounts::put(tx, &acct)?;
                }
                let mut out = CapsSet {
                    monthly_cap_usd: acct.monthly_cap.map(Usd),
                    account_id: acct.id.clone(),
                    key: None,
                };
                if let Some(key_id) = key {
                    let mut k = keys::get(tx, &key_id)?
                        .filter(|k| k.account == acct.id)
                        .with_context(|| format!("no key {key_id} in {}", acct.id))?;
                    if let Some(cap) = optional_cap("session_cap_usd", &session_cap_usd)? {
                        k.session_cap = cap;
                        keys::put(tx, &k)?;
                    }
                    out.key = Some(k.to_wire());
                }
                answer(out)
            }
            AdminOp::SetThreshold {
                account,
                threshold_usd,
            } => {
                let mut acct = account_of(tx, &account)?;
                acct.low_balance_threshold = usd("threshold_usd", &threshold_usd)?;
                crate::accounts::put(tx, &acct)?;
                answer(ThresholdSet {
                    account_id: acct.id,
                    low_balance_threshold_usd: acct.low_balance_threshold.into(),
                })
            }
            AdminOp::Audit => unreachable!("handled above"),
        }
    })
}

/// Run an operation: through a running server's socket when there is one,
/// else on the database file directly.
pub fn run(config: &crate::config::Config, op: AdminOp) -> anyhow::Result<Value> {
    let location = config.store_location()?;
    if let crate::store::Location::Postgres(_) = location {
        // A shared database takes any number of clients. A change to keys
        // or accounts reaches every node's cache within `KEYS_POLL`: the
        // command returns once it has.
        let changes = !matches!(op, AdminOp::Audit);
        let out = execute(&Store::open_at(&location)?, op)?;
        if changes {
            std::thread::sleep(crate::store::KEYS_POLL + std::time::Duration::from_millis(100));
        }
        return Ok(out);
    }
    let socket = config.admin_socket();
    #[cfg(unix)]
    if let Ok(stream) = std::os::unix::net::UnixStream::connect(&socket) {
        let mut writer = stream.try_clone()?;
        writeln!(writer, "{}", serde_json::to_string(&op)?)?;
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line)?;
        let answer: Value =
            serde_json::from_str(&line).context("bad answer from the server's admin socket")?;
        if let Some(err) = answer.get("error").and_then(Value::as_str) {
            anyhow::bail!("{err}");
        }
        return Ok(answer["ok"].clone());
    }
    let store = Store::open_at(&location)
        .context("the database is busy and no server answers on its admin socket")?;
    execute(&store, op)
}

/// Bind the admin socket inside the data directory. Only the data
/// directory's owner can reach it (mode 0600).
#[cfg(unix)]
pub fn bind_socket(path: &Path) -> anyhow::Result<tokio::net::UnixListener> {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::remove_file(path);
    let listener = tokio::net::UnixListener::bind(path)
        .with_context(|| format!("failed to bind {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// Serve admin operations on the bound socket.
#[cfg(unix)]
pub async fn serve_socket(store: Store, listener: tokio::net::UnixListener) -> anyhow::Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    loop {
        let (stream, _) = listener.accept().await?;
        let store = store.clone();
        tokio::spawn(async move {
            let (read, mut write) = stream.into_split();
            let mut lines = tokio::io::BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let reply = match serde_json::from_str::<AdminOp>(&line) {
                    Err(e) => SocketAnswer::Error(format!("bad admin request: {e}")),
                    Ok(op) => {
                        let store = store.clone();
                        match tokio::task::spawn_blocking(move || execute(&store, op)).await {
                            Ok(Ok(v)) => SocketAnswer::Ok(v),
                            Ok(Err(e)) => SocketAnswer::Error(format!("{e:#}")),
                            Err(e) => SocketAnswer::Error(format!("{e}")),
                        }
                    }
                };
                let line = serde_json::to_string(&reply).expect("an answer is plain JSON");
                if write
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .is_err()
                {
                    break;
                }
            }
        });
    }
}
