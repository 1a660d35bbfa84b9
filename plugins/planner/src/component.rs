//! The WebAssembly component face of the planner. Only compiled for wasm32.

wit_bindgen::generate!({ path: "../../wit/0.1.0", world: "planner" });

use exports::fnhost::plugin::planning::{Guest, Plan as Estimate};

struct Component;

impl Guest for Component {
    fn estimate(query: String) -> Result<Estimate, String> {
        let plan = crate::plan(&query);
        Ok(Estimate {
            would_run: plan.would_run,
            parsed: plan.parsed.to_string(),
            missing: plan.missing,
            reason: plan.reason,
        })
    }
}

export!(Component);
