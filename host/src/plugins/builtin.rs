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
    /// The hex sha256 of `wasm`, computed by `host/build.rs`.
    pub(crate) sha256: &'static str,
}

/// Every built-in plugin, one per role.
pub(crate) const ALL: &[Builtin] = &[
    Builtin {
        name: "fnhost-planner",
        role: Role::Planner,
        entities: &[],
        wasm: embedded::PLANNER,
        sha256: embedded::PLANNER_SHA256,
    },
    Builtin {
        name: "fnhost-extractor",
        role: Role::Extractor,
        entities: &["*"],
        wasm: embedded::EXTRACTOR,
        sha256: embedded::EXTRACTOR_SHA256,
    },
    Builtin {
        name: "fnhost-differ",
        role: Role::Differ,
        entities: &[],
        wasm: embedded::DIFFER,
        sha256: embedded::DIFFER_SHA256,
    },
    Builtin {
        name: "fnhost-replay",
        role: Role::Source,
        entities: &[],
        wasm: embedded::REPLAY,
        sha256: embedded::REPLAY_SHA256,
    },
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_build_time_sha256_is_the_components() {
        for builtin in super::ALL {
            assert_eq!(
                builtin.sha256,
                super::super::cache::sha256_hex(builtin.wasm),
                "{}",
                builtin.name
            );
        }
    }
}
