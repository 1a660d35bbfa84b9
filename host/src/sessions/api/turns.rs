//! Follow-up turns and refreshes: priced first (a proposal), then confirmed.

use crate::auth::Caller;
use crate::http::{ApiError, Body};
use crate::idempotency::{self, Idempotent, SessionsWrite};
use crate::sessions::events::{self, EventData};
use crate::sessions::proposals::{Proposal, PROPOSALS};
use crate::sessions::{Session, Status};
use crate::state::AppState;
use crate::store::{self, Scope, Tx};
use crate::wire;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use super::create::price;
use super::{own, PROPOSAL_TTL_MIN};
use crate::sessions::intent::Intent;
use crate::sessions::lifecycle::{self, Opening};
use crate::sessions::opening::plan;

/// A follow-up turn keeps the earlier turn's sources and entity unless it names its own.
pub(super) fn merge_turn(previous: &Value, next: &Value) -> Value {
    let mut merged = next.clone();
    if merged["sources"].as_array().is_none_or(|a| a.is_empty()) {
        merged["sources"] = previous["sources"].clone();
    }
    if merged["entity"].as_str().is_none_or(|e| e == "product") && previous["entity"].is_string() {
        merged["entity"] = previous["entity"].clone();
    }
    merged
}

/// A follow-up turn, priced first.
#[utoipa::path(post, path = "/sessions/{id}/turns", operation_id = "createTurn", tag = "sessions",
    description = "Scope: sessions:write. Without `proposal`: 409 proposal_required with the priced proposal. With the proposal id (same query, within 15 minutes): 201, the session running its next turn with a new reservation.",
    params(wire::SessionId, wire::IdempotencyHeader),
    request_body = wire::TurnCreate,
    responses((status = 201, description = "The session, running the new turn", body = wire::Session)))]
pub(super) async fn turn(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Idempotent<SessionsWrite>,
) -> Response {
    answer_turn(&state, &id, request, false).await
}

/// A turn or a refresh (`refresh`), answered under its Idempotency-Key.
async fn answer_turn(
    state: &AppState,
    id: &str,
    request: Idempotent<SessionsWrite>,
    refresh: bool,
) -> Response {
    let Idempotent {
        caller, body, idem, ..
    } = request;
    let result = add_turn(state, &caller, id, &body, idem.as_ref(), refresh).await;
    idempotency::respond(
        state,
        idem,
        result.map(|s| (StatusCode::CREATED, s.to_wire(&state.config.public_url()))),
    )
    .await
}

pub(super) async fn add_turn(
    state: &AppState,
    caller: &Caller,
    id: &str,
    body: &Body,
    idem: Option<&idempotency::Idem>,
    refresh: bool,
) -> Result<Session, ApiError> {
    let session = own(state, caller, id)?;
    let (query, proposal_id, max_spend_usd) = if refresh {
        let asked = wire::SessionRefresh::parse(body)?;
        (session.query.clone(), asked.proposal, asked.max_spend_usd)
    } else {
        let asked = wire::TurnCreate::parse(body)?;
        (asked.query, asked.proposal, asked.max_spend_usd)
    };
    if session.redacted {
        // Redaction is not a status: the context names the one it has.
        return Err(ApiError::SessionTerminal {
            status: session.status.as_str().into(),
        });
    }
    if session.is_running() {
        return Err(ApiError::SessionBusy {
            status: session.status.as_str().into(),
        });
    }
    if !session.status.accepts_turns() || session.turn >= state.config.fetch.max_turns {
        return Err(ApiError::SessionTerminal {
            status: session.status.as_str().into(),
        });
    }
    let max_spend = max_spend_usd.unwrap_or(session.max_spend);
    let Some(proposal_id) = proposal_id else {
        // Price the turn first; the customer confirms by sending the id back.
        let e = plan(state, caller.mode(), &query)
            .await
            .ok_or(ApiError::EngineUnavailable)?;
        let parsed = if refresh {
            session.parsed.clone()
        } else {
            merge_turn(&session.parsed, &e.parsed)
        };
        let would_run = e.would_run || !Intent::of(&parsed).sources.is_empty();
        let (passes, estimated) = price(state, &parsed, would_run, max_spend);
        let proposal = Proposal {
            id: crate::ids::new_id("prop"),
            session: session.id.clone(),
            turn: session.turn + 1,
            query,
            parsed,
            estimated,
            passes,
            expires_at: crate::time::format(
                chrono::Utc::now() + chrono::Duration::minutes(PROPOSAL_TTL_MIN),
            ),
            used: false,
            refresh,
        };
        let p = proposal.clone();
        let sid = session.id.clone();
        state
            .store
            .write_async_in(
                Scope::account(&caller.account.id),
                move |tx| -> anyhow::Result<()> {
                    store::put_json(tx, PROPOSALS, &p.id, &p)?;
                    let mut s = crate::sessions::get(tx, &sid)?
                        .ok_or_else(|| anyhow::anyhow!("session vanished"))?;
                    let made = wire::ProposalMade {
                        turn: p.turn,
                        proposal: p.to_wire(),
                    };
                    events::append(tx, &mut s, EventData::Proposal(made))?;
                    crate::sessions::put(tx, &s)?;
                    crate::webhooks::emit(
                        tx,
                        &s.account,
                        s.mode,
                        "session.proposal",
                        wire::SessionProposalData {
                            session_id: s.id.clone(),
                            turn: p.turn,
                            proposal: p.to_wire(),
                        },
                        s.webhook_url.as_deref(),
                    )
                },
            )
            .await?;
        state.bus.publish();
        state.webhooks.kick();
        return Err(ApiError::ProposalRequired {
            proposal: proposal.to_wire(),
        });
    };
    let public_url = state.config.public_url();
    let sid = session.id.clone();
    let ids = [sid.clone()];
    let prepare = move |tx: &Tx| -> Result<Vec<Opening>, ApiError> {
        let mut p: Proposal = tx
            .get_json(PROPOSALS, &proposal_id)?
            .filter(|p: &Proposal| p.session == sid)
            .ok_or_else(|| {
                ApiError::invalid("proposal", "proposal is not a proposal of this session")
            })?;
        if p.used {
            return Err(ApiError::invalid(
                "proposal",
                "this proposal was already confirmed",
            ));
        }
        if crate::time::parse(&p.expires_at).is_none_or(|t| t < chrono::Utc::now()) {
            return Err(ApiError::invalid(
                "proposal",
                "this proposal has expired; send the turn again for a new one",
            ));
        }
        if p.query != query {
            return Err(ApiError::invalid(
                "query",
                "query differs from the proposal's query",
            ));
        }
        if p.refresh != refresh {
            let route = if p.refresh { "/refresh" } else { "/turns" };
            return Err(ApiError::invalid(
                "proposal",
                format!("this proposal is confirmed through {route}"),
            ));
        }
        let mut s = crate::sessions::get(tx, &sid)?.ok_or(ApiError::NotFound)?;
        if s.is_running() {
            return Err(ApiError::SessionBusy {
                status: s.status.as_str().into(),
            });
        }
        if s.turn + 1 != p.turn {
            return Err(ApiError::invalid(
                "proposal",
                "this proposal is for another turn",
            ));
        }
        p.used = true;
        store::put_json(tx, PROPOSALS, &p.id, &p)?;
        s.turn = p.turn;
        s.query = p.query.clone();
        s.parsed = p.parsed.clone();
        s.status = Status::Running;
        s.stop = None;
        s.error = None;
        s.reason = None;
        s.ended_at = None;
        s.max_spend = max_spend;
        // A refresh is diffed against the turn it reads again.
        s.diff = None;
        s.diff_base = refresh.then(|| format!("turn:{}", s.turn - 1));
        s.refresh_of = refresh.then(|| s.id.clone());
        s.updated_at = crate::time::now();
        let started = wire::TurnStarted {
            turn: s.turn,
            query: s.query.clone(),
            reserved_usd: max_spend.into(),
            proposal: Some(p.id.clone()),
        };
        Ok(vec![Opening::run(s, vec![EventData::TurnStarted(started)])])
    };
    let opened = lifecycle::open(
        state,
        caller,
        &ids,
        idem,
        prepare,
        move |s: &[Session]| s[0].to_wire(&public_url),
    )
    .await?;
    let (mut sessions, _) = opened.start(state);
    Ok(sessions.remove(0))
}

/// Reads a finished session's sources again as a new turn (preview: refresh).
#[utoipa::path(post, path = "/sessions/{id}/refresh", operation_id = "refreshSession", tag = "sessions",
    description = "Scope: sessions:write. Preview (switch `refresh`). Priced like a turn: without `proposal`, 409 proposal_required with the priced proposal; with its id (within 15 minutes), 201 and the session running a new turn with the same query and intent. When it ends, `diff` counts the rows added, removed and changed against the turn before (the differ plugin).",
    params(wire::SessionId, wire::IdempotencyHeader),
    request_body(content = wire::SessionRefreshBody),
    responses((status = 201, description = "The session, running the refresh turn", body = wire::Session)))]
pub(super) async fn refresh(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Idempotent<SessionsWrite>,
) -> Response {
    answer_turn(&state, &id, request, true).await
}
