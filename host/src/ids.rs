//! Identifiers: a kind prefix and random base-62 text, and API keys.

use rand::{distributions::Alphanumeric, Rng};

/// A new id such as `ses_4f9Kx...`: the prefix plus 20 random characters
/// (about 119 bits).
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", random_text(20))
}

/// Random base-62 text from the operating system's generator.
pub fn random_text(len: usize) -> String {
    rand::rngs::OsRng
        .sample_iter(&Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}
