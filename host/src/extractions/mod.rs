//! Extractions (preview switch `extractions`): one known catalog URL, or a
//! batch of them, read once and turned into rows (SPEC §2.1–2.4, §4.1).
//!
//! An extraction is stored and run as a [`Session`] of kind
//! [`Kind::Extraction`]: the same claim before its commit, the same run
//! (limited to its one page, robots.txt obeyed, no links followed), the same
//! page commits, receipts, settlement, watchdog and crash recovery. What
//! differs is its creation (`api`), how it is shown ([`to_json`]), and its
//! end: status `delivered` when its page was read, webhooks
//! `extraction.delivered` / `extraction.failed` (in `sessions::run::end_in`).

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
    }
}

/// An extraction as the API shows it (SPEC §2.1).
pub fn to_json(s: &Session, public_url: &str) -> Value {
    debug_assert_eq!(s.kind, Kind::Extraction);
    let mut v = json!({
        "id": s.id,
        "object": "extraction",
        "livemode": s.mode.livemode(),
        "status": s.status_str(),
        "url": s.url,
        "entity": s.entity,
        "claim": s.claim,
        "records": s.records,
        "qualified": s.qualified,
        "spend_usd": (s.settled + s.pending_spend()).to_json(),
        "max_spend_usd": s.max_spend.to_json(),
        "reserved_usd": if s.is_running() { s.max_spend.to_json() } else { json!(0) },
        "settled_usd": s.settled.to_json(),
        "released_usd": s.released.to_json(),
        "receipt_id": s.receipt_id,
        "result_url": format!("{public_url}/v1/extractions/{}/result", s.id),
        "created_at": s.created_at,
        "updated_at": s.updated_at,
        "ended_at": s.ended_at,
    });
    if let Some(stop) = &s.stop {
        v["stop"] = json!(stop);
    }
    if let Some((code, message)) = &s.error {
        v["error"] = json!({ "code": code, "message": message });
    }
    if let Some(reason) = &s.reason {
        v["reason"] = json!(reason);
    }
    if let Some(g) = &s.guidance {
        v["guidance"] = json!(g);
    }
    if let Some(m) = &s.metadata {
        v["metadata"] = Value::Object(m.clone());
    }
    if let Some(w) = &s.webhook_url {
        v["webhook_url"] = json!(w);
    }
    if let Some(r) = &s.refresh_of {
        v["refresh_of"] = json!(r);
    }
    if let Some(f) = &s.served_from {
        v["served_from"] = json!(f);
    }
    if let Some(d) = &s.diff {
        v["diff"] = d.clone();
    }
    if s.redacted {
        v["redacted"] = json!(true);
    }
    v
}
