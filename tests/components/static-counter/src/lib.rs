//! An extractor that counts its calls in a static. Every call gets a fresh
//! instance, so every call must report the count 1. Also serves as a
//! site-specific extractor in the host's routing tests.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "extractor" });

    use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
    use fnhost::plugin::types::{Claim, Page};
    use std::sync::atomic::{AtomicU32, Ordering};

    static CALLS: AtomicU32 = AtomicU32::new(0);

    struct Component;

    impl Guest for Component {
        fn extract(_page: Page, _request: Request) -> Result<ExtractionResult, String> {
            let calls = CALLS.fetch_add(1, Ordering::SeqCst) + 1;
            Ok(ExtractionResult {
                records: vec![format!("{{\"calls\":{calls},\"name\":\"counted\"}}")],
                claim: Claim::Complete,
                links: vec![],
                notes: vec!["static-counter".into()],
            })
        }
    }

    export!(Component);
}
