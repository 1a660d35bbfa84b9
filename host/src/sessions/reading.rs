//! What a run read of the catalog's listings: the `completeness` a result
//! and an extraction report (expected, found, pages walked, why it
//! stopped), and what the extractor states about a page in its notes (the
//! list's total, how many links relate to the query).

use std::collections::HashSet;

use super::lifecycle::Outcome;
use super::StopReason;
use crate::fetch::outcome::PageOutcome;
use crate::wire;

/// What the run read of the listings it walked (the run's `completeness`).
#[derive(Default)]
pub(super) struct Reading {
    /// The largest total a listing page stated.
    pub(super) expected: Option<u64>,
    /// Products read from listing pages, by identity.
    pub(super) found: HashSet<String>,
    /// Listing pages read.
    pub(super) pages_walked: u32,
    /// The pages queued as a listing's next pages.
    pub(super) next_pages: HashSet<String>,
    /// The outcome of a listing's next page that could not be read.
    pub(super) lost: Option<PageOutcome>,
    /// The listing's next pages not read because the run ended first.
    pub(super) unwalked: bool,
    /// The run had as many rows as asked for with pages left to read.
    pub(super) enough: bool,
}

impl Reading {
    /// Whether the listings read so far are whole: nothing lost, and at
    /// least what the site says it has.
    pub(super) fn whole(&self) -> bool {
        self.lost.is_none() && self.expected.is_none_or(|n| self.found.len() as u64 >= n)
    }

    pub(super) fn completeness(&self, stopped: Option<&Outcome>) -> wire::Completeness {
        let stopped_because = match stopped {
            Some(Outcome::Stopped {
                stop: StopReason::SpendBudget,
                ..
            }) => "budget".to_string(),
            Some(Outcome::Stopped {
                stop: StopReason::QueryBudget,
                ..
            }) => "page_limit".to_string(),
            Some(Outcome::Stopped { .. }) => "stopped".to_string(),
            _ => match self.lost {
                Some(outcome) => outcome.as_str().to_string(),
                None if self.enough => "count".to_string(),
                None if self.unwalked => "page_limit".to_string(),
                None => "end_of_list".to_string(),
            },
        };
        wire::Completeness {
            expected: self.expected,
            found: self.found.len() as u64,
            pages_walked: self.pages_walked,
            stopped_because,
        }
    }
}

/// The catalog's total as the extractor states it: a note `total:<n>`.
pub(super) fn stated_total(notes: &[String]) -> Option<u64> {
    notes
        .iter()
        .find_map(|n| n.strip_prefix("total:")?.trim().parse().ok())
}

/// How many of a page's links relate to the query, as the extractor states
/// it: a note `related-links:<n>` (absent: all of them).
pub(super) fn related_links(notes: &[String]) -> Option<usize> {
    notes
        .iter()
        .find_map(|n| n.strip_prefix("related-links:")?.trim().parse().ok())
}
