//! The watchdog: no session stays `running` without a run.
//!
//! Every session is claimed in [`Runs`](super::runs::Runs) before the
//! transaction that marks it running commits, and the claim lives as long as
//! its run task. Once a second, the watchdog compares the running set in the
//! store with the claims; a session found running and unclaimed on two
//! checks in a row (so never one whose claim was dropped a moment ago, after
//! its end committed) has lost its run: a spawn that never happened, a task
//! that died, a bug not yet found. It is ended as error (code internal) like
//! any other end: its committed receipts settle, the rest of its
//! reservation is released, the terminal event and webhook follow.
//!
//! On a shared database a running session is marked with the node running
//! it; a node looks after its own, and after those of nodes whose lease has
//! lapsed (`crate::nodes`): a dead node's runs end within its lease and two
//! periods. It also passes on stops asked for on other nodes.

use std::collections::HashSet;
use std::time::Duration;

use super::lifecycle::{finish, Outcome};
use crate::state::AppState;

/// How often the running set is checked; an orphan ends within two periods.
pub const PERIOD: Duration = Duration::from_secs(1);

/// Check forever (the caller supervises this task).
pub async fn watch(state: AppState) {
    let mut suspects = HashSet::new();
    loop {
        tokio::time::sleep(PERIOD).await;
        match check(&state, &suspects).await {
            Ok(next) => suspects = next,
            Err(e) => tracing::error!(error = ?e, "watchdog: checking the running sessions failed"),
        }
    }
}

/// One check: end the suspects still unclaimed, return the new suspects.
async fn check(state: &AppState, suspects: &HashSet<String>) -> anyhow::Result<HashSet<String>> {
    let lease_ms = state.config.node_lease_ms;
    let (ours, stops) = state
        .store
        .read_async(move |tx| -> anyhow::Result<_> {
            let mut orphans = Vec::new();
            let mut running = HashSet::new();
            for (id, node) in super::running_owners(tx)? {
                // Another node's run, while that node is alive, is its own business.
                if node == tx.node() || !crate::nodes::is_alive(tx, &node, lease_ms)? {
                    orphans.push(id.clone());
                }
                running.insert(id);
            }
            let stops: Vec<(String, bool)> = tx
                .scan_str(crate::store::STOP_REQUESTS, "", None, usize::MAX, false)?
                .into_iter()
                .map(|(id, _)| {
                    let still_running = running.contains(&id);
                    (id, still_running)
                })
                .collect();
            Ok((orphans, stops))
        })
        .await?;
    let mut stale = Vec::new();
    for (id, still_running) in stops {
        if still_running {
            state.runs.stop(&id);
        } else {
            // Asked just as the session ended: nothing left to stop.
            stale.push(id);
        }
    }
    if !stale.is_empty() {
        state
            .store
            .write_async(move |tx| -> anyhow::Result<()> {
                for id in stale {
                    // Still not running now (not a new turn begun since the read).
                    if super::runner(tx, &id)?.is_none() {
                        tx.remove(crate::store::STOP_REQUESTS, &id)?;
                    }
                }
                Ok(())
            })
            .await?;
    }
    let mut next = HashSet::new();
    for id in ours {
        if state.runs.is_live(&id) {
            continue;
        }
        if !suspects.contains(&id) {
            next.insert(id);
            continue;
        }
        tracing::error!(session = %id, "watchdog: a session was running without a run; ending it");
        let outcome = Outcome::Error {
            code: super::lifecycle::StreamCode::Internal,
            message: "the run was lost; its signed receipts were settled and the rest released"
                .into(),
        };
        // `finish` ends it only if it is still running when its transaction runs.
        if let Err(e) = finish(state, &id, outcome).await {
            tracing::error!(session = %id, error = ?e, "watchdog: ending a lost run failed; retrying");
            next.insert(id);
        }
    }
    Ok(next)
}
