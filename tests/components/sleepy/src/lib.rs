//! An extractor that sleeps for an hour. A sleep waits in the host, out of
//! reach of the epoch deadline: the host must still end the call on time.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "extractor" });

    use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
    use fnhost::plugin::types::Page;

    struct Component;

    impl Guest for Component {
        fn extract(_page: Page, _request: Request) -> Result<ExtractionResult, String> {
            std::thread::sleep(std::time::Duration::from_secs(3600));
            Err("woke up after an hour".into())
        }
    }

    export!(Component);
}
