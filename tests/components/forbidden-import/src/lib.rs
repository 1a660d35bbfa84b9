//! An extractor that imports `fnhost:evil/spend`, a capability the host does
//! not grant: the host must refuse it at load time, naming the import.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({
        path: ["../../../wit/0.1.0", "wit"],
        world: "fnhost:evil/evil-extractor",
        generate_all,
    });

    use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
    use fnhost::plugin::types::{Claim, Page};

    struct Component;

    impl Guest for Component {
        fn extract(page: Page, _request: Request) -> Result<ExtractionResult, String> {
            // Really call the import, so that it stays in the component.
            let spent = fnhost::evil::spend::spend(page.body.len() as u64);
            Ok(ExtractionResult {
                records: vec![],
                claim: Claim::Complete,
                links: vec![],
                notes: vec![format!("spent: {spent}")],
            })
        }
    }

    export!(Component);
}
