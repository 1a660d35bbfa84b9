//! `fnhost serve`: open the data directory, recover from any crash, and
//! serve until SIGTERM or Ctrl-C.

use anyhow::Context;
use serde_json::Value;

use crate::admin::{self, AdminOp};
use crate::config::Config;
use crate::state::AppState;
use crate::store::Store;

pub async fn serve(config: Config) -> anyhow::Result<()> {
    std::fs::create_dir_all(&config.data_dir).with_context(|| {
        format!(
            "failed to create the data directory {}",
            config.data_dir.display()
        )
    })?;
    let store = Store::open_as(&config.store_location()?, &node_id(&config.data_dir)?)?;
    tracing::info!(
        engine = store.engine_name(),
        node = store.node(),
        "store open"
    );
    let renumbered = crate::ledger::adopt_account_sequences(&store)?;
    if renumbered > 0 {
        tracing::info!(
            renumbered,
            "ledger entries renumbered into their accounts' sequences"
        );
    }
    if config.allow_private_targets {
        tracing::warn!("DEVELOPMENT MODE: --allow-private-targets lets fetches and webhook deliveries reach loopback and private addresses over plain http; never use it in production");
    }
    if store.is_shared() {
        // Other nodes may be mid-request and mid-run: only what this node
        // left is released now; what other dead nodes left goes by the
        // lease rules (`crate::nodes`).
        crate::nodes::wait_for_previous_life(&store, config.node_lease_ms)?;
        store.write(crate::nodes::beat)?;
        let freed = store.write(crate::nodes::release_own_claims)?;
        if freed > 0 {
            tracing::info!(
                freed,
                "released idempotency keys of this node's requests that never finished"
            );
        }
    } else {
        recover(&store)?;
    }
    if config.demo_account {
        if let Some(demo) = create_demo_account(&store)? {
            println!("Created a demo account on first start. These keys are shown once:");
            println!(
                "  account   {}",
                demo["account_id"].as_str().unwrap_or_default()
            );
            println!(
                "  live key  {}",
                demo["live_key"].as_str().unwrap_or_default()
            );
            println!(
                "  test key  {}",
                demo["test_key"].as_str().unwrap_or_default()
            );
            println!(
                "  balance   ${} live, ${} test",
                demo["balance_usd"], demo["balance_usd"]
            );
        }
    }
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("failed to listen on {}", config.listen))?;
    let local = listener.local_addr()?;
    let mut config = config;
    if config.public_url.is_none() {
        config.public_url = Some(format!("http://{local}"));
    }
    let socket = config.admin_socket();
    let (plugins, report) =
        crate::plugins::Plugins::load(&config.plugin_config(), &config.plugin_cache_root())?;
    for r in &report {
        tracing::info!(plugin = ?r, "plugin");
    }
    let signer = crate::receipts::ReceiptSigner::load_or_create(&store)?;
    let orphans = crate::sessions::lifecycle::recover_orphans(&store, &config.public_url())?;
    if orphans > 0 {
        tracing::warn!(
            orphans,
            "ended runs that were in flight when the server stopped; their receipts were settled"
        );
    }
    let state = AppState::new(config, store.clone(), plugins, signer);
    // Resumes every message still queued from before a restart.
    crate::webhooks::delivery::start(state.clone())?;
    // Ends, within seconds, any session left running without a run.
    {
        let state = state.clone();
        crate::supervise::supervise("sessions watchdog", move || {
            crate::sessions::watchdog::watch(state.clone())
        });
    }
    if store.is_shared() {
        // Keeps this node's lease, and releases what dead nodes left.
        let s = state.clone();
        crate::supervise::supervise("node heartbeat", move || crate::nodes::heartbeat(s.clone()));
        let s = state.clone();
        crate::supervise::supervise("dead nodes' claims", move || crate::nodes::reap(s.clone()));
        // Events committed by other nodes wake no one here: look for them
        // at this pace (SSE streams and long-polls on any node).
        let bus = state.bus.clone();
        crate::supervise::supervise("event poll", move || {
            let bus = bus.clone();
            async move {
                loop {
                    tokio::time::sleep(crate::sessions::events::SHARED_POLL).await;
                    bus.publish();
                }
            }
        });
    }
    // Development: the plugins folder is loaded again when it changes.
    if let (true, Some(dir)) = (state.config.plugins.watch, state.config.plugins.dir.clone()) {
        tracing::warn!(dir = %dir.display(), "DEVELOPMENT MODE: plugins.watch reloads the plugins folder when it changes");
        let plugins = state.plugins.clone();
        crate::supervise::supervise("plugins folder watch", move || {
            crate::plugins::watch(plugins.clone(), dir.clone())
        });
    }
    // Starts the monitors' runs when they are due and ends them when their
    // extractions or sessions have ended (preview switch `monitors`).
    if state.config.preview.iter().any(|p| p == "monitors") {
        let state = state.clone();
        crate::supervise::supervise("monitor scheduler", move || {
            crate::monitors::scheduler::run(state.clone())
        });
    }
    // Bound before the address is announced, so admin commands work as
    // soon as the server says it is up.
    #[cfg(unix)]
    {
        let listener = admin::bind_socket(&socket)?;
        let store = store.clone();
        tokio::spawn(async move {
            if let Err(e) = admin::serve_socket(store, listener).await {
                tracing::error!(error = %e, "admin socket stopped");
            }
        });
    }
    // Listen for signals before announcing the address, so a SIGTERM that
    // follows the announcement is always a graceful stop.
    let shutdown = shutdown_signal()?;
    tracing::info!(address = %local, "fnhost listening; API base http://{local}/v1");
    println!("fnhost listening on http://{local}/v1");
    axum::serve(listener, crate::app::app(state))
        .with_graceful_shutdown(shutdown)
        .await?;
    let _ = std::fs::remove_file(&socket);
    tracing::info!("fnhost stopped");
    Ok(())
}

/// This node's id, kept in its data directory: a node that starts again is
/// the same node, and ends the runs it left at once.
fn node_id(data_dir: &std::path::Path) -> anyhow::Result<String> {
    let path = data_dir.join("node-id");
    if let Ok(id) = std::fs::read_to_string(&path) {
        let id = id.trim();
        if !id.is_empty() {
            return Ok(id.to_string());
        }
    }
    let id = crate::ids::new_id("node");
    std::fs::write(&path, &id).with_context(|| format!("failed to write {}", path.display()))?;
    Ok(id)
}

/// Bring the database back to a consistent state after a crash.
fn recover(store: &Store) -> anyhow::Result<()> {
    let freed = store.write(crate::idempotency::release_unfinished)?;
    if freed > 0 {
        tracing::info!(
            freed,
            "released idempotency keys of requests that never finished"
        );
    }
    Ok(())
}

/// On the very first start, an account to try the API with.
fn create_demo_account(store: &Store) -> anyhow::Result<Option<Value>> {
    if store.read(crate::accounts::any)? {
        return Ok(None);
    }
    admin::execute(
        store,
        AdminOp::CreateAccount {
            name: "demo".into(),
            balance_usd: "100".into(),
        },
    )
    .map(Some)
}

/// Resolves on SIGTERM or Ctrl-C. The handlers are installed when this is
/// called, not when the future is first polled.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    #[cfg(unix)]
    let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    Ok(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = term.recv() => {},
            _ = int.recv() => {},
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down: finishing requests in flight");
    })
}
