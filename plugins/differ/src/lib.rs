//! The built-in differ: compares two row sets by a stable row identity.
//!
//! A row is a JSON object. Its identity is the first of these members that
//! holds a non-empty string or a number, prefixed with the member's name so
//! that kinds never collide:
//!
//! | member | identity | normalization |
//! |---|---|---|
//! | `url` | `url:<value>` | trimmed, fragment dropped |
//! | `gtin` | `gtin:<digits>` | whitespace and leading zeros dropped (a GTIN-13 and its GTIN-14 form are one product) |
//! | `sku` | `sku:<value>` | trimmed |
//! | `mpn` | `mpn:<value>` | trimmed |
//! | `name` | `name:<value>` | lowercase, whitespace collapsed to single spaces |
//!
//! This is the service's one row-identity rule: the host links this crate
//! and identifies a run's rows with the same function (after resolving a
//! relative `url` against its page). The product page's URL comes first
//! because it is what a listing and the product page itself both show
//! (listings seldom print codes), so the two readings of one product are
//! one row; codes identify what has no URL.
//!
//! A row with none of them is identified by its whole content
//! (`row:<canonical JSON>`, members sorted). When one side holds the same
//! identity twice, the first row wins and the later ones are ignored.
//!
//! Fields are compared as JSON values, except `price`, which is compared as
//! a decimal number without floating point ("12.50" equals "12.5").

#[cfg(target_arch = "wasm32")]
mod component;

use serde_json::{Map, Value};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Default, PartialEq)]
pub struct Changed {
    pub identity: String,
    pub fields: Vec<String>,
}

#[derive(Debug, Default, PartialEq)]
pub struct PriceMove {
    pub identity: String,
    pub before: String,
    pub after: String,
    pub currency: Option<String>,
}

#[derive(Debug, Default, PartialEq)]
pub struct Diff {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<Changed>,
    pub price_moves: Vec<PriceMove>,
}

/// Compare two row sets given as JSON object texts.
///
/// `added`, `removed`, `changed` and `price_moves` are sorted by identity;
/// the field names of a changed row are sorted. A row that is not a JSON
/// object is an error naming the side and the row's position.
pub fn diff(before: &[String], after: &[String]) -> Result<Diff, String> {
    let before = index(before, "before")?;
    let after = index(after, "after")?;
    let mut d = Diff::default();
    for (id, row) in &after {
        if !before.contains_key(id) {
            d.added.push(id.clone());
        } else {
            let old = &before[id];
            let fields = changed_fields(old, row);
            if !fields.is_empty() {
                if fields.iter().any(|f| f == "price") {
                    if let Some(m) = price_move(id, old, row) {
                        d.price_moves.push(m);
                    }
                }
                d.changed.push(Changed {
                    identity: id.clone(),
                    fields,
                });
            }
        }
    }
    for id in before.keys() {
        if !after.contains_key(id) {
            d.removed.push(id.clone());
        }
    }
    Ok(d)
}

/// The identity of one row (see the module docs).
pub fn identity(row: &Map<String, Value>) -> String {
    for key in ["url", "gtin", "sku", "mpn", "name"] {
        let Some(raw) = scalar_text(row.get(key)) else {
            continue;
        };
        let value = match key {
            "gtin" => {
                let digits: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
                let trimmed = digits.trim_start_matches('0');
                if trimmed.is_empty() {
                    digits
                } else {
                    trimmed.to_string()
                }
            }
            "url" => raw.split('#').next().unwrap_or("").trim().to_string(),
            "name" => raw
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase(),
            _ => raw.trim().to_string(),
        };
        if !value.is_empty() {
            return format!("{key}:{value}");
        }
    }
    format!("row:{}", canonical(&Value::Object(row.clone())))
}

/// Whether two decimal texts denote the same number; `None` when either is
/// not a plain decimal (`-12.50`, `12`, `.5`).
pub fn decimal_eq(a: &str, b: &str) -> Option<bool> {
    Some(Decimal::parse(a)? == Decimal::parse(b)?)
}

/// Compare two decimal texts numerically; `None` when either is not a decimal.
pub fn decimal_cmp(a: &str, b: &str) -> Option<Ordering> {
    Some(Decimal::parse(a)?.cmp(&Decimal::parse(b)?))
}

fn index(rows: &[String], side: &str) -> Result<BTreeMap<String, Map<String, Value>>, String> {
    let mut out = BTreeMap::new();
    for (i, text) in rows.iter().enumerate() {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| format!("{side} row {i} is not valid JSON: {e}"))?;
        let Value::Object(obj) = value else {
            return Err(format!("{side} row {i} is not a JSON object"));
        };
        out.entry(identity(&obj)).or_insert(obj);
    }
    Ok(out)
}

fn changed_fields(old: &Map<String, Value>, new: &Map<String, Value>) -> Vec<String> {
    let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    keys.into_iter()
        .filter(|k| !field_equal(k, old.get(*k), new.get(*k)))
        .cloned()
        .collect()
}

fn field_equal(key: &str, a: Option<&Value>, b: Option<&Value>) -> bool {
    if key == "price" {
        if let (Some(x), Some(y)) = (scalar_text(a), scalar_text(b)) {
            if let Some(eq) = decimal_eq(&x, &y) {
                return eq;
            }
        }
    }
    a == b
}

fn price_move(id: &str, old: &Map<String, Value>, new: &Map<String, Value>) -> Option<PriceMove> {
    let before = scalar_text(old.get("price"))?;
    let after = scalar_text(new.get("price"))?;
    if decimal_eq(&before, &after)? {
        return None;
    }
    let cur_before = scalar_text(old.get("currency")).filter(|c| !c.trim().is_empty());
    let cur_after = scalar_text(new.get("currency")).filter(|c| !c.trim().is_empty());
    let currency = match (cur_before, cur_after) {
        // Prices in two different currencies are not a move of one price.
        (Some(a), Some(b)) if !a.trim().eq_ignore_ascii_case(b.trim()) => return None,
        (_, Some(c)) | (Some(c), None) => Some(c.trim().to_uppercase()),
        (None, None) => None,
    };
    Some(PriceMove {
        identity: id.to_string(),
        before: before.trim().to_string(),
        after: after.trim().to_string(),
        currency,
    })
}

/// A string member's text, or a number's decimal text.
fn scalar_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// JSON text with object members sorted, whatever the map's own order.
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&m[k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// An exact decimal: sign, integer digits without leading zeros, fraction
/// digits without trailing zeros.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    int: String,
    frac: String,
}

impl Decimal {
    fn parse(text: &str) -> Option<Decimal> {
        let t = text.trim();
        let (negative, t) = match t.as_bytes().first()? {
            b'-' => (true, &t[1..]),
            b'+' => (false, &t[1..]),
            _ => (false, t),
        };
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if t.contains('.') && (frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit())) {
            return None;
        }
        let int = int.trim_start_matches('0').to_string();
        let frac = frac.trim_end_matches('0').to_string();
        let negative = negative && !(int.is_empty() && frac.is_empty());
        Some(Decimal {
            negative,
            int,
            frac,
        })
    }

    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        self.int
            .len()
            .cmp(&other.int.len())
            .then_with(|| self.int.cmp(&other.int))
            .then_with(|| self.frac.cmp(&other.frac))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests;
