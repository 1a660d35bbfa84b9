//! Composite storage keys. A key is its parts joined by `:`, each part a
//! string or a number; numbers are written fixed-width (20 digits) so that
//! byte order, which both engines sort keys by, is numeric order. Every
//! composite key is built with `key!` or
//! `prefix!` (exported at the crate root), so this rule lives here only.

use crate::accounts::Mode;

/// One part of a composite key.
pub trait Part {
    fn write_to(&self, out: &mut String);
}

/// Ids and names; only the last part of a key may hold a `:` (an
/// Idempotency-Key's text), or prefixes would mix.
impl Part for str {
    fn write_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Part for String {
    fn write_to(&self, out: &mut String) {
        self.as_str().write_to(out)
    }
}

impl<T: Part + ?Sized> Part for &T {
    fn write_to(&self, out: &mut String) {
        (**self).write_to(out)
    }
}

impl Part for u64 {
    fn write_to(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "{self:020}");
    }
}

/// Times before 1970 sort as 0.
impl Part for i64 {
    fn write_to(&self, out: &mut String) {
        (self.max(&0).unsigned_abs()).write_to(out)
    }
}

impl Part for Mode {
    fn write_to(&self, out: &mut String) {
        out.push_str(self.as_str())
    }
}

/// Joins parts into a key: `key!(account, mode, seq)` is
/// `acct_1:live:00000000000000000007`.
#[macro_export]
macro_rules! key {
    ($first:expr $(, $rest:expr)* $(,)?) => {{
        let mut key = String::new();
        $crate::store::key::Part::write_to(&$first, &mut key);
        $(
            key.push(':');
            $crate::store::key::Part::write_to(&$rest, &mut key);
        )*
        key
    }};
}

/// The prefix of every key that starts with these parts (with the trailing
/// `:`), for range scans.
#[macro_export]
macro_rules! prefix {
    ($($part:expr),+ $(,)?) => {{
        let mut prefix = $crate::key!($($part),+);
        prefix.push(':');
        prefix
    }};
}

#[cfg(test)]
mod tests {
    use crate::accounts::Mode;

    #[test]
    fn numbers_sort_as_numbers_and_prefixes_end_in_a_colon() {
        assert_eq!(key!("ses_1", 7u64), "ses_1:00000000000000000007");
        assert!(key!("s", 9u64) < key!("s", 10u64));
        assert_eq!(
            key!("acct", Mode::Live, -5i64),
            "acct:live:00000000000000000000"
        );
        assert_eq!(prefix!("acct", Mode::Test), "acct:test:");
        assert!(key!("acct", Mode::Test, 1u64).starts_with(&prefix!("acct", Mode::Test)));
    }
}
