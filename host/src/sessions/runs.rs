//! Runs in flight on this node: each running session's claim and its stop
//! switch. Kept apart from the run itself so the shared state can hold it
//! without depending on the run's code.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

/// Runs in flight: their stop switches, by session.
///
/// A session is claimed *before* the transaction that marks it running
/// commits, and the claim lives as long as its run task (it is dropped when
/// the task ends, however it ends). So a session stored as running with no
/// claim has lost its run, and the watchdog ends it.
#[derive(Clone, Default)]
pub struct Runs {
    inner: Arc<Mutex<RunsInner>>,
}

#[derive(Default)]
struct RunsInner {
    next: u64,
    /// Claims by session: normally one; two requests racing to start a turn
    /// both hold one until the loser's transaction refuses it.
    stops: HashMap<String, Vec<(u64, watch::Sender<bool>)>>,
}

/// A session's claim on its run; dropping it unregisters the run.
pub struct RunClaim {
    runs: Runs,
    session: String,
    generation: u64,
    /// Turns true when the run is asked to stop.
    pub stop: watch::Receiver<bool>,
}

impl Drop for RunClaim {
    fn drop(&mut self) {
        let mut inner = self.runs.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(claims) = inner.stops.get_mut(&self.session) {
            claims.retain(|(g, _)| *g != self.generation);
            if claims.is_empty() {
                inner.stops.remove(&self.session);
            }
        }
    }
}

impl Runs {
    /// Claim a session's run before committing it as running.
    pub fn claim(&self, session: &str) -> RunClaim {
        let (tx, rx) = watch::channel(false);
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.next += 1;
        let generation = inner.next;
        inner
            .stops
            .entry(session.to_string())
            .or_default()
            .push((generation, tx));
        RunClaim {
            runs: self.clone(),
            session: session.to_string(),
            generation,
            stop: rx,
        }
    }

    /// Is a run task (or a request about to start one) alive for a session?
    pub fn is_live(&self, session: &str) -> bool {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .stops
            .contains_key(session)
    }

    /// Ask a run to stop. False when no such run is in flight.
    pub fn stop(&self, session: &str) -> bool {
        match self
            .inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .stops
            .get(session)
        {
            Some(claims) => {
                for (_, tx) in claims {
                    let _ = tx.send(true);
                }
                true
            }
            None => false,
        }
    }
}
