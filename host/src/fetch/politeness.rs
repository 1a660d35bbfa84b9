//! Politeness toward the sites we read: at most `per_host` requests in
//! flight to one host, and at least `interval` between the starts of two
//! requests to it, shared by every run of the node (sessions, extractions,
//! monitors, discover, robots.txt and retries alike).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The gates of every host this node has fetched from.
pub struct HostGates {
    per_host: usize,
    interval: Duration,
    hosts: Mutex<HashMap<String, Arc<HostGate>>>,
}

struct HostGate {
    permits: Arc<Semaphore>,
    /// When the next request to the host may start.
    next_start: tokio::sync::Mutex<Instant>,
}

/// Forget idle hosts once this many are known.
const PRUNE_AT: usize = 4096;

impl HostGates {
    pub fn new(per_host: usize, interval: Duration) -> HostGates {
        HostGates {
            per_host: per_host.max(1),
            interval,
            hosts: Mutex::default(),
        }
    }

    /// Wait for a turn at `host` (host and port). The request holds the
    /// returned permit while it is in flight.
    pub async fn enter(&self, host: &str) -> OwnedSemaphorePermit {
        let gate = self.gate(host);
        let permit = gate
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("host gates are never closed");
        let mut next = gate.next_start.lock().await;
        let now = Instant::now();
        if *next > now {
            tokio::time::sleep_until(*next).await;
        }
        *next = Instant::now().max(*next) + self.interval;
        permit
    }

    fn gate(&self, host: &str) -> Arc<HostGate> {
        let mut hosts = self.hosts.lock().expect("host gates lock");
        if hosts.len() >= PRUNE_AT {
            // A gate nobody holds and whose interval has passed keeps nothing.
            let now = Instant::now();
            hosts.retain(|_, g| {
                Arc::strong_count(g) > 1
                    || g.permits.available_permits() < self.per_host
                    || g.next_start.try_lock().map_or(true, |n| *n > now)
            });
        }
        hosts
            .entry(host.to_string())
            .or_insert_with(|| {
                Arc::new(HostGate {
                    permits: Arc::new(Semaphore::new(self.per_host)),
                    next_start: tokio::sync::Mutex::new(Instant::now()),
                })
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_host_gets_its_interval_and_its_concurrency() {
        let gates = Arc::new(HostGates::new(2, Duration::from_millis(100)));
        let start = Instant::now();
        let a = gates.enter("shop.example:443").await;
        let b = gates.enter("shop.example:443").await;
        assert!(start.elapsed() >= Duration::from_millis(100));
        // Another host does not wait for this one.
        let t = Instant::now();
        let _c = gates.enter("other.example:443").await;
        assert!(t.elapsed() < Duration::from_millis(100));
        // A third request to the host waits for a permit.
        let g = gates.clone();
        let third = tokio::spawn(async move { g.enter("shop.example:443").await });
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(!third.is_finished());
        drop(a);
        let _third = third.await.unwrap();
        drop(b);
    }
}
