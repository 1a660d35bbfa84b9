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

use serde_json::{Map, Value};

use crate::auth::Caller;
use crate::idempotency::Idem;
use crate::money::Micros;
use crate::sessions::events::EventData;
use crate::sessions::lifecycle::{self, Opening, Refused};
use crate::sessions::{Kind, Session};
use crate::state::AppState;
use crate::wire;

pub use crate::wire::{MAX_BATCH, MAX_ENTITY_CHARS};

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
    let mut e = Session::new(
        crate::ids::new_id("ext"),
        Kind::Extraction,
        caller,
        spec.max_spend,
    );
    e.url = Some(url.to_string());
    e.entity = Some(entity.to_string());
    e.guidance = spec.guidance;
    e.metadata = spec.metadata;
    e.webhook_url = spec.webhook_url;
    e.parsed = parsed_of(url, entity);
    e.render = spec.render;
    e
}

/// An extraction's intent, written as a planner writes its `parsed`
/// object: the entity, no constraints, the one URL as the source.
fn parsed_of(url: &str, entity: &str) -> Value {
    #[derive(serde::Serialize)]
    struct Parsed<'a> {
        entity: &'a str,
        constraints: Map<String, Value>,
        sources: [UrlSource<'a>; 1],
    }
    #[derive(serde::Serialize)]
    struct UrlSource<'a> {
        kind: &'static str,
        value: &'a str,
    }
    let parsed = Parsed {
        entity,
        constraints: Default::default(),
        sources: [UrlSource {
            kind: "url",
            value: url,
        }],
    };
    serde_json::to_value(parsed).expect("an intent is plain JSON")
}

/// Opens extractions: one run in flight for the lot (a batch shares one
/// slot), reserved and stored together or not at all, then started. The
/// answer is the one extraction, or the batch.
pub(crate) async fn open(
    state: &AppState,
    caller: &Caller,
    extractions: Vec<Session>,
    batch: bool,
    idem: Option<&Idem>,
) -> Result<(Vec<Session>, wire::ExtractionCreated), Refused> {
    let ids: Vec<String> = extractions.iter().map(|e| e.id.clone()).collect();
    let public_url = state.config.public_url();
    let total = Micros(extractions.iter().map(|e| e.max_spend.0).sum());
    let prepare = move |_: &crate::store::Tx| {
        let openings = extractions.into_iter().map(|e| {
            let started = wire::ExtractionStarted {
                url: e.url.clone().unwrap_or_default(),
                entity: e.entity.clone(),
                reserved_usd: e.max_spend.into(),
            };
            Opening::run(e, vec![EventData::ExtractionStarted(started)])
        });
        Ok::<_, Refused>(openings.collect())
    };
    let answer = move |stored: &[Session]| {
        if batch {
            wire::ExtractionCreated::Batch(wire::ExtractionBatch {
                object: "extraction_batch",
                data: stored
                    .iter()
                    .map(|e| e.to_extraction_wire(&public_url))
                    .collect(),
                total_reserved_usd: wire::Usd(total),
            })
        } else {
            wire::ExtractionCreated::One(Box::new(stored[0].to_extraction_wire(&public_url)))
        }
    };
    let opened = lifecycle::open(state, caller, &ids, idem, prepare, answer).await?;
    Ok(opened.start(state))
}
