//! Nodes and their leases: what lets several fnhost processes share one
//! database.
//!
//! Every process is a node, with the id its data directory keeps
//! (`Store::node`). It writes a heartbeat every [`HEARTBEAT`], on a
//! connection of its own and without a lock, so that neither its
//! own queued writes nor other nodes' transactions delay it. A node whose
//! heartbeat another node has watched standing still for `node_lease_ms`
//! (by the watcher's own clock: clocks are never compared) has lost its
//! lease, and with it:
//!
//! - its runs: sessions it marked running are ended by the watchdog of any
//!   other node, settling exactly their committed receipts, as a restart
//!   does on one machine;
//! - its Idempotency-Key claims of requests that never finished (released,
//!   so the client's retry runs);
//! - its singleton jobs (the monitor scheduler), taken over by another node.
//!
//! A node judged dead that was only slow is fenced: its runs' page writes
//! and ends check that the session is still marked with it.
//!
//! On redb there is one node, and a restart does all of this at start-up.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::store::{self, Tx, PENDING_CLAIMS};

/// `nodes`, read and written through this module only.
const NODES: store::Table<Node> = store::NODES.holding();

/// `leases`, read and written through this module only.
const LEASES: store::Table<Lease> = store::LEASES.holding();

/// How often a node says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
/// A node gone this long is forgotten.
const FORGET_AFTER_MS: i64 = 24 * 3600 * 1000;
/// The lease of the monitor scheduler.
pub const MONITOR_SCHEDULER: &str = "monitor-scheduler";
/// The scope of writes to other nodes' rows (forgetting long-gone nodes);
/// a node's own heartbeat takes no lock.
const NODES_SCOPE: &str = "nodes";

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Node {
    heartbeat_ms: i64,
    started_at: String,
    /// The process writing the heartbeats (a node id is kept across
    /// restarts; two live processes must never share one).
    #[serde(default)]
    instance: String,
}

/// This process, among the lives of its node.
fn instance() -> &'static str {
    static INSTANCE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    INSTANCE.get_or_init(|| crate::ids::new_id("inst"))
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Lease {
    node: String,
    until_ms: i64,
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// What this process has seen of other nodes' heartbeats: the last value
/// read, and when (by this process's own clock) it was first read. A node
/// is judged by whether its heartbeat moves, never by comparing its clock
/// with ours.
fn seen() -> &'static Mutex<HashMap<String, (i64, Instant)>> {
    static SEEN: OnceLock<Mutex<HashMap<String, (i64, Instant)>>> = OnceLock::new();
    SEEN.get_or_init(Default::default)
}

/// Is `node` alive: this node, or one whose heartbeat has moved within the
/// lease as this process watched it? A node first seen now counts as alive
/// for a lease: it has to be watched standing still before it is dead.
pub fn is_alive(tx: &Tx, node: &str, lease_ms: u64) -> anyhow::Result<bool> {
    if node == tx.node() {
        return Ok(true);
    }
    let Some(n) = tx.get_json::<Node>(NODES, node)? else {
        // Never beat, or forgotten long ago.
        return Ok(false);
    };
    let mut seen = seen().lock().unwrap_or_else(|p| p.into_inner());
    let entry = seen
        .entry(node.to_string())
        .or_insert((n.heartbeat_ms, Instant::now()));
    if entry.0 != n.heartbeat_ms {
        *entry = (n.heartbeat_ms, Instant::now());
    }
    Ok(entry.1.elapsed() < Duration::from_millis(lease_ms))
}

/// Write this node's heartbeat (a row only this node writes).
pub fn beat(tx: &Tx) -> anyhow::Result<()> {
    let started_at = tx
        .get_json::<Node>(NODES, tx.node())?
        .map(|n| n.started_at)
        .unwrap_or_else(crate::time::now);
    tx.put_json(
        NODES,
        tx.node(),
        &Node {
            heartbeat_ms: now_ms(),
            started_at,
            instance: instance().to_string(),
        },
    )
}

/// Forget nodes gone for a day.
fn forget_long_gone(tx: &Tx) -> anyhow::Result<()> {
    let now = now_ms();
    let nodes: Vec<(String, Node)> = tx.scan_json(NODES, "", None, usize::MAX, false)?;
    for (id, n) in nodes {
        if id != tx.node() && n.heartbeat_ms + FORGET_AFTER_MS < now {
            tx.remove(NODES, &id)?;
        }
    }
    Ok(())
}

/// Take or renew the singleton lease `name`; true while this node holds it.
/// It passes to another node only when its holder is dead (not when a
/// slow tick let it run out), so a job is never handed over mid-way by a
/// live holder.
pub fn hold(tx: &Tx, name: &str, lease_ms: u64) -> anyhow::Result<bool> {
    let now = now_ms();
    if let Some(l) = tx.get_json::<Lease>(LEASES, name)? {
        if l.node != tx.node() && is_alive(tx, &l.node, lease_ms)? {
            return Ok(false);
        }
    }
    tx.put_json(
        LEASES,
        name,
        &Lease {
            node: tx.node().to_string(),
            until_ms: now + lease_ms as i64,
        },
    )?;
    Ok(true)
}

/// The pending Idempotency-Key claims of dead nodes' unfinished requests:
/// (claim key, node).
fn dead_claims(tx: &Tx, lease_ms: u64) -> anyhow::Result<Vec<(String, String)>> {
    let mut dead = Vec::new();
    for (key, node) in tx.scan_str(PENDING_CLAIMS, "", None, usize::MAX, false)? {
        if !is_alive(tx, &node, lease_ms)? {
            dead.push((key, node));
        }
    }
    Ok(dead)
}

/// Release one claim if it is still pending under the dead node `node`
/// (in a write of the claim's account: its request cannot finish meanwhile).
fn release_dead_claim(tx: &Tx, key: &str, node: &str, lease_ms: u64) -> anyhow::Result<bool> {
    let still = tx.get_str(PENDING_CLAIMS, key)?;
    if still.as_deref() != Some(node) || is_alive(tx, node, lease_ms)? {
        return Ok(false);
    }
    crate::idempotency::release(tx, key)?;
    Ok(true)
}

/// Release the claims dead nodes left, each in a write of its account's.
async fn release_dead_claims(store: &crate::store::Store, lease_ms: u64) -> anyhow::Result<usize> {
    let dead = store
        .read_async(move |tx| dead_claims(tx, lease_ms))
        .await?;
    let mut n = 0;
    for (key, node) in dead {
        // A claim's key starts with its account (`account:mode:key`).
        let account = key.split(':').next().unwrap_or_default().to_string();
        let released = store
            .write_async_in(crate::store::Scope::Account(account), move |tx| {
                release_dead_claim(tx, &key, &node, lease_ms)
            })
            .await?;
        n += usize::from(released);
    }
    Ok(n)
}

/// At start-up: release the claims this node left unfinished in its
/// previous life.
pub fn release_own_claims(tx: &Tx) -> anyhow::Result<usize> {
    release_claims_of(tx, |node| Ok(node == tx.node()))
}

/// Release the pending claims of the nodes `whose` picks; how many.
fn release_claims_of(
    tx: &Tx,
    whose: impl Fn(&str) -> anyhow::Result<bool>,
) -> anyhow::Result<usize> {
    let mut n = 0;
    for (key, node) in tx.scan_str(PENDING_CLAIMS, "", None, usize::MAX, false)? {
        if whose(&node)? {
            crate::idempotency::release(tx, &key)?;
            n += 1;
        }
    }
    Ok(n)
}

/// At start-up on a shared database: wait until no other process still
/// beats under this node's id (a previous life killed a moment ago stops
/// within `lease_ms`); refuse to start if one goes on beating, since two
/// processes sharing a node id would end each other's runs.
pub fn wait_for_previous_life(store: &crate::store::Store, lease_ms: u64) -> anyhow::Result<()> {
    let read = || -> anyhow::Result<Option<Node>> {
        store.read(|tx| tx.get_json::<Node>(NODES, tx.node()))
    };
    let Some(first) = read()? else { return Ok(()) };
    if first.instance == instance() || first.heartbeat_ms + (lease_ms as i64) < now_ms() {
        return Ok(());
    }
    tracing::info!(
        node = store.node(),
        "waiting for this node's previous life to stop beating"
    );
    let started = std::time::Instant::now();
    let lease = Duration::from_millis(lease_ms);
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let Some(now) = read()? else { return Ok(()) };
        if now.heartbeat_ms != first.heartbeat_ms {
            anyhow::bail!(
                "node id {} is in use by another running fnhost; give each node its own data directory (it holds the node's id in `node-id`)",
                store.node()
            );
        }
        if started.elapsed() >= lease {
            return Ok(());
        }
    }
}

/// The heartbeat loop of a node on a shared database (run under `supervise`).
pub async fn heartbeat(state: crate::state::AppState) {
    loop {
        // The heartbeat itself, on a connection of its own: it waits
        // neither for this node's queued writes nor for a lock.
        let store = state.store.clone();
        let beaten = tokio::task::spawn_blocking(move || store.write_own_rows(beat)).await;
        match beaten {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::error!(error = ?e, "node heartbeat failed"),
            Err(e) => tracing::error!(error = %e, "node heartbeat task failed"),
        }
        tokio::time::sleep(HEARTBEAT).await;
    }
}

/// Release what dead nodes left (their pending Idempotency-Key claims),
/// and forget nodes gone for a day: once a second, apart from the
/// heartbeat so that neither waits for the other (run under `supervise`).
pub async fn reap(state: crate::state::AppState) {
    let lease_ms = state.config.node_lease_ms;
    loop {
        let forgot = state
            .store
            .write_async_in(crate::store::Scope::Object(NODES_SCOPE), forget_long_gone)
            .await;
        if let Err(e) = forgot {
            tracing::error!(error = ?e, "forgetting long-gone nodes failed");
        }
        let reaped = release_dead_claims(&state.store, lease_ms).await;
        match reaped {
            Ok(0) => {}
            Ok(n) => tracing::info!(
                released = n,
                "released idempotency keys of a dead node's unfinished requests"
            ),
            Err(e) => tracing::error!(error = ?e, "releasing dead nodes' claims failed"),
        }
        tokio::time::sleep(HEARTBEAT).await;
    }
}
