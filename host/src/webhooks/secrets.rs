//! The account default secret of each mode: what signs deliveries to run
//! webhook URLs, created on first use and rotated with an overlap.

use serde::{Deserialize, Serialize};

use super::signing;
use crate::accounts::Mode;
use crate::store::{self, Table, Tx};

/// The account default secrets, in META (`webhook_secret:<account>:<mode>`).
const SECRETS: Table<DefaultSecret> = store::META.holding();

/// The account default secret of one mode.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DefaultSecret {
    pub secret: String,
    pub created_at: String,
    /// The secret it replaced, still signing alongside it until
    /// `previous_until` so receivers can switch without losing messages.
    #[serde(default)]
    pub previous: Option<String>,
    #[serde(default)]
    pub previous_until: Option<String>,
}

/// How long a rotated default secret keeps signing alongside the new one.
pub const ROTATION_OVERLAP_HOURS: i64 = 24;

impl DefaultSecret {
    pub fn to_wire(&self) -> crate::wire::WebhookSecret {
        crate::wire::WebhookSecret {
            object: "webhook_secret",
            secret: self.secret.clone(),
            created_at: self.created_at.clone(),
        }
    }

    /// Every secret that signs a delivery now.
    pub fn signing_secrets(&self) -> Vec<&str> {
        let mut out = vec![self.secret.as_str()];
        if let (Some(prev), Some(until)) = (
            &self.previous,
            self.previous_until.as_deref().and_then(crate::time::parse),
        ) {
            if chrono::Utc::now() < until {
                out.push(prev.as_str());
            }
        }
        out
    }
}

fn secret_key(account: &str, mode: Mode) -> String {
    format!("webhook_secret:{account}:{}", mode.as_str())
}

pub fn read_default_secret(
    tx: &Tx,
    account: &str,
    mode: Mode,
) -> anyhow::Result<Option<DefaultSecret>> {
    tx.get_json(SECRETS, &secret_key(account, mode))
}

/// The account default secret, created on first use.
pub fn default_secret(tx: &Tx, account: &str, mode: Mode) -> anyhow::Result<DefaultSecret> {
    if let Some(s) = read_default_secret(tx, account, mode)? {
        return Ok(s);
    }
    let s = DefaultSecret {
        secret: signing::new_secret(),
        created_at: crate::time::now(),
        previous: None,
        previous_until: None,
    };
    store::put_json(tx, SECRETS, &secret_key(account, mode), &s)?;
    Ok(s)
}

/// Replace the account default secret; the old one keeps signing alongside
/// for `ROTATION_OVERLAP_HOURS`.
pub fn rotate_default_secret(tx: &Tx, account: &str, mode: Mode) -> anyhow::Result<DefaultSecret> {
    let old = read_default_secret(tx, account, mode)?;
    let s = DefaultSecret {
        secret: signing::new_secret(),
        created_at: crate::time::now(),
        previous: old.map(|o| o.secret),
        previous_until: Some(crate::time::format(
            chrono::Utc::now() + chrono::Duration::hours(ROTATION_OVERLAP_HOURS),
        )),
    };
    store::put_json(tx, SECRETS, &secret_key(account, mode), &s)?;
    Ok(s)
}
