//! The platform plane: the account, its balance, usage and keys.

use serde::Serialize;
use utoipa::ToSchema;

use super::{list_of, Usd};

/// The key a request was made with, as /me shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct CallerKey {
    pub id: String,
    pub name: String,
    pub scopes: Vec<String>,
}

/// The caller's account.
#[derive(Debug, Serialize, ToSchema)]
pub struct Account {
    /// `account`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub id: String,
    pub name: String,
    pub created_at: String,
    pub livemode: bool,
    /// The account's pinned API version.
    pub fn_version: String,
    /// The monthly cap on settled plus reserved spend, per mode; absent when
    /// none (money is always a number).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = f64, required = false)]
    pub monthly_cap_usd: Option<Usd>,
    pub key: CallerKey,
}

/// Automatic recharge; it needs a payment provider and is reported disabled.
#[derive(Debug, Serialize, ToSchema)]
pub struct AutoRecharge {
    pub enabled: bool,
    #[schema(value_type = f64)]
    pub amount_usd: Usd,
}

impl AutoRecharge {
    /// Automatic recharge needs a payment provider, which is not configured.
    pub const DISABLED: AutoRecharge = AutoRecharge {
        enabled: false,
        amount_usd: Usd(super::money::Micros::ZERO),
    };
}

/// The balance of the caller's account in the caller's mode.
#[derive(Debug, Serialize, ToSchema)]
pub struct Balance {
    /// `balance`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub livemode: bool,
    #[schema(value_type = f64)]
    pub balance_usd: Usd,
    /// Held by running sessions.
    #[schema(value_type = f64)]
    pub open_reserves_usd: Usd,
    /// balance_usd − open_reserves_usd, never below zero.
    #[schema(value_type = f64)]
    pub available_usd: Usd,
    #[schema(value_type = f64)]
    pub low_balance_threshold_usd: Usd,
    pub auto_recharge: AutoRecharge,
}

/// Settled spend of one UTC day.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageDay {
    /// YYYY-MM-DD
    pub date: String,
    #[schema(value_type = f64)]
    pub spend_usd: Usd,
}

/// Settled spend per UTC day over a period.
#[derive(Debug, Serialize, ToSchema)]
pub struct Usage {
    /// `usage`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub livemode: bool,
    pub from: String,
    pub to: String,
    #[schema(value_type = f64)]
    pub total_usd: Usd,
    pub by_day: Vec<UsageDay>,
}

/// An API key; never its secret text.
#[derive(Debug, Serialize, ToSchema)]
pub struct Key {
    pub id: String,
    /// `key`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub name: String,
    /// The first characters of the key text, to recognize it.
    pub prefix: String,
    pub livemode: bool,
    pub scopes: Vec<String>,
    /// The most one session may reserve with this key; absent when none
    /// (money is always a number).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = f64, required = false)]
    pub session_cap_usd: Option<Usd>,
    pub created_at: String,
    pub revoked_at: Option<String>,
}

list_of!(
    /// A page of keys, newest first.
    KeyList,
    Key
);

/// PATCH /keys/{id}.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyRename {
    /// The new name: not blank, at most 100 characters.
    #[schema(min_length = 1, max_length = 100, pattern = r"\S")]
    pub name: String,
}
