//! Money: integer micro-dollars inside, USD numbers outside.
//!
//! No floating-point arithmetic ever touches an amount. Incoming JSON numbers
//! are read from their decimal text; outgoing amounts are formatted as
//! decimal text first and only then handed to JSON as a number.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Micro-dollars per dollar.
pub const MICROS_PER_USD: i64 = 1_000_000;

/// An amount of US dollars in micro-dollars (1e-6 USD).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Micros(pub i64);

impl Micros {
    pub const ZERO: Micros = Micros(0);

    pub fn from_usd(dollars: i64) -> Micros {
        Micros(dollars * MICROS_PER_USD)
    }

    /// Parse a decimal dollar amount ("12", "12.5", "0.000001"), at most six
    /// decimals, non-negative, and small enough to add up without overflow.
    pub fn parse_usd(text: &str) -> Option<Micros> {
        let text = text.trim();
        let (int, frac) = match text.split_once('.') {
            Some((i, f)) => (i, f),
            None => (text, ""),
        };
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        if frac.len() > 6 || int.len() > 12 {
            return None;
        }
        let int: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
        let mut frac_micros: i64 = if frac.is_empty() {
            0
        } else {
            frac.parse().ok()?
        };
        for _ in frac.len()..6 {
            frac_micros *= 10;
        }
        Some(Micros(int * MICROS_PER_USD + frac_micros))
    }

    /// Read a JSON value holding a USD amount (a number, or a decimal string).
    pub fn from_json(value: &serde_json::Value) -> Option<Micros> {
        match value {
            serde_json::Value::Number(n) => Self::parse_usd(&plain_decimal(&n.to_string())?),
            serde_json::Value::String(s) => Self::parse_usd(s),
            _ => None,
        }
    }

    /// The amount as a JSON number in USD (at most six decimals).
    pub fn to_json(self) -> serde_json::Value {
        // The decimal text is exact; a number with at most 15 significant
        // digits survives the trip through a double and back to text.
        if self.0 % MICROS_PER_USD == 0 {
            return serde_json::Value::from(self.0 / MICROS_PER_USD);
        }
        let text = self.to_string();
        let n: f64 = text.parse().expect("decimal text parses");
        serde_json::Value::from(n)
    }

    pub fn checked_add(self, other: Micros) -> Option<Micros> {
        self.0.checked_add(other.0).map(Micros)
    }

    pub fn checked_sub(self, other: Micros) -> Option<Micros> {
        self.0.checked_sub(other.0).map(Micros)
    }

    pub fn saturating_sub(self, other: Micros) -> Micros {
        Micros(self.0.saturating_sub(other.0))
    }

    pub fn is_negative(self) -> bool {
        self.0 < 0
    }
}

impl std::ops::Add for Micros {
    type Output = Micros;
    fn add(self, rhs: Micros) -> Micros {
        Micros(self.0 + rhs.0)
    }
}

impl std::ops::Sub for Micros {
    type Output = Micros;
    fn sub(self, rhs: Micros) -> Micros {
        Micros(self.0 - rhs.0)
    }
}

impl std::ops::AddAssign for Micros {
    fn add_assign(&mut self, rhs: Micros) {
        self.0 += rhs.0;
    }
}

impl std::iter::Sum for Micros {
    fn sum<I: Iterator<Item = Micros>>(iter: I) -> Micros {
        Micros(iter.map(|m| m.0).sum())
    }
}

/// A JSON number's text ("1e-6", "2.5E3", "12.5") as plain decimal text,
/// by moving the decimal point: exact, no floating point.
fn plain_decimal(text: &str) -> Option<String> {
    let Some((mantissa, exp)) = text.split_once(['e', 'E']) else {
        return Some(text.to_string());
    };
    let exp: i32 = exp.parse().ok()?;
    if !(-30..=30).contains(&exp) || mantissa.starts_with('-') {
        return None;
    }
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let point = int.len() as i32 + exp;
    let text = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    };
    Some(text)
}

/// Decimal USD text with trailing zeros trimmed: "12.5", "0.000001", "3".
impl fmt::Display for Micros {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let int = abs / MICROS_PER_USD as u64;
        let frac = abs % MICROS_PER_USD as u64;
        if frac == 0 {
            return write!(f, "{sign}{int}");
        }
        let frac = format!("{frac:06}");
        write!(f, "{sign}{int}.{}", frac.trim_end_matches('0'))
    }
}

/// Serialize a `Micros` field as a USD JSON number: `#[serde(serialize_with = "money::usd")]`.
pub fn usd<S: serde::Serializer>(m: &Micros, s: S) -> Result<S::Ok, S::Error> {
    m.to_json().serialize(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_decimal_text_exactly() {
        assert_eq!(Micros::parse_usd("12"), Some(Micros(12_000_000)));
        assert_eq!(Micros::parse_usd("12.5"), Some(Micros(12_500_000)));
        assert_eq!(Micros::parse_usd("0.000001"), Some(Micros(1)));
        assert_eq!(Micros::parse_usd(".5"), Some(Micros(500_000)));
        assert_eq!(Micros::parse_usd("0.1"), Some(Micros(100_000)));
        assert_eq!(Micros::parse_usd("0.0000001"), None);
        assert_eq!(Micros::parse_usd("-1"), None);
        assert_eq!(Micros::parse_usd("1e3"), None);
        assert_eq!(Micros::parse_usd(""), None);
        assert_eq!(Micros::parse_usd("."), None);
        assert_eq!(Micros::parse_usd("9999999999999"), None);
    }

    #[test]
    fn reads_json_numbers_without_float_math() {
        let v: serde_json::Value = serde_json::from_str("0.3").unwrap();
        assert_eq!(Micros::from_json(&v), Some(Micros(300_000)));
        let v: serde_json::Value = serde_json::from_str("25").unwrap();
        assert_eq!(Micros::from_json(&v), Some(Micros(25_000_000)));
        let v: serde_json::Value = serde_json::from_str("1e-7").unwrap();
        assert_eq!(Micros::from_json(&v), None);
        let v: serde_json::Value = serde_json::from_str("1e-6").unwrap();
        assert_eq!(Micros::from_json(&v), Some(Micros(1)));
        let v: serde_json::Value = serde_json::from_str("2.5E2").unwrap();
        assert_eq!(Micros::from_json(&v), Some(Micros(250_000_000)));
    }

    #[test]
    fn formats_and_round_trips() {
        for m in [0, 1, 10, 100_000, 1_500_000, 123_456_789, 999_999_999_999] {
            let m = Micros(m);
            assert_eq!(Micros::parse_usd(&m.to_string()), Some(m));
            assert_eq!(Micros::from_json(&m.to_json()), Some(m));
        }
        assert_eq!(Micros(1_500_000).to_string(), "1.5");
        assert_eq!(Micros(2).to_string(), "0.000002");
    }
}
