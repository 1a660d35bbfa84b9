//! The WebAssembly component face of the replay source. Only compiled for wasm32.

wit_bindgen::generate!({ path: "../../wit/0.1.0", world: "source-plugin" });

use exports::fnhost::plugin::source::Guest;
use fnhost::plugin::types::Page;

struct Component;

impl Guest for Component {
    fn fetch(url: String) -> Option<Page> {
        crate::fetch(&url).map(|p| Page {
            url: p.url,
            status: p.status,
            content_type: p.content_type,
            body: p.body,
        })
    }
}

export!(Component);
