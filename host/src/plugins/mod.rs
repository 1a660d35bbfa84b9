//! The sandboxed WebAssembly plugin runtime.
