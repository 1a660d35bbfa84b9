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
