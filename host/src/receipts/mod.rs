//! Receipts: what was fetched, when, its content hash, the records found and
//! the cost, signed with Ed25519 so that anyone can verify one with the
//! public key from GET /signing-keys, without a shared secret.
//!
//! The signature covers the receipt's canonical JSON: the receipt object
//! without its `signature` member, keys sorted, no whitespace, UTF-8.

use base64::Engine;
use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::money::Micros;
use crate::store::{self, Table};

/// Signed receipts by id, kept as the JSON that was signed: the signature
/// covers its canonical text, which a typed round trip could rewrite (a
/// number's digits), so the stored record is that JSON itself.
const RECEIPTS: Table<Value> = store::RECEIPTS.holding();

/// The signing key, a singleton of META.
const SIGNING_KEY: Table<StoredKey> = store::META.holding();

mod api;
use crate::wire;
pub use api::{find, lookup_routes, routes};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// The server's receipt signing key.
#[derive(Clone)]
pub struct ReceiptSigner {
    pub key_id: String,
    key: SigningKey,
    pub created_at: String,
}

#[derive(Serialize, Deserialize)]
struct StoredKey {
    key_id: String,
    secret: String,
    created_at: String,
}

impl ReceiptSigner {
    /// Load the signing key, creating it on first start.
    pub fn load_or_create(store: &store::Store) -> anyhow::Result<ReceiptSigner> {
        store.write(|tx| -> anyhow::Result<ReceiptSigner> {
            let stored: StoredKey = match tx.get_json(SIGNING_KEY, "receipt_signing_key")? {
                Some(k) => k,
                None => {
                    let key = SigningKey::generate(&mut rand::rngs::OsRng);
                    let k = StoredKey {
                        key_id: crate::ids::new_id("sk"),
                        secret: B64.encode(key.to_bytes()),
                        created_at: crate::time::now(),
                    };
                    store::put_json(tx, SIGNING_KEY, "receipt_signing_key", &k)?;
                    k
                }
            };
            let bytes: [u8; 32] = B64
                .decode(&stored.secret)?
                .try_into()
                .map_err(|_| anyhow::anyhow!("the stored signing key is malformed"))?;
            Ok(ReceiptSigner {
                key_id: stored.key_id,
                key: SigningKey::from_bytes(&bytes),
                created_at: stored.created_at,
            })
        })
    }

    pub fn public_key(&self) -> VerifyingKey {
        self.key.verifying_key()
    }

    /// Sign a receipt object (without `signature`) and attach the signature.
    pub fn sign(&self, mut receipt: Value) -> Value {
        if let Value::Object(m) = &mut receipt {
            m.remove("signature");
        }
        let message = canonical(&receipt);
        let sig = self.key.sign(message.as_bytes());
        let signature = wire::ReceiptSignature {
            alg: "ed25519",
            key_id: self.key_id.clone(),
            value: B64.encode(sig.to_bytes()),
        };
        receipt["signature"] = serde_json::to_value(signature).expect("a signature serializes");
        receipt
    }
}

/// The bytes a signature covers. serde_json's maps keep keys sorted, and
/// `to_string` writes no whitespace.
pub fn canonical(receipt: &Value) -> String {
    let mut r = receipt.clone();
    if let Value::Object(m) = &mut r {
        m.remove("signature");
    }
    r.to_string()
}

/// Verify a receipt against a public key (what a customer does).
pub fn verify(receipt: &Value, public_key: &VerifyingKey) -> bool {
    let Some(sig) = receipt["signature"]["value"]
        .as_str()
        .and_then(|s| B64.decode(s).ok())
    else {
        return false;
    };
    let Ok(sig) = ed25519_dalek::Signature::from_slice(&sig) else {
        return false;
    };
    public_key
        .verify_strict(canonical(receipt).as_bytes(), &sig)
        .is_ok()
}

/// What a receipt was issued for: its `session_id` or `extraction_id`.
#[derive(Debug, Clone, Copy)]
pub enum Owner<'a> {
    Session(&'a str),
    Extraction(&'a str),
}

/// The facts a receipt states.
pub struct Facts<'a> {
    /// `session_id` or `extraction_id`: what the receipt was issued for.
    pub owner: Owner<'a>,
    pub turn: u32,
    pub url: &'a str,
    pub fetched_at: &'a str,
    pub http_status: u16,
    pub content_sha256: &'a str,
    pub bytes: usize,
    pub records: usize,
    pub claim: &'a str,
    pub cost: Micros,
    pub extractor: &'a str,
    pub livemode: bool,
    pub replayed: bool,
}

/// A new signed receipt.
pub fn issue(signer: &ReceiptSigner, facts: &Facts) -> Value {
    let (session_id, extraction_id) = match facts.owner {
        Owner::Session(id) => (Some(id.to_string()), None),
        Owner::Extraction(id) => (None, Some(id.to_string())),
    };
    let receipt = wire::Receipt {
        id: crate::ids::new_id("rcpt"),
        object: "receipt",
        livemode: facts.livemode,
        session_id,
        turn: Some(facts.turn),
        extraction_id,
        url: facts.url.to_string(),
        fetched_at: facts.fetched_at.to_string(),
        http_status: facts.http_status,
        content_sha256: facts.content_sha256.to_string(),
        bytes: facts.bytes as u64,
        records: facts.records as u64,
        claim: facts.claim.to_string(),
        cost_usd: wire::Usd(facts.cost),
        extractor: facts.extractor.to_string(),
        source: if facts.replayed { "replay" } else { "fetch" },
        issued_at: crate::time::now(),
        signature: None,
    };
    signer.sign(serde_json::to_value(receipt).expect("a receipt serializes"))
}

// ---- storage: the receipts table is read and written here only ----

/// Store a signed receipt (in the transaction of the page it states).
pub fn put(tx: &crate::store::Tx, receipt: &Value) -> anyhow::Result<()> {
    let id = receipt["id"].as_str().unwrap_or_default();
    store::put_json(tx, RECEIPTS, id, receipt)
}

pub fn get(tx: &crate::store::Tx, id: &str) -> anyhow::Result<Option<Value>> {
    tx.get_json(RECEIPTS, id)
}

/// The stored receipts of `ids` that exist, in that order.
pub fn get_many(tx: &crate::store::Tx, ids: &[String]) -> anyhow::Result<Vec<Value>> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(r) = get(tx, id)? {
            out.push(r);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn signed_receipts_verify_and_tampering_breaks_them() {
        let store = store::Store::in_memory().unwrap();
        let signer = ReceiptSigner::load_or_create(&store).unwrap();
        let again = ReceiptSigner::load_or_create(&store).unwrap();
        assert_eq!(signer.key_id, again.key_id, "the key is created once");
        let facts = Facts {
            owner: Owner::Session("ses_1"),
            turn: 1,
            url: "https://shop.example/p/1",
            fetched_at: "2026-11-21T00:00:00.000Z",
            http_status: 200,
            content_sha256: "ab",
            bytes: 10,
            records: 2,
            claim: "complete",
            cost: Micros(3000),
            extractor: "generic@0.1.0",
            livemode: true,
            replayed: false,
        };
        let r = issue(&signer, &facts);
        assert!(verify(&r, &signer.public_key()));
        let mut tampered = r.clone();
        tampered["records"] = json!(3);
        assert!(!verify(&tampered, &signer.public_key()));
    }
}
