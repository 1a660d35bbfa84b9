//! Receipts and the keys that verify them.

use serde::Serialize;
use utoipa::ToSchema;

use super::{list_of, Usd};

/// A receipt's signature.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReceiptSignature {
    /// `ed25519`
    #[schema(value_type = String)]
    pub alg: &'static str,
    /// The id of the signing key (GET /signing-keys).
    pub key_id: String,
    /// Base64 of the signature over the receipt without `signature`,
    /// serialized with sorted keys and no whitespace.
    pub value: String,
}

// Issued without `signature`, which is computed over the rest; stored and
// answered as signed JSON, so what a customer verifies is what was signed.
/// A signed statement of one page read: what was fetched, what it cost.
#[derive(Debug, Serialize, ToSchema)]
pub struct Receipt {
    pub id: String,
    /// `receipt`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub livemode: bool,
    /// The session that read the page (a session's receipt).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The session's turn (a session's receipt).
    pub turn: Option<u32>,
    /// The extraction that read the page (an extraction's receipt).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extraction_id: Option<String>,
    pub url: String,
    pub fetched_at: String,
    pub http_status: u16,
    pub content_sha256: String,
    pub bytes: u64,
    pub records: u64,
    /// complete or partial.
    pub claim: String,
    #[schema(value_type = f64)]
    pub cost_usd: Usd,
    /// The extractor plugin that read the page.
    pub extractor: String,
    /// fetch or replay.
    #[schema(value_type = String)]
    pub source: &'static str,
    pub issued_at: String,
    // Always present on a receipt answered or stored; absent only while
    // it is being signed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = ReceiptSignature, required = true)]
    pub signature: Option<ReceiptSignature>,
}

list_of!(
    /// A page of receipts.
    // Stored signed JSON, answered as stored.
    ReceiptList,
    serde_json::Value as Receipt
);

/// A public key that verifies receipts.
#[derive(Debug, Serialize, ToSchema)]
pub struct SigningKey {
    pub id: String,
    /// `signing_key`
    #[schema(value_type = String)]
    pub object: &'static str,
    /// `ed25519`
    #[schema(value_type = String)]
    pub alg: &'static str,
    /// Base64 of the 32-byte Ed25519 public key.
    pub public_key: String,
    pub created_at: String,
}

list_of!(
    /// The keys that verify receipts.
    SigningKeyList,
    SigningKey
);
