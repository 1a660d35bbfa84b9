//! An extractor that returns as many bytes as the request's hints ask for
//! (`{"bytes": N}`, default 32 MiB): the host's output bound must reject it.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "extractor" });

    use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
    use fnhost::plugin::types::{Claim, Page};

    struct Component;

    /// Reads `"bytes": N` from the hints without a JSON parser.
    fn wanted(hints: &str) -> usize {
        let Some(at) = hints.find("\"bytes\"") else {
            return 32 << 20;
        };
        let rest = hints[at + 7..]
            .trim_start()
            .trim_start_matches(':')
            .trim_start();
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse().unwrap_or(32 << 20)
    }

    impl Guest for Component {
        fn extract(_page: Page, request: Request) -> Result<ExtractionResult, String> {
            let mut left = wanted(&request.hints);
            let mut records = Vec::new();
            while left > 0 {
                let pad = left.min(64 << 10);
                records.push(format!("{{\"pad\":\"{}\"}}", "x".repeat(pad)));
                left -= pad;
            }
            Ok(ExtractionResult {
                records,
                claim: Claim::Complete,
                links: vec![],
                notes: vec!["huge".into()],
            })
        }
    }

    export!(Component);
}
