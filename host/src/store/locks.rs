//! The PostgreSQL engine's locks: what a write transaction of each
//! [`Scope`] takes before its first statement (see OPERATIONS.md).

use std::sync::atomic::{AtomicU64, Ordering};

use super::Scope;

/// The installation's advisory lock: held shared by scoped writes,
/// exclusive by writes of `Scope::All`, until their transactions end.
pub const INSTALLATION_LOCK: i64 = 0x666e_686f_7374_01;

/// The advisory lock key of an account's writes: the first 8 bytes of
/// SHA-256 of `fnhost account:<id>` (an operator can take it by hand, with
/// `pg_advisory_lock`, to hold one account's writes).
pub fn account_lock_key(account: &str) -> i64 {
    lock_key("account", account)
}

fn lock_key(kind: &str, name: &str) -> i64 {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("fnhost {kind}:{name}").as_bytes());
    i64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
}

/// The statements that open a write transaction of `scope`: its locks.
/// A scoped write takes its scope's lock before the installation's (shared),
/// so that while it waits for its own account it holds nothing another
/// write needs; a write of `Scope::All` takes no scope's lock. No two
/// writes can wait for each other in a circle.
pub(super) fn opening(scope: &Scope, durable: bool) -> String {
    let scoped = |key: i64| {
        format!(
            "SELECT pg_advisory_xact_lock({key}); SELECT pg_advisory_xact_lock_shared({INSTALLATION_LOCK})"
        )
    };
    let locks = match scope {
        Scope::All => format!("SELECT pg_advisory_xact_lock({INSTALLATION_LOCK})"),
        Scope::Account(id) => scoped(account_lock_key(id)),
        Scope::Object(name) => scoped(lock_key("object", name)),
    };
    if durable {
        format!("BEGIN; {locks}")
    } else {
        format!("BEGIN; {locks}; SET LOCAL synchronous_commit = off")
    }
}

/// A value for the keys generation that no other write gives: this
/// process's start time and a count of its writes, each in 32 bits.
pub(super) fn generation_mark() -> i64 {
    static STARTED: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let started = *STARTED.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i64);
        nanos ^ i64::from(std::process::id())
    });
    started.wrapping_mul(0x1_0000_0000) ^ WRITES.fetch_add(1, Ordering::Relaxed) as i64
}
