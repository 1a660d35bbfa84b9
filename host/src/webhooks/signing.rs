//! Standard Webhooks signing, secrets and the retry schedule.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

/// Random bytes in a new secret (the Standard Webhooks minimum is 24).
pub const SECRET_BYTES: usize = 32;

/// The delays before each retry, in schedule minutes (SPEC §6.2): the first
/// retry comes 1 minute after the first attempt fails, the second 5 minutes
/// after the first retry fails, and so on; the attempt after the last delay
/// is the final one.
pub const RETRY_MINUTES: [u64; 6] = [1, 5, 15, 60, 360, 1440];

/// Attempts a message gets before it is dead-lettered: the first and six retries.
pub const MAX_ATTEMPTS: u32 = RETRY_MINUTES.len() as u32 + 1;

/// A new secret: `whsec_` and the base64 of random bytes.
pub fn new_secret() -> String {
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    format!("whsec_{}", STANDARD.encode(bytes))
}

/// The key bytes of a `whsec_` secret.
pub fn secret_key(secret: &str) -> anyhow::Result<Vec<u8>> {
    let b64 = secret.strip_prefix("whsec_").unwrap_or(secret);
    STANDARD
        .decode(b64)
        .map_err(|e| anyhow::anyhow!("a webhook secret is not valid base64: {e}"))
}

/// The signature `v1,<base64 HMAC-SHA256 over "{id}.{timestamp}.{body}">`.
pub fn sign(secret: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> anyhow::Result<String> {
    let key = secret_key(secret)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key length");
    mac.update(msg_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// The `webhook-signature` header value: one signature per secret, space
/// separated (a rotated secret signs alongside its successor for a while).
pub fn signature_header(
    secrets: &[&str],
    msg_id: &str,
    timestamp: i64,
    body: &[u8],
) -> anyhow::Result<String> {
    let sigs = secrets
        .iter()
        .map(|s| sign(s, msg_id, timestamp, body))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(sigs.join(" "))
}

/// After attempt number `attempt` (1-based) failed: the delay before the next
/// one in milliseconds, or None when that was the last attempt.
pub fn retry_delay_ms(attempt: u32, minute_ms: u64) -> Option<u64> {
    let i = attempt.checked_sub(1)? as usize;
    RETRY_MINUTES.get(i).map(|m| m.saturating_mul(minute_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    // The test vector of the Standard Webhooks specification.
    #[test]
    fn signature_matches_the_standard_webhooks_vector() {
        let sig = sign(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        )
        .unwrap();
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn signature_depends_on_every_part() {
        let s = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let base = sign(s, "msg_1", 1, b"{}").unwrap();
        assert_ne!(base, sign(s, "msg_2", 1, b"{}").unwrap());
        assert_ne!(base, sign(s, "msg_1", 2, b"{}").unwrap());
        assert_ne!(base, sign(s, "msg_1", 1, b"{ }").unwrap());
        assert_ne!(base, sign(&new_secret(), "msg_1", 1, b"{}").unwrap());
        let both = signature_header(&[s, s], "msg_1", 1, b"{}").unwrap();
        assert_eq!(both, format!("{base} {base}"));
    }

    #[test]
    fn secrets_are_whsec_and_random() {
        let a = new_secret();
        let b = new_secret();
        assert!(a.starts_with("whsec_"));
        assert_ne!(a, b);
        assert_eq!(secret_key(&a).unwrap().len(), SECRET_BYTES);
        assert!(SECRET_BYTES >= 24);
    }

    #[test]
    fn schedule_is_1_5_15_60_360_1440_minutes_then_dead_letter() {
        let minute = 60_000;
        let delays: Vec<Option<u64>> = (1..=8).map(|n| retry_delay_ms(n, minute)).collect();
        assert_eq!(
            delays,
            vec![
                Some(60_000),
                Some(300_000),
                Some(900_000),
                Some(3_600_000),
                Some(21_600_000),
                Some(86_400_000),
                None,
                None
            ]
        );
        assert_eq!(MAX_ATTEMPTS, 7);
        assert_eq!(retry_delay_ms(MAX_ATTEMPTS, minute), None);
        // A scaled minute scales every delay.
        assert_eq!(retry_delay_ms(3, 100), Some(1_500));
        assert_eq!(retry_delay_ms(0, 100), None);
    }
}
