//! A differ: the host must refuse it where an extractor is expected.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "differ" });

    use exports::fnhost::plugin::diffing::{Guest, RowDiff};

    struct Component;

    impl Guest for Component {
        fn diff(_before: Vec<String>, _after: Vec<String>) -> Result<RowDiff, String> {
            Ok(RowDiff {
                added: vec![],
                removed: vec![],
                changed: vec![],
                price_moves: vec![],
            })
        }
    }

    export!(Component);
}
