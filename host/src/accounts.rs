//! Accounts: who owns keys, balances and every object; and the per-account
//! settings (version pin, low-balance threshold, monthly cap).

use serde::{Deserialize, Serialize};

use crate::money::Micros;
use crate::store::{self, Tx};

pub use crate::wire::CURRENT_VERSION;

/// `accounts`, read and written through this module only.
const ACCOUNTS: store::Table<Account> = store::ACCOUNTS.holding();

/// Test mode or live mode. Objects and balances of one mode are invisible to
/// keys of the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Live,
    Test,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Live => "live",
            Mode::Test => "test",
        }
    }

    pub fn livemode(self) -> bool {
        self == Mode::Live
    }
}

/// An account.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Account {
    pub id: String,
    pub name: String,
    pub created_at: String,
    /// The dated API version applied when a request sends no fn-version.
    pub fn_version: String,
    /// balance.low fires when a balance drops below this.
    pub low_balance_threshold: Micros,
    /// At most this much settled plus reserved per calendar month (UTC), per mode.
    pub monthly_cap: Option<Micros>,
}

impl Account {
    pub fn new(name: &str) -> Account {
        Account {
            id: crate::ids::new_id("acct"),
            name: name.to_string(),
            created_at: crate::time::now(),
            fn_version: CURRENT_VERSION.into(),
            low_balance_threshold: Micros::from_usd(5),
            monthly_cap: None,
        }
    }
}

// ---- storage: the accounts table is read and written here only ----

pub fn get(tx: &Tx, id: &str) -> anyhow::Result<Option<Account>> {
    tx.get_json(ACCOUNTS, id)
}

pub fn put(tx: &Tx, account: &Account) -> anyhow::Result<()> {
    store::put_json(tx, ACCOUNTS, &account.id, account)
}

/// Whether any account exists (a fresh installation has none).
pub fn any(tx: &Tx) -> anyhow::Result<bool> {
    Ok(!tx.scan_json(ACCOUNTS, "", None, 1, false)?.is_empty())
}
