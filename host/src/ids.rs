//! Identifiers: a kind prefix and random base-62 text, and API keys.

use rand::RngCore;

const BASE62: &[u8; 62] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A new id such as `ses_4f9Kx...`: the prefix plus 20 random characters
/// (about 119 bits).
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", random_text(20))
}

/// Random base-62 text from the operating system's generator: one read of
/// random bytes (not one per character), each byte below 248 (= 4 × 62)
/// taken modulo 62 so that every character is equally likely.
pub fn random_text(len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut bytes = [0u8; 64];
    while out.len() < len {
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        for b in bytes.iter().filter(|&&b| b < 248).take(len - out.len()) {
            out.push(BASE62[(b % 62) as usize] as char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn random_text_is_base62_of_the_length_asked() {
        for len in [0, 1, 20, 32, 100] {
            let t = super::random_text(len);
            assert_eq!(t.len(), len);
            assert!(t.chars().all(|c| c.is_ascii_alphanumeric()));
        }
        assert_ne!(super::random_text(20), super::random_text(20));
    }
}
