//! The WebAssembly component face: the host calls `extract` of the
//! `extractor` world with WIT values; this converts them to and from the
//! library's plain types. Only compiled for wasm32.

// Generates the Rust types and the `Guest` trait of the world from the WIT
// package (a path relative to this crate's Cargo.toml).
wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "extractor" });

use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
use fnhost::plugin::types::{Claim, Page};

struct Component;

impl Guest for Component {
    fn extract(page: Page, _request: Request) -> Result<ExtractionResult, String> {
        // A shop page is a catalog of products whatever entity was asked
        // for; the host checks the rows against the customer's constraints.
        // Errors (`Err(message)`) are for pages this plugin cannot read at
        // all; a page without products is an empty result.
        if page.status >= 400 {
            return Err(format!("the page was served with status {}", page.status));
        }
        let found = crate::extract(&page.url, &page.body);
        Ok(ExtractionResult {
            // Records cross the boundary as JSON text, one object each.
            records: found
                .records
                .into_iter()
                .map(|r| serde_json::Value::Object(r).to_string())
                .collect(),
            claim: if found.complete {
                Claim::Complete
            } else {
                Claim::Partial
            },
            links: found.links,
            notes: found.notes,
        })
    }
}

export!(Component);
