//! The parsed intent: the planner's `parsed` object (see the WIT
//! `planning.estimate` docs), read once into typed values.
//!
//! The session stores and shows the JSON the planner wrote; the host reads
//! it only through [`Intent`]. A member of the wrong type counts as absent,
//! so an operator's planner that writes something odd narrows a run instead
//! of failing it.

use serde_json::Value;

/// What a query asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Intent {
    /// What one row is ("tent"); None or "product" matches any record.
    pub entity: Option<String>,
    /// Where to read: URLs and bare domains.
    pub sources: Vec<Source>,
    pub constraints: Constraints,
}

/// A place a query names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A page, kept exactly as written.
    Url(String),
    /// A site, read from its front page.
    Domain(String),
}

/// The constraints a row is checked against.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Constraints {
    /// Price bounds in millionths of the currency unit.
    pub price_min: Option<i128>,
    pub price_max: Option<i128>,
    /// ISO 4217, upper case.
    pub currency: Option<String>,
    pub brand: Option<String>,
    pub keywords: Vec<String>,
    pub condition: Option<String>,
    /// How many rows are asked for.
    pub count: Option<u64>,
    /// Only products in stock (`availability: "InStock"` or `in_stock: true`).
    pub in_stock: bool,
}

impl Intent {
    pub fn of(parsed: &Value) -> Intent {
        let text = |v: &Value| {
            v.as_str()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let c = &parsed["constraints"];
        let availability = c["availability"]
            .as_str()
            .is_some_and(|a| a.to_lowercase().replace([' ', '_', '-'], "") == "instock");
        Intent {
            entity: text(&parsed["entity"]),
            sources: parsed["sources"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| {
                    let value = text(&s["value"])?;
                    match s["kind"].as_str() {
                        Some("url") => Some(Source::Url(value)),
                        Some("domain") => Some(Source::Domain(value)),
                        _ => None,
                    }
                })
                .collect(),
            constraints: Constraints {
                price_min: decimal(&c["price_min"]),
                price_max: decimal(&c["price_max"]),
                currency: text(&c["currency"]).map(|s| s.to_uppercase()),
                brand: text(&c["brand"]),
                keywords: c["keywords"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(text)
                    .collect(),
                condition: text(&c["condition"]),
                count: c["count"].as_u64(),
                in_stock: c["in_stock"].as_bool().unwrap_or(false) || availability,
            },
        }
    }

    /// The entity rows must be, unless the query asks for any product.
    pub fn entity_filter(&self) -> Option<&str> {
        self.entity.as_deref().filter(|e| *e != "product")
    }
}

/// A decimal (a string or a JSON number, no sign, no exponent) as an integer
/// count of millionths.
pub fn decimal(v: &Value) -> Option<i128> {
    let text = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    if int.is_empty()
        || !int.chars().all(|c| c.is_ascii_digit())
        || !frac.chars().all(|c| c.is_ascii_digit())
        || int.len() > 20
    {
        return None;
    }
    let frac6: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
    Some(int.parse::<i128>().ok()? * 1_000_000 + frac6.parse::<i128>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_planners_intent_reads_into_types() {
        let i = Intent::of(&json!({
            "entity": "tent",
            "sources": [{"kind": "domain", "value": "outdoor-gear.example"}, {"kind": "url", "value": "https://x.example/a"}, {"kind": "other", "value": "z"}],
            "constraints": {"price_max": "200", "currency": "usd", "brand": "Nordpeak", "keywords": ["ultralight", ""], "count": 3, "availability": "in stock"}
        }));
        assert_eq!(i.entity.as_deref(), Some("tent"));
        assert_eq!(
            i.sources,
            vec![
                Source::Domain("outdoor-gear.example".into()),
                Source::Url("https://x.example/a".into())
            ]
        );
        assert_eq!(i.constraints.price_max, Some(200_000_000));
        assert_eq!(i.constraints.currency.as_deref(), Some("USD"));
        assert_eq!(i.constraints.keywords, vec!["ultralight".to_string()]);
        assert_eq!(i.constraints.count, Some(3));
        assert!(i.constraints.in_stock);
    }

    #[test]
    fn members_of_the_wrong_type_count_as_absent() {
        let i = Intent::of(&json!({
            "entity": 7, "sources": "x", "constraints": {"count": "3", "price_min": -1, "brand": ["b"]}
        }));
        assert_eq!(i, Intent::default());
        assert_eq!(Intent::of(&Value::Null), Intent::default());
        assert_eq!(
            Intent::of(&json!({"entity": "product"})).entity_filter(),
            None
        );
    }
}
