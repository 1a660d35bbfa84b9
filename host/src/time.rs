//! Timestamps: ISO 8601 in UTC with millisecond precision.

use chrono::{DateTime, SecondsFormat, Utc};

/// Now, as the API writes timestamps.
pub fn now() -> String {
    format(Utc::now())
}

pub fn format(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub fn parse(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> String {
    Utc::now().format("%Y-%m-%d").to_string()
}

/// A time given in milliseconds since the epoch, as the API writes times.
pub fn from_millis(ms: i64) -> String {
    format(DateTime::from_timestamp_millis(ms).unwrap_or_default())
}
