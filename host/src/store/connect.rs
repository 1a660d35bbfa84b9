//! How the PostgreSQL engine connects: the URL's settings with the bounds a
//! shared database needs, TLS, and the watch on other nodes' key changes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio_postgres::Client;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::COUNTERS;

/// How often a node looks for key and account changes made by other nodes:
/// a revoked key stops working everywhere within this bound.
pub const KEYS_POLL: Duration = Duration::from_millis(250);
/// The counter every write that touches a key or an account moves.
pub(super) const KEYS_GENERATION: &str = "keys_generation";

/// The URL's settings, with the bounds a shared database needs unless the
/// URL sets its own: a node that freezes or vanishes while it holds the
/// locks must not stop other writes for long.
///
/// - a transaction idle for 30 s is ended by the server (its lock freed);
/// - a statement runs at most 60 s, waiting for a lock included;
/// - a connection is given 10 s to open, and TCP keepalives notice a peer
///   gone silent within about a minute.
///
/// TLS as the string's `sslmode` and `sslrootcert` say (see `tls.rs`).
pub(super) fn connection_config(url: &str) -> anyhow::Result<Connect> {
    let (url, tls) = super::tls::split(url)?;
    let mut config: tokio_postgres::Config = url
        .parse()
        .context("postgres_url is not a PostgreSQL connection string")?;
    config.ssl_mode(tls.mode.driver_mode());
    let options = config.get_options().unwrap_or("").to_string();
    let mut add = Vec::new();
    for (name, value) in [
        ("idle_in_transaction_session_timeout", "30s"),
        ("statement_timeout", "60s"),
    ] {
        if !options.contains(name) {
            add.push(format!("-c {name}={value}"));
        }
    }
    if !add.is_empty() {
        config.options(format!("{options} {}", add.join(" ")).trim());
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    config
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(30))
        .keepalives_interval(Duration::from_secs(10))
        .keepalives_retries(3);
    Ok(Connect {
        config,
        tls: super::tls::connector(&tls)?,
    })
}

/// How to open a connection: the driver's settings and the TLS connector.
#[derive(Clone)]
pub(super) struct Connect {
    pub(super) config: tokio_postgres::Config,
    pub(super) tls: MakeRustlsConnect,
}

/// Poll the shared keys generation forever, moving the local one when it
/// changes; reconnect when the connection is lost.
pub(super) async fn watch_keys(connect: Connect, local: Arc<AtomicU64>) {
    let mut seen: Option<Vec<u8>> = None;
    let mut tick = tokio::time::interval(KEYS_POLL);
    let mut client: Option<Client> = None;
    loop {
        tick.tick().await;
        if client.as_ref().is_none_or(Client::is_closed) {
            client = match connect.config.connect(connect.tls.clone()).await {
                Ok((c, connection)) => {
                    tokio::spawn(connection);
                    Some(c)
                }
                Err(e) => {
                    tracing::warn!(error = %e, "watching key changes: cannot connect; keys are read afresh at every poll until it can");
                    local.fetch_add(1, Ordering::SeqCst);
                    continue;
                }
            };
        }
        let Some(c) = &client else { continue };
        let row = c
            .query_opt(
                "SELECT v FROM fnhost_kv WHERE tbl = $1 AND k = $2",
                &[&COUNTERS.name, &KEYS_GENERATION.as_bytes()],
            )
            .await;
        match row {
            Ok(row) => {
                let now = row.map(|r| r.get::<_, Vec<u8>>(0)).unwrap_or_default();
                if seen.as_ref().is_some_and(|s| *s != now) {
                    local.fetch_add(1, Ordering::SeqCst);
                }
                seen = Some(now);
            }
            Err(e) => {
                tracing::warn!(error = %e, "watching key changes failed; keys are read afresh at every poll until it works again");
                local.fetch_add(1, Ordering::SeqCst);
                client = None;
            }
        }
    }
}
