//! Opening a session: the planner's reading of its query, then one
//! `lifecycle::open` (caps, reservation, first events, the idempotent
//! answer), then the run, or the end at once when the planner declines.
//! Sessions from the API and from monitors open here.

use serde_json::Value;

use super::events::EventData;
use super::lifecycle::{self, Opening, Refused};
use super::{Kind, Session};
use crate::accounts::Mode;
use crate::auth::Caller;
use crate::idempotency::Idem;
use crate::money::Micros;
use crate::state::AppState;
use crate::wire;

/// The planner's reading of a query, with the host's judgement added: test
/// sentinels, and a search provider that can supply missing sources.
pub(crate) async fn plan(
    state: &AppState,
    mode: Mode,
    query: &str,
) -> Option<crate::plugins::Estimate> {
    let mut estimate = match state.plugins.estimate(query).await {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!(error = %e, "the planner failed");
            return None;
        }
    };
    match crate::sessions::testmode::sentinel(mode, query) {
        Some(crate::sessions::testmode::Sentinel::Decline) => {
            estimate.would_run = false;
            estimate.reason = "a test sentinel (FN_TEST_DECLINE) declines this query".into();
        }
        Some(_) => {
            // The other sentinels decide the run, not the parse.
            estimate.would_run = true;
            estimate.missing.clear();
        }
        None => {
            let only_source_missing =
                estimate.missing.iter().all(|m| m == "source") && !estimate.missing.is_empty();
            if !estimate.would_run
                && only_source_missing
                && state.config.search_provider_url.is_some()
                && mode == Mode::Live
            {
                estimate.would_run = true;
                estimate.missing.clear();
                estimate.reason =
                    "no source named; the configured search provider will look for them".into();
            }
        }
    }
    Some(estimate)
}

/// What a new session is asked for (its body, parsed and checked).
pub(crate) struct NewSession {
    pub id: String,
    pub query: String,
    pub max_spend: Micros,
    pub guidance: Option<String>,
    pub metadata: Option<serde_json::Map<String, Value>>,
    pub webhook_url: Option<String>,
}

/// Plans, reserves, stores and starts a session (or ends it at once when
/// the planner declines the query or cannot read it).
pub(crate) async fn open_session(
    state: &AppState,
    caller: &Caller,
    spec: NewSession,
    idem: Option<&Idem>,
) -> Result<Session, Refused> {
    let NewSession {
        id,
        query,
        max_spend,
        guidance,
        metadata,
        webhook_url,
    } = spec;
    let estimate = plan(state, caller.mode(), &query).await;
    let mut session = Session::new(id, Kind::Session, caller, max_spend);
    session.query = query.clone();
    session.guidance = guidance;
    session.metadata = metadata;
    session.webhook_url = webhook_url;
    session.parsed = estimate
        .as_ref()
        .map(|e| e.parsed.clone())
        .unwrap_or(Value::Null);
    let mut events = vec![EventData::TurnStarted(wire::TurnStarted {
        turn: 1,
        query: query.clone(),
        reserved_usd: max_spend.into(),
        proposal: None,
    })];
    if let Some(e) = &estimate {
        events.push(EventData::Parsed(wire::Parsed {
            would_run: e.would_run,
            parsed: e.parsed.clone(),
            missing: e.missing.clone(),
            reason: e.reason.clone(),
        }));
    }
    let public_url = state.config.public_url();
    let ids = [session.id.clone()];
    let opened = lifecycle::open(
        state,
        caller,
        &ids,
        idem,
        move |_| Ok::<_, Refused>(vec![Opening::run(session, events)]),
        move |s: &[Session]| s[0].to_wire(&public_url),
    )
    .await?;
    let (mut sessions, _) = match estimate {
        Some(e) if e.would_run => opened.start(state),
        // Declined by the parse: abstain at once, release in full, fetch nothing.
        Some(e) => {
            let reason = e.reason.clone();
            opened
                .end_at_once(state, lifecycle::Outcome::Abstained { reason })
                .await?
        }
        None => {
            let outcome = lifecycle::Outcome::Error {
                code: lifecycle::StreamCode::ParseFailed,
                message: "the planner could not read the query".into(),
            };
            opened.end_at_once(state, outcome).await?
        }
    };
    Ok(sessions.remove(0))
}
