//! Rows checked against the parsed constraints.
//!
//! Each row gets a `fulfillment` object naming every constraint and whether
//! the row meets it. A row qualifies when it meets them all. A row that
//! cannot be checked (no price where a price bound applies, another
//! currency, no brand or name where a brand is asked for) goes to
//! `unchecked` with the reason.

use serde_json::{Map, Value};

use crate::wire::Fulfillment;

use super::intent::{decimal, Intent};

/// The outcome of checking one row.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// Every constraint could be checked; `qualified` when all are met.
    Checked {
        fulfillment: Fulfillment,
        qualified: bool,
    },
    /// Some constraint could not be checked.
    Unchecked {
        fulfillment: Fulfillment,
        reason: String,
    },
}

fn text_of(record: &Map<String, Value>) -> String {
    ["name", "brand", "description", "category"]
        .iter()
        .filter_map(|k| record.get(*k).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A word matches when the text holds it, or its singular.
fn mentions(text: &str, word: &str) -> bool {
    let w = word.to_lowercase();
    let singular = w
        .strip_suffix("es")
        .filter(|s| s.len() > 2)
        .or_else(|| w.strip_suffix('s'))
        .unwrap_or(&w);
    text.contains(&w) || text.contains(singular)
}

/// Whether a record names the entity by another name of its kind (a row
/// "Camp Tent C" meets a query for shelters, "Metro Knit Sneaker" one for
/// trainers): any name of the entity's synonym group, as whole words in
/// the singular, in the record's name or category.
fn named_by_synonym(record: &Map<String, Value>, entity: &str) -> bool {
    let names = fnhost_synonyms::names_like(entity);
    if names.is_empty() {
        return false;
    }
    let words: Vec<String> = ["name", "category"]
        .iter()
        .filter_map(|k| record.get(*k).and_then(Value::as_str))
        .flat_map(fnhost_synonyms::singular_words)
        .collect();
    names.iter().any(|name| {
        let name = fnhost_synonyms::singular_words(name);
        !name.is_empty() && words.windows(name.len()).any(|w| w == name.as_slice())
    })
}

/// Check a record against an intent: its entity (what one row is;
/// "product" matches anything) and its constraints.
pub fn check(record: &Map<String, Value>, intent: &Intent) -> Check {
    let c = &intent.constraints;
    let mut f = Fulfillment::new();
    let mut unknown: Vec<String> = Vec::new();
    let text = text_of(record);
    if let Some(entity) = intent.entity_filter() {
        if text.is_empty() {
            unknown.push("entity: the record has no name".into());
        } else {
            // A multi-word entity matches on its last word ("camping tent"
            // → tent), or by another name of its kind.
            let head = entity.split_whitespace().last().unwrap_or(entity);
            let met = mentions(&text, head)
                || named_by_synonym(record, entity)
                || named_by_synonym(record, head);
            f.insert("entity".into(), met);
        }
    }
    if c.in_stock {
        match record.get("availability").and_then(Value::as_str) {
            Some(a) => {
                f.insert(
                    "in_stock".into(),
                    a.eq_ignore_ascii_case("InStock") || a.ends_with("/InStock"),
                );
            }
            None => unknown.push("in_stock: the record does not state its availability".into()),
        }
    }

    let price = record.get("price").and_then(decimal);
    let currency = record
        .get("currency")
        .and_then(Value::as_str)
        .map(str::to_uppercase);
    for (name, bound) in [("price_min", c.price_min), ("price_max", c.price_max)] {
        let Some(bound) = bound else {
            continue;
        };
        match price {
            None => unknown.push(format!("{name}: the record has no price")),
            Some(_) if c.currency.is_some() && currency.is_some() && c.currency != currency => {
                unknown.push(format!(
                    "{name}: the price is in {} and the bound in {}",
                    currency.clone().unwrap_or_default(),
                    c.currency.clone().unwrap_or_default()
                ))
            }
            Some(p) => {
                f.insert(
                    name.into(),
                    if name == "price_min" {
                        p >= bound
                    } else {
                        p <= bound
                    },
                );
            }
        }
    }
    if let Some(brand) = &c.brand {
        if text.is_empty() {
            unknown.push("brand: the record has no brand or name".into());
        } else {
            f.insert("brand".into(), mentions(&text, brand));
        }
    }
    if !c.keywords.is_empty() {
        if text.is_empty() {
            unknown.push("keywords: the record has no name".into());
        } else {
            let all = c.keywords.iter().all(|w| mentions(&text, w));
            f.insert("keywords".into(), all);
        }
    }
    if let Some(cond) = &c.condition {
        match record.get("condition").and_then(Value::as_str) {
            Some(rc) => {
                f.insert(
                    "condition".into(),
                    rc.to_lowercase().contains(&cond.to_lowercase()),
                );
            }
            None => unknown.push("condition: the record does not state its condition".into()),
        }
    }
    if unknown.is_empty() {
        let qualified = f.values().all(|met| *met);
        Check::Checked {
            fulfillment: f,
            qualified,
        }
    } else {
        Check::Unchecked {
            fulfillment: f,
            reason: unknown.join("; "),
        }
    }
}

/// Whether a listing's record leaves a constraint to its product page: one
/// it cannot check at all (no price, no stated availability or condition),
/// or a brand it neither states nor names (a listing often shows names
/// without brands, where its product pages state them).
pub fn needs_product_page(record: &Map<String, Value>, intent: &Intent) -> bool {
    if matches!(check(record, intent), Check::Unchecked { .. }) {
        return true;
    }
    let brand = intent.constraints.brand.as_deref();
    let states_brand = record
        .get("brand")
        .is_some_and(|b| !b.is_null() && b.as_str() != Some(""));
    brand.is_some_and(|b| !states_brand && !mentions(&text_of(record), b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn met(pairs: &[(&str, bool)]) -> Fulfillment {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn check(record: &Map<String, Value>, parsed: &Value) -> Check {
        super::check(record, &Intent::of(parsed))
    }

    fn needs_product_page(record: &Map<String, Value>, parsed: &Value) -> bool {
        super::needs_product_page(record, &Intent::of(parsed))
    }

    fn rec(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn another_name_of_the_entity_meets_it() {
        let entity = |e: &str| json!({"entity": e, "constraints": {}});
        let qualified = |name: &str, e: &str| {
            matches!(
                check(&rec(json!({"name": name})), &entity(e)),
                Check::Checked {
                    qualified: true,
                    ..
                }
            )
        };
        assert!(qualified("Camp Tent C", "shelters"));
        assert!(qualified("Metro Knit Sneaker", "trainers"));
        assert!(qualified("Tempo Road Running Shoe", "trainers"));
        assert!(qualified("Ridge Shelter 2P", "tent"));
        // Whole words only, and only names of the same kind.
        assert!(!qualified("Lightweight Stove", "lamps"));
        assert!(!qualified("Trail Stove", "shelters"));
        assert!(!qualified("Camp Kettle", "kettles x"));
    }

    #[test]
    fn price_bounds_are_checked_as_decimals() {
        let c = json!({"constraints": {"price_max": "200", "currency": "USD"}});
        let r = rec(json!({"name": "Tent", "price": "199.99", "currency": "USD"}));
        assert_eq!(
            check(&r, &c),
            Check::Checked {
                fulfillment: met(&[("price_max", true)]),
                qualified: true
            }
        );
        let r = rec(json!({"name": "Tent", "price": "200.01", "currency": "USD"}));
        assert!(matches!(
            check(&r, &c),
            Check::Checked {
                qualified: false,
                ..
            }
        ));
        let r = rec(json!({"name": "Tent", "price": "200", "currency": "usd"}));
        assert!(matches!(
            check(&r, &c),
            Check::Checked {
                qualified: true,
                ..
            }
        ));
    }

    #[test]
    fn rows_that_cannot_be_checked_say_why() {
        let c = json!({"constraints": {"price_max": "200", "currency": "USD"}});
        let r = rec(json!({"name": "Tent"}));
        assert!(
            matches!(check(&r, &c), Check::Unchecked { reason, .. } if reason.contains("no price"))
        );
        let r = rec(json!({"name": "Tent", "price": "10", "currency": "EUR"}));
        assert!(matches!(check(&r, &c), Check::Unchecked { reason, .. } if reason.contains("EUR")));
        let r = rec(json!({"name": "Tent", "price": "10"}));
        assert!(matches!(
            check(&r, &json!({"constraints": {"condition": "used"}})),
            Check::Unchecked { .. }
        ));
    }

    #[test]
    fn brand_keywords_and_no_constraints() {
        let c = json!({"constraints": {"brand": "Alpine", "keywords": ["tents", "2-person"]}});
        let r = rec(json!({"name": "Alpine Dome 2-person tent", "price": "1"}));
        assert_eq!(
            check(&r, &c),
            Check::Checked {
                fulfillment: met(&[("brand", true), ("keywords", true)]),
                qualified: true
            }
        );
        let r = rec(json!({"name": "Ridge 3-person tent", "brand": "Ridge"}));
        assert!(matches!(
            check(&r, &c),
            Check::Checked {
                qualified: false,
                ..
            }
        ));
        assert!(matches!(
            check(&r, &json!({})),
            Check::Checked {
                qualified: true,
                ..
            }
        ));
    }

    #[test]
    fn entity_and_stock() {
        let p = json!({"entity": "tent", "constraints": {"price_max": "200", "in_stock": true}});
        let stove = rec(
            json!({"name": "Flarebox Camp Stove", "price": "39.00", "availability": "InStock"}),
        );
        assert_eq!(
            check(&stove, &p),
            Check::Checked {
                fulfillment: met(&[("entity", false), ("in_stock", true), ("price_max", true)]),
                qualified: false
            }
        );
        let tent = rec(
            json!({"name": "Canyon 3P Dome Tent", "price": "129.00", "availability": "OutOfStock"}),
        );
        assert!(matches!(
            check(&tent, &p),
            Check::Checked {
                qualified: false,
                ..
            }
        ));
        let tent = rec(json!({"name": "Meadow 4-Person Family Tent", "price": "199.00"}));
        assert!(matches!(check(&tent, &p), Check::Unchecked { .. }));
        let any = json!({"entity": "product", "constraints": {}});
        assert!(matches!(
            check(&stove, &any),
            Check::Checked {
                qualified: true,
                ..
            }
        ));
    }

    #[test]
    fn a_listing_record_without_a_stated_brand_needs_its_product_page() {
        let c = json!({"entity": "tents", "constraints": {"brand": "Nordpeak"}});
        let unstated = rec(json!({"name": "Trailhead Tent", "price": "89.00"}));
        assert!(needs_product_page(&unstated, &c));
        let named = rec(json!({"name": "Nordpeak Trailhead Tent", "price": "89.00"}));
        assert!(!needs_product_page(&named, &c));
        let stated = rec(json!({"name": "Trailhead Tent", "brand": "Campora"}));
        assert!(!needs_product_page(&stated, &c));
        let no_price = rec(json!({"name": "Tent"}));
        assert!(needs_product_page(
            &no_price,
            &json!({"constraints": {"price_max": "200"}})
        ));
        assert!(!needs_product_page(
            &unstated,
            &json!({"constraints": {"price_max": "200"}})
        ));
    }
}
