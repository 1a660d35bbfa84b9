//! An extractor that never returns: the host's time limit must stop it.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "extractor" });

    use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
    use fnhost::plugin::types::Page;

    struct Component;

    impl Guest for Component {
        fn extract(page: Page, _request: Request) -> Result<ExtractionResult, String> {
            // black_box keeps the optimizer from proving anything about the loop.
            let mut state = page.body.len() as u64;
            loop {
                state =
                    std::hint::black_box(state.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
    }

    export!(Component);
}
