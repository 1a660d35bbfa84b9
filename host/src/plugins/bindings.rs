//! Host bindings for the plugin worlds of the contract's versions under
//! `wit/<version>/`, one module per role and version. Each module has its own copy of the shared WIT types; the
//! conversions to the host's types live in `calls.rs`.

/// The planner world: `estimate(query)`.
pub(crate) mod planner {
    wasmtime::component::bindgen!({ path: "../wit/0.1.0", world: "planner" });
}

/// The extractor world of 0.1.0: `extract(page, request)`, records only.
pub(crate) mod extractor {
    wasmtime::component::bindgen!({ path: "../wit/0.1.0", world: "extractor" });
}

/// The extractor world of 0.2.0: records with the page's kind and next pages.
pub(crate) mod extractor_v2 {
    wasmtime::component::bindgen!({ path: "../wit/0.2.0", world: "extractor" });
}

/// The differ world: `diff(before, after)`.
pub(crate) mod differ {
    wasmtime::component::bindgen!({ path: "../wit/0.1.0", world: "differ" });
}

/// The source world: `fetch(url)`.
pub(crate) mod source {
    wasmtime::component::bindgen!({ path: "../wit/0.1.0", world: "source-plugin" });
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    /// A released contract is never changed: a new version gets a new
    /// folder. Changing a file here breaks every plugin built against it.
    #[test]
    fn released_contracts_are_frozen() {
        for (version, sha256) in [
            (
                "0.1.0",
                "66e2e2b52c816566e333cb1388ac3e21cccee5bb491e3f399dec71c0ca9624d0",
            ),
            (
                "0.2.0",
                "0e954bebebbd4a8adffceda2244a6d123e201e10e0e52bd276071cb8d0ec6532",
            ),
        ] {
            let path = format!(
                "{}/../wit/{version}/fnhost-plugin.wit",
                env!("CARGO_MANIFEST_DIR")
            );
            let text = std::fs::read(&path).expect("the contract file exists");
            assert_eq!(
                hex::encode(Sha256::digest(&text)),
                sha256,
                "wit/{version} changed; released versions are frozen (make a new folder)"
            );
        }
    }
}
