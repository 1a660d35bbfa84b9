//! Item-level changes of a monitor run: the differ's diff (by the one row
//! identity) read product by product into price moves, stock changes,
//! new and removed products and other edits, each marked with whether the
//! monitor's `notify_on` selects it.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::money::Micros;
use crate::plugins::RowDiff;
use crate::wire::{MonitorChange, NotifyOn};

/// The most changes kept with a run (the counts are always whole).
pub const MAX_KEPT: usize = 1000;

/// Records by identity.
fn by_identity(records: &[String]) -> HashMap<String, Map<String, Value>> {
    records
        .iter()
        .filter_map(|r| serde_json::from_str::<Map<String, Value>>(r).ok())
        .map(|r| (fnhost_differ::identity(&r), r))
        .collect()
}

fn text(r: &Map<String, Value>, key: &str) -> Option<String> {
    match r.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Whether a record says it can be bought now (`None`: it does not say).
fn in_stock(r: &Map<String, Value>) -> Option<bool> {
    if let Some(Value::Bool(b)) = r.get("in_stock") {
        return Some(*b);
    }
    let a = text(r, "availability")?.to_ascii_lowercase();
    let a = a
        .rsplit('/')
        .next()
        .unwrap_or(&a)
        .replace([' ', '_', '-'], "");
    Some(matches!(
        a.as_str(),
        "instock" | "limitedavailability" | "onlineonly" | "instoreonly" | "preorder" | "presale"
    ))
}

fn change_of(kind: &str, identity: &str, r: &Map<String, Value>) -> MonitorChange {
    MonitorChange {
        kind: kind.to_string(),
        identity: identity.to_string(),
        name: text(r, "name"),
        url: text(r, "url"),
        old_price: None,
        new_price: None,
        change: None,
        change_percent: None,
        currency: text(r, "currency"),
        fields: Vec::new(),
        notify: false,
    }
}

/// The changes between two runs' records, as `diff` found them.
pub fn classify(
    before: &[String],
    after: &[String],
    diff: &RowDiff,
    notify: &NotifyOn,
) -> Vec<MonitorChange> {
    let (old, new) = (by_identity(before), by_identity(after));
    let empty = Map::new();
    let mut out = Vec::new();
    for id in &diff.added {
        out.push(change_of("added", id, new.get(id).unwrap_or(&empty)));
    }
    for id in &diff.removed {
        out.push(change_of("removed", id, old.get(id).unwrap_or(&empty)));
    }
    for (id, fields) in &diff.changed {
        let (o, n) = (old.get(id).unwrap_or(&empty), new.get(id).unwrap_or(&empty));
        let mut rest: Vec<String> = Vec::new();
        for field in fields {
            match field.as_str() {
                "price" => {
                    if let Some(c) = price_move(id, o, n) {
                        out.push(c);
                        continue;
                    }
                    rest.push(field.clone());
                }
                "availability" | "in_stock" => match (in_stock(o), in_stock(n)) {
                    (Some(false), Some(true)) => out.push(change_of("back_in_stock", id, n)),
                    (Some(true), Some(false)) => out.push(change_of("out_of_stock", id, n)),
                    _ => rest.push(field.clone()),
                },
                _ => rest.push(field.clone()),
            }
        }
        if !rest.is_empty() {
            let mut c = change_of("changed", id, n);
            c.fields = rest;
            out.push(c);
        }
    }
    for c in &mut out {
        c.notify = selected(c, notify);
    }
    // Stock moves of one product reported once (availability and in_stock).
    out.dedup_by(|a, b| a.identity == b.identity && a.kind == b.kind);
    out
}

/// A price that moved, with its absolute and relative change.
fn price_move(id: &str, o: &Map<String, Value>, n: &Map<String, Value>) -> Option<MonitorChange> {
    let (before, after) = (text(o, "price")?, text(n, "price")?);
    let (b, a) = (Micros::parse_usd(&before)?, Micros::parse_usd(&after)?);
    if a.0 == b.0 {
        return None;
    }
    let kind = if a.0 < b.0 { "price_down" } else { "price_up" };
    let mut c = change_of(kind, id, n);
    let delta = Micros(a.0 - b.0);
    c.old_price = Some(before);
    c.new_price = Some(after);
    c.change = Some(two_decimals(delta));
    if b.0 > 0 {
        let pct = delta.0 as f64 * 100.0 / b.0 as f64;
        c.change_percent = Some((pct * 100.0).round() / 100.0);
    }
    c.currency = text(n, "currency").or_else(|| text(o, "currency"));
    Some(c)
}

/// An amount as a decimal string with at least two decimals ("-24.00").
fn two_decimals(m: Micros) -> String {
    let text = m.to_string();
    match text.split_once('.') {
        None => format!("{text}.00"),
        Some((_, frac)) if frac.len() == 1 => format!("{text}0"),
        Some(_) => text,
    }
}

/// Does `notify_on` select this change?
pub fn selected(c: &MonitorChange, n: &NotifyOn) -> bool {
    let reaches = |pct: Option<f64>, amount: Option<f64>| {
        let moved_pct = c.change_percent.map(f64::abs);
        let moved = c
            .change
            .as_deref()
            .and_then(|s| s.parse::<f64>().ok())
            .map(f64::abs);
        pct.is_none_or(|p| moved_pct.is_some_and(|m| m + 1e-9 >= p))
            && amount.is_none_or(|a| moved.is_some_and(|m| m + 1e-9 >= a))
    };
    match c.kind.as_str() {
        "added" => n.added,
        "removed" => n.removed,
        "price_down" => n.price_down && reaches(n.price_down_percent, n.price_down_amount),
        "price_up" => n.price_up && reaches(n.price_up_percent, n.price_up_amount),
        "back_in_stock" => n.back_in_stock,
        "out_of_stock" => n.out_of_stock,
        _ => n.changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(v: Value) -> String {
        v.to_string()
    }

    #[test]
    fn moves_stock_and_thresholds() {
        let before = vec![
            rec(
                json!({"url": "https://s.example/a", "name": "A", "price": "200.00", "currency": "USD", "availability": "InStock"}),
            ),
            rec(
                json!({"url": "https://s.example/b", "name": "B", "price": "10.00", "availability": "OutOfStock"}),
            ),
            rec(json!({"url": "https://s.example/c", "name": "C", "price": "100.00"})),
        ];
        let after = vec![
            rec(
                json!({"url": "https://s.example/a", "name": "A", "price": "176.00", "currency": "USD", "availability": "InStock"}),
            ),
            rec(
                json!({"url": "https://s.example/b", "name": "B", "price": "10.00", "availability": "InStock"}),
            ),
            rec(json!({"url": "https://s.example/c", "name": "C", "price": "100.50"})),
        ];
        let diff = RowDiff {
            added: vec![],
            removed: vec![],
            changed: vec![
                ("url:https://s.example/a".into(), vec!["price".into()]),
                (
                    "url:https://s.example/b".into(),
                    vec!["availability".into()],
                ),
                ("url:https://s.example/c".into(), vec!["price".into()]),
            ],
            price_moves: vec![],
        };
        let c = classify(&before, &after, &diff, &NotifyOn::default());
        assert_eq!(c[0].kind, "price_down");
        assert_eq!(c[0].change.as_deref(), Some("-24.00"));
        assert_eq!(c[0].change_percent, Some(-12.0));
        assert!(c[0].notify);
        assert_eq!(c[1].kind, "back_in_stock");
        assert!(c[1].notify);
        assert_eq!(c[2].kind, "price_up");
        assert_eq!(c[2].change_percent, Some(0.5));
        assert!(!c[2].notify, "a 0.5 % rise is under the 5 % default");
    }
}
