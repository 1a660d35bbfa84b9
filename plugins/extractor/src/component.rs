//! The WebAssembly component face of the extractor: converts WIT values to
//! the library's types and back. Only compiled for wasm32.

wit_bindgen::generate!({ path: "../../wit/0.2.0", world: "extractor" });

use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
use fnhost::plugin::types::{Claim, Page, PageKind};

struct Component;

impl Guest for Component {
    fn extract(page: Page, request: Request) -> Result<ExtractionResult, String> {
        let page = crate::Page {
            url: &page.url,
            status: page.status,
            content_type: page.content_type.as_deref(),
            body: &page.body,
        };
        let hints = serde_json::from_str(&request.hints).unwrap_or(serde_json::Value::Null);
        let request = crate::Request {
            entity: &request.entity,
            guidance: request.guidance.as_deref(),
            hints: &hints,
        };
        let found = crate::extract(&page, &request)?;
        Ok(ExtractionResult {
            kind: match found.kind {
                crate::PageKind::Product => PageKind::Product,
                crate::PageKind::Listing => PageKind::Listing,
                crate::PageKind::Other => PageKind::Other,
            },
            next_pages: found.next_pages,
            records: found
                .records
                .iter()
                .map(|r| serde_json::Value::Object(r.to_json()).to_string())
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
