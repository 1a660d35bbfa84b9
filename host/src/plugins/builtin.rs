//! The built-in plugins, embedded in the binary by `host/build.rs` from the
//! workspace's `target/wasm32-wasip2/plugin/` (built by `cargo xtask plugins`).

use super::Role;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/builtin_plugins.rs"));
}

/// A component embedded in the binary.
pub(crate) struct Builtin {
    pub(crate) name: &'static str,
    pub(crate) role: Role,
    pub(crate) entities: &'static [&'static str],
    pub(crate) wasm: &'static [u8],
}

/// Every built-in plugin, one per role.
pub(crate) const ALL: &[Builtin] = &[
    Builtin {
        name: "fnhost-planner",
        role: Role::Planner,
        entities: &[],
        wasm: embedded::PLANNER,
    },
    Builtin {
        name: "fnhost-extractor",
        role: Role::Extractor,
        entities: &["*"],
        wasm: embedded::EXTRACTOR,
    },
    Builtin {
        name: "fnhost-differ",
        role: Role::Differ,
        entities: &[],
        wasm: embedded::DIFFER,
    },
    Builtin {
        name: "fnhost-replay",
        role: Role::Source,
        entities: &[],
        wasm: embedded::REPLAY,
    },
];
