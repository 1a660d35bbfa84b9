//! An extractor that panics, or returns an error when the guidance says
//! "error": the host must turn the first into a trap and the second into a
//! plugin error.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "extractor" });

    use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
    use fnhost::plugin::types::Page;

    struct Component;

    impl Guest for Component {
        fn extract(_page: Page, request: Request) -> Result<ExtractionResult, String> {
            if request.guidance.as_deref() == Some("error") {
                return Err("the page could not be read".into());
            }
            panic!("panicked on purpose");
        }
    }

    export!(Component);
}
