//! Priced follow-up turns waiting for confirmation (SPEC: proposals), and
//! the table that keeps them.

use serde_json::Value;

use crate::money::Micros;
use crate::store::{self, Table, Tx};
use crate::wire;

/// Proposals by id.
pub(crate) const PROPOSALS: Table<Proposal> = store::PROPOSALS.holding();

/// A priced follow-up turn, waiting for confirmation.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Proposal {
    pub id: String,
    pub session: String,
    pub turn: u32,
    pub query: String,
    pub parsed: Value,
    pub estimated: Micros,
    pub passes: u32,
    pub expires_at: String,
    pub used: bool,
    /// A refresh: the same query and intent read again, diffed against the
    /// turn before (confirmed only through the refresh route).
    #[serde(default)]
    pub refresh: bool,
}

impl Proposal {
    pub fn to_wire(&self) -> wire::Proposal {
        wire::Proposal {
            id: self.id.clone(),
            estimated_usd: wire::Usd(self.estimated),
            passes: self.passes,
            expires_at: self.expires_at.clone(),
        }
    }
}

/// Forget every proposal of a session (its redaction).
pub(crate) fn remove_of(tx: &Tx, session: &str) -> anyhow::Result<()> {
    let all: Vec<(String, Proposal)> = tx.scan_json(PROPOSALS, "", None, usize::MAX, false)?;
    for (key, p) in all {
        if p.session == session {
            tx.remove(PROPOSALS, &key)?;
        }
    }
    Ok(())
}
