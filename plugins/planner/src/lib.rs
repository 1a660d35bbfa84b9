//! The built-in planner: a deterministic parser of natural-language shopping
//! queries.

#[cfg(target_arch = "wasm32")]
mod component;

use serde_json::{json, Value};

/// The planner's reading of a query.
#[derive(Debug, Clone)]
pub struct Plan {
    pub would_run: bool,
    /// The parsed intent (see the WIT `planning.estimate.parsed` docs).
    pub parsed: Value,
    pub missing: Vec<String>,
    pub reason: String,
}

/// Parse a query.
pub fn plan(query: &str) -> Plan {
    Plan {
        would_run: false,
        parsed: json!({ "entity": "product", "query": query }),
        missing: vec!["source".into()],
        reason: "no source named".into(),
    }
}
