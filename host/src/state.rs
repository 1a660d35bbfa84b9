//! The state every handler shares.

use std::sync::Arc;
use std::time::Duration;

use crate::auth::KeyCache;
use crate::config::Config;
use crate::fetch::Fetcher;
use crate::limits::{RateLimiter, RunSlots};
use crate::plugins::Plugins;
use crate::receipts::ReceiptSigner;
use crate::sessions::events::EventBus;
use crate::sessions::run::Runs;
use crate::store::Store;
use crate::webhooks::Webhooks;

/// Cheap to clone (one reference count: handlers and layers clone it on
/// every request); its fields are reached through `Deref`.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// Changing a field is for set-up only, before the state is first cloned.
impl std::ops::DerefMut for AppState {
    fn deref_mut(&mut self) -> &mut Shared {
        Arc::get_mut(&mut self.0).expect("the state is changed only before it is shared")
    }
}

/// What every handler shares.
pub struct Shared {
    pub config: Arc<Config>,
    pub store: Store,
    /// Keys and accounts by key hash, checked against the store's generation.
    pub key_cache: Arc<KeyCache>,
    pub rate_limiter: Arc<RateLimiter>,
    pub run_slots: RunSlots,
    pub plugins: Plugins,
    pub signer: ReceiptSigner,
    pub bus: EventBus,
    pub runs: Runs,
    pub fetcher: Fetcher,
    pub webhooks: Webhooks,
}

impl AppState {
    pub fn new(config: Config, store: Store, plugins: Plugins, signer: ReceiptSigner) -> AppState {
        let fetcher = Fetcher::new(
            config.target_policy(),
            Duration::from_secs(config.fetch.timeout_s),
            config.fetch.max_page_bytes,
            &config.fetch.user_agent,
        );
        AppState(Arc::new(Shared {
            rate_limiter: Arc::new(RateLimiter::new(
                config.rate_limit_per_s,
                config.rate_limit_burst,
            )),
            run_slots: RunSlots::new(config.max_runs_in_flight),
            config: Arc::new(config),
            store,
            key_cache: Arc::default(),
            plugins,
            signer,
            bus: EventBus::default(),
            runs: Runs::default(),
            fetcher,
            webhooks: Webhooks::default(),
        }))
    }
}
