//! Host bindings for the plugin worlds of `wit/fnhost-plugin.wit`, one module
//! per role. Each module has its own copy of the shared WIT types; the
//! conversions to the host's types live in `calls.rs`.

/// The planner world: `estimate(query)`.
pub(crate) mod planner {
    wasmtime::component::bindgen!({ path: "../wit", world: "planner" });
}

/// The extractor world: `extract(page, request)`.
pub(crate) mod extractor {
    wasmtime::component::bindgen!({ path: "../wit", world: "extractor" });
}

/// The differ world: `diff(before, after)`.
pub(crate) mod differ {
    wasmtime::component::bindgen!({ path: "../wit", world: "differ" });
}

/// The source world: `fetch(url)`.
pub(crate) mod source {
    wasmtime::component::bindgen!({ path: "../wit", world: "source-plugin" });
}
