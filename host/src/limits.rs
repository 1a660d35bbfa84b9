//! Rate limits per key and the cap on runs in flight per account.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::http::ApiError;

/// A token bucket per key: `rate` tokens a second, at most `burst` stored.
/// The buckets are spread over shards by key, so requests of different keys
/// rarely wait on the same lock.
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    shards: Vec<Mutex<HashMap<String, (f64, Instant)>>>,
}

const SHARDS: usize = 16;

impl RateLimiter {
    pub fn new(rate_per_s: u32, burst: u32) -> RateLimiter {
        RateLimiter {
            rate: rate_per_s as f64,
            burst: burst.max(1) as f64,
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }

    fn shard(&self, key: &str) -> &Mutex<HashMap<String, (f64, Instant)>> {
        // FNV-1a: cheap, and the same key always lands in the same shard.
        let h = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        &self.shards[(h % SHARDS as u64) as usize]
    }

    /// Take one token for `key`, or say how many seconds until one is there.
    pub fn check(&self, key: &str) -> Result<(), ApiError> {
        let now = Instant::now();
        let mut buckets = self.shard(key).lock().expect("rate limiter lock");
        let (tokens, last) = match buckets.get_mut(key) {
            Some(bucket) => bucket,
            None => buckets.entry(key.to_string()).or_insert((self.burst, now)),
        };
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * self.rate).min(self.burst);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            let wait = ((1.0 - *tokens) / self.rate).ceil().max(1.0) as u64;
            Err(ApiError::RateLimited {
                retry_after_s: wait,
            })
        }
    }
}

/// Runs in flight per `account:mode`, with a cap.
#[derive(Clone)]
pub struct RunSlots {
    limit: u64,
    in_flight: Arc<Mutex<HashMap<String, u64>>>,
}

/// The account's runs in flight are at the cap: no slot was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotsFull {
    pub limit: u64,
    pub in_flight: u64,
}

/// A run's place under the cap; given back when dropped.
pub struct RunSlot {
    slots: RunSlots,
    key: String,
}

impl RunSlots {
    pub fn new(limit: u32) -> RunSlots {
        RunSlots {
            limit: limit as u64,
            in_flight: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Take a slot, or say that the account's runs in flight are at the cap.
    pub fn acquire(&self, key: String) -> Result<RunSlot, SlotsFull> {
        let mut map = self.in_flight.lock().expect("run slots lock");
        let n = map.entry(key.clone()).or_insert(0);
        if *n >= self.limit {
            return Err(SlotsFull {
                limit: self.limit,
                in_flight: *n,
            });
        }
        *n += 1;
        Ok(RunSlot {
            slots: self.clone(),
            key,
        })
    }

    pub fn in_flight(&self, key: &str) -> u64 {
        self.in_flight
            .lock()
            .expect("run slots lock")
            .get(key)
            .copied()
            .unwrap_or(0)
    }
}

impl Drop for RunSlot {
    fn drop(&mut self) {
        let mut map = self.slots.in_flight.lock().expect("run slots lock");
        if let Some(n) = map.get_mut(&self.key) {
            *n = n.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_allows_burst_then_refuses() {
        let r = RateLimiter::new(1, 3);
        assert!(r.check("k").is_ok());
        assert!(r.check("k").is_ok());
        assert!(r.check("k").is_ok());
        match r.check("k") {
            Err(ApiError::RateLimited { retry_after_s }) => assert!(retry_after_s >= 1),
            other => panic!("expected rate_limited, got {other:?}"),
        }
        assert!(r.check("other").is_ok());
    }

    #[test]
    fn slots_cap_and_release() {
        let s = RunSlots::new(2);
        let a = s.acquire("x".into()).unwrap();
        let _b = s.acquire("x".into()).unwrap();
        assert!(matches!(
            s.acquire("x".into()),
            Err(SlotsFull {
                limit: 2,
                in_flight: 2,
            })
        ));
        drop(a);
        assert!(s.acquire("x".into()).is_ok());
    }
}
