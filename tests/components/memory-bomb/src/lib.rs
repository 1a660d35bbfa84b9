//! An extractor that allocates until it runs out of memory: the host's
//! memory limit must stop it.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "extractor" });

    use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
    use fnhost::plugin::types::Page;

    struct Component;

    impl Guest for Component {
        fn extract(_page: Page, _request: Request) -> Result<ExtractionResult, String> {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                // Touch every chunk so that the memory is really used.
                hoard.push(vec![0xa5; 4 << 20]);
                std::hint::black_box(&hoard);
            }
        }
    }

    export!(Component);
}
