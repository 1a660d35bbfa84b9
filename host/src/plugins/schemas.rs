//! The JSON Schemas of the JSON payloads that cross the plugin boundary
//! (`wit/schemas/`, published beside the WIT): the planner's parsed intent,
//! each record an extractor returns (and each row a differ receives), and
//! the host's hints. The host checks what plugins return against them, so a
//! plugin author learns of a wrong member from the error, not from a row
//! that silently fails its constraints.

use std::sync::OnceLock;

use serde_json::Value;

pub const PLAN: &str = include_str!("../../../wit/schemas/plan.schema.json");
pub const RECORD: &str = include_str!("../../../wit/schemas/record.schema.json");
pub const HINTS: &str = include_str!("../../../wit/schemas/hints.schema.json");

fn compile(text: &str) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(text).expect("the schemas are JSON");
    jsonschema::validator_for(&schema).expect("the schemas are valid JSON Schemas")
}

pub fn plan() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| compile(PLAN))
}

pub fn record() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| compile(RECORD))
}

pub fn hints() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| compile(HINTS))
}

/// The first way `value` breaks the schema, as "where: what".
pub fn check(schema: &jsonschema::Validator, value: &Value) -> Result<(), String> {
    match schema.iter_errors(value).next() {
        None => Ok(()),
        Some(e) => {
            let at = e.instance_path().to_string();
            Err(format!("{}: {e}", if at.is_empty() { "/" } else { &at }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_schemas_take_what_the_contract_allows_and_refuse_the_rest() {
        let intent = json!({"query": "tents under $200", "entity": "tent",
            "constraints": {"price_max": "200", "price_min": null, "currency": "USD", "brand": null,
                "keywords": [], "condition": null, "count": 5, "availability": "InStock"},
            "sources": [{"kind": "domain", "value": "outdoor-gear.example"}]});
        assert_eq!(check(plan(), &intent), Ok(()));
        let mut bad = intent.clone();
        bad["constraints"]["price_max"] = json!("about two hundred");
        assert!(check(plan(), &bad)
            .unwrap_err()
            .starts_with("/constraints/price_max"));
        let mut bad = intent.clone();
        bad["sources"][0]["kind"] = json!("ftp");
        assert!(check(plan(), &bad).is_err());
        assert!(
            check(plan(), &json!({"entity": "tent"})).is_err(),
            "required members"
        );

        let record = json!({"name": "Trail Tent", "price": "129.00", "currency": "USD",
            "availability": "InStock", "gtin": 4006381333931u64, "colour": "green"});
        assert_eq!(check(super::record(), &record), Ok(()));
        assert!(check(super::record(), &json!({"name": ["a", "b"]})).is_err());
        assert!(check(super::record(), &json!({"price": {"amount": 1}})).is_err());

        assert_eq!(
            check(hints(), &json!({"currency": null, "later": 1})),
            Ok(())
        );
        assert!(check(hints(), &json!({"currency": 3})).is_err());
    }
}
