//! The sentinels of fn_test_ keys (SPEC §5.3). In a test key's query they
//! steer the run; on live keys they are plain words.

use crate::accounts::Mode;
use crate::fetch::outcome::PageOutcome;

/// The page-outcome sentinels: FN_TEST_ and the outcome's name in capitals.
pub const PAGE_OUTCOMES: [PageOutcome; 8] = [
    PageOutcome::Blocked,
    PageOutcome::LoginRequired,
    PageOutcome::NotFound,
    PageOutcome::RateLimited,
    PageOutcome::RobotsDisallowed,
    PageOutcome::NeedsRendering,
    PageOutcome::NotACatalog,
    PageOutcome::FetchFailed,
];

/// What a sentinel asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sentinel {
    /// The parse declines: the estimate says would_run false; the run abstains at $0.
    Decline,
    /// The parse would run, but the run abstains at $0.
    Abstain,
    /// The run ends as error with a stream code.
    Error,
    /// The run stops with spend-budget after settling some receipts.
    SpendStop,
    /// Every page the run wants ends in this outcome, as a live fetch of
    /// such a page would (FN_TEST_BLOCKED, FN_TEST_NOT_FOUND, ...).
    Page(PageOutcome),
}

/// The site test runs use when a sentinel run names no source.
pub const DEFAULT_TEST_SITE: &str = "https://outdoor-gear.example/";

/// How many receipts a FN_TEST_SPEND_STOP run settles before it stops.
pub const SPEND_STOP_RECEIPTS: u32 = 2;

/// The sentinel in a query, for test-mode keys only.
pub fn sentinel(mode: Mode, query: &str) -> Option<Sentinel> {
    if mode != Mode::Test {
        return None;
    }
    let pages = PAGE_OUTCOMES.map(|o| {
        (
            format!("FN_TEST_{}", o.as_str().to_ascii_uppercase()),
            Sentinel::Page(o),
        )
    });
    [
        ("FN_TEST_DECLINE".to_string(), Sentinel::Decline),
        ("FN_TEST_ABSTAIN".to_string(), Sentinel::Abstain),
        ("FN_TEST_ERROR".to_string(), Sentinel::Error),
        ("FN_TEST_SPEND_STOP".to_string(), Sentinel::SpendStop),
    ]
    .into_iter()
    .chain(pages)
    .find(|(word, _)| {
        query
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == word)
    })
    .map(|(_, s)| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentinels_only_in_test_mode_and_as_words() {
        assert_eq!(
            sentinel(Mode::Test, "tents FN_TEST_DECLINE"),
            Some(Sentinel::Decline)
        );
        assert_eq!(
            sentinel(Mode::Test, "FN_TEST_SPEND_STOP: tents"),
            Some(Sentinel::SpendStop)
        );
        assert_eq!(sentinel(Mode::Live, "tents FN_TEST_DECLINE"), None);
        assert_eq!(sentinel(Mode::Test, "FN_TEST_DECLINED"), None);
        assert_eq!(sentinel(Mode::Test, "tents"), None);
        assert_eq!(
            sentinel(Mode::Test, "tents FN_TEST_LOGIN_REQUIRED"),
            Some(Sentinel::Page(PageOutcome::LoginRequired))
        );
    }
}
