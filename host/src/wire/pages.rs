//! What a run saw of its pages: each page's outcome, and how much of a
//! listing it read (docs/FETCHING.md).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How much of a catalog a run read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Completeness {
    /// The total the site states ("Showing 1–24 of 283", "283 results",
    /// `numberOfItems`, a total in the page's state); null when it states none.
    pub expected: Option<u64>,
    /// Products read from its listing pages.
    pub found: u64,
    /// Listing pages read.
    pub pages_walked: u32,
    /// end_of_list, budget, page_limit, count (as many rows as asked for),
    /// stopped, or the outcome of a listing page that could not be read
    /// (blocked, rate_limited, ...). Open enum.
    pub stopped_because: String,
}

/// One page a run wanted, and what became of it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PageSeen {
    pub url: String,
    /// ok, blocked, login_required, not_found, rate_limited,
    /// robots_disallowed, needs_rendering, not_a_catalog, fetch_failed (open enum).
    pub outcome: String,
    /// The turn that read it.
    pub turn: u32,
    /// Records read from it (0 unless ok).
    pub records: u64,
    /// Its receipt: only pages that yielded records have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt_id: Option<String>,
    /// The signal that decided a non-ok outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
