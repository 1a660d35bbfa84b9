//! An extractor that recurses without end: the host's stack limit must stop it.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "extractor" });

    use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
    use fnhost::plugin::types::Page;
    use std::hint::black_box;

    struct Component;

    #[inline(never)]
    fn descend(depth: u64) -> u64 {
        // The condition is never true, but the compiler cannot know that, so
        // the recursion is neither rejected nor turned into a loop.
        if black_box(depth) == u64::MAX {
            return 0;
        }
        let frame = black_box([depth; 16]);
        descend(depth + 1).wrapping_add(frame[black_box(3)])
    }

    impl Guest for Component {
        fn extract(page: Page, _request: Request) -> Result<ExtractionResult, String> {
            let depth = descend(page.body.len() as u64);
            Err(format!("came back from depth {depth}"))
        }
    }

    export!(Component);
}
