//! Extractions (preview switch `extractions`): one known catalog URL, or a
//! batch of them, read once and turned into rows (SPEC §2.1–2.4, §4.1).
//!
//! An extraction is stored and run as a [`Session`] of kind
//! [`Kind::Extraction`]: the same claim before its commit, the same run
//! (limited to its one page, robots.txt obeyed, no links followed), the same
//! page commits, receipts, settlement, watchdog and crash recovery. What
//! differs is its creation (`api`), how it is shown ([`to_json`]), and its
//! end: status `delivered` when its page was read, webhooks
//! `extraction.delivered` / `extraction.failed` (in `sessions::lifecycle::end_in`).

pub mod api;

use serde_json::{json, Map, Value};

use crate::auth::Caller;
use crate::money::Micros;
use crate::sessions::{Kind, Session, Status};

/// The most URLs of one batch (SPEC §8).
pub const MAX_BATCH: usize = 50;
/// The longest `entity` accepted.
pub const MAX_ENTITY_CHARS: usize = 200;

/// What an extraction is asked for besides its URL and entity.
pub struct Spec {
    pub guidance: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    pub webhook_url: Option<String>,
    pub max_spend: Micros,
    /// The caller's choice of rendering (else the node's).
    pub render: Option<crate::render::RenderMode>,
}

/// A new running extraction of `url` for the caller (not yet stored).
pub fn new_extraction(caller: &Caller, url: &str, entity: &str, spec: Spec) -> Session {
    let now = crate::time::now();
    Session {
        id: crate::ids::new_id("ext"),
        kind: Kind::Extraction,
        url: Some(url.to_string()),
        entity: Some(entity.to_string()),
        receipt_id: None,
        claim: None,
        refresh_of: None,
        served_from: None,
        diff: None,
        diff_base: None,
        redacted: false,
        account: caller.account.id.clone(),
        mode: caller.mode(),
        key_id: caller.key.id.clone(),
        status: Status::Running,
        stop: None,
        error: None,
        reason: None,
        turn: 1,
        query: String::new(),
        guidance: spec.guidance,
        metadata: spec.metadata,
        webhook_url: spec.webhook_url,
        parsed: json!({
            "entity": entity,
            "constraints": {},
            "sources": [{ "kind": "url", "value": url }],
        }),
        max_spend: spec.max_spend,
        reservation: String::new(),
        turn_receipts: Vec::new(),
        settled: Micros::ZERO,
        released: Micros::ZERO,
        records: 0,
        qualified: 0,
        unchecked: 0,
        sources: 0,
        receipts_signed: 0,
        row_count: 0,
        last_seq: 0,
        created_at: now.clone(),
        updated_at: now,
        ended_at: None,
        outcome: None,
        completeness: None,
        validators: Default::default(),
        conditional_on: None,
        render: spec.render,
    }
}

/// The payload of extraction.delivered / extraction.failed (SPEC §6.3).
pub fn ended_data(s: &Session) -> crate::wire::ExtractionEndedData {
    let delivered = s.status == crate::sessions::Status::Answered;
    crate::wire::ExtractionEndedData {
        extraction_id: s.id.clone(),
        url: s.url.clone(),
        status: s.status_str(),
        records: s.records,
        claim: s.claim.clone(),
        receipt_id: s.receipt_id.clone(),
        spend_usd: crate::wire::Usd(s.settled),
        reason: s.reason.clone().filter(|_| !delivered),
    }
}
