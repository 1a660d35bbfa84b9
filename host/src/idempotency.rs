//! Idempotency-Key on create operations (SPEC §4, §8).
//!
//! The first response (status and body) to a key is stored and replayed for
//! 24 hours; the same key with a different request is 409
//! idempotency_conflict; while the first request is still running, a second
//! one with the same key gets that 409 too, so two never both run. A 5xx or
//! 429 is not stored: the client may retry it with the same key. Create
//! operations that move money store their response in the same transaction
//! as the money (`Idem::complete_in`), so a crash can never leave a charge
//! without its replayable response.

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::auth::Caller;
use crate::http::{ApiError, Body};
use crate::state::AppState;
use crate::store::{self, Scope, Tx, PENDING_CLAIMS};
use crate::wire::KeyScope;

/// `idempotency`, read and written through this module only.
const IDEMPOTENCY: store::Table<Record> = store::IDEMPOTENCY.holding();

/// Keys are kept this long.
pub const REPLAY_WINDOW_HOURS: i64 = 24;
/// The longest key accepted.
pub const MAX_KEY_LEN: usize = 255;

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    fingerprint: String,
    request_id: String,
    created_at: String,
    /// None while the first request is still running.
    response: Option<(u16, Value)>,
    /// The first response was the run's event stream (its body stored here
    /// is the run as created).
    #[serde(default)]
    streamed: bool,
}

/// A claimed key: the request holding it must complete or abandon it.
#[derive(Clone)]
pub struct Idem {
    /// The account whose key it is: the scope of the writes that claim,
    /// complete and release it.
    account: String,
    table_key: String,
    fingerprint: String,
    request_id: String,
    /// The answer is the run's event stream, so is a retry's that asks for it.
    pub streamed: bool,
}

/// What to do with a request.
pub enum Start {
    /// Run it; `Some` when it carries a key.
    Proceed(Option<Idem>),
    /// Answer with the stored first response.
    Replay(Stored),
}

/// A stored first response: its status, its body, the request that made it.
pub struct Stored {
    status: u16,
    body: Value,
    request_id: String,
    streamed: bool,
}

/// Claim the request's Idempotency-Key, if it has one.
pub async fn start(
    state: &AppState,
    caller: &Caller,
    headers: &HeaderMap,
    request_id: &str,
    operation: &str,
    body: &Body,
) -> Result<Start, ApiError> {
    let Some(raw) = headers.get("idempotency-key") else {
        return Ok(Start::Proceed(None));
    };
    let key = raw.to_str().map_err(|_| {
        ApiError::invalid("Idempotency-Key", "Idempotency-Key must be visible ASCII")
    })?;
    if key.is_empty() || key.len() > MAX_KEY_LEN {
        return Err(ApiError::invalid(
            "Idempotency-Key",
            format!("Idempotency-Key must be 1 to {MAX_KEY_LEN} characters"),
        ));
    }
    let fingerprint = {
        let mut h = Sha256::new();
        h.update(operation.as_bytes());
        h.update([0]);
        h.update(serde_json::to_vec(&body.0).expect("json"));
        hex::encode(h.finalize())
    };
    let table_key = crate::key!(caller.scope_key(), key);
    let claim = Idem {
        account: caller.account.id.clone(),
        table_key: table_key.clone(),
        fingerprint: fingerprint.clone(),
        request_id: request_id.to_string(),
        streamed: false,
    };
    let request_id = request_id.to_string();
    state
        .store
        .write_async_in(
            Scope::account(&caller.account.id),
            move |tx| -> Result<Start, ApiError> {
                if let Some(existing) = tx.get_json::<Record>(IDEMPOTENCY, &table_key)? {
                    let fresh = crate::time::parse(&existing.created_at).is_some_and(|t| {
                        Utc::now() - t < chrono::Duration::hours(REPLAY_WINDOW_HOURS)
                    });
                    if fresh {
                        if existing.fingerprint != fingerprint {
                            return Err(ApiError::IdempotencyConflict {
                                original_request_id: existing.request_id,
                            });
                        }
                        return match existing.response {
                            Some((status, body)) => Ok(Start::Replay(Stored {
                                status,
                                body,
                                request_id: existing.request_id,
                                streamed: existing.streamed,
                            })),
                            None => Err(ApiError::IdempotencyConflict {
                                original_request_id: existing.request_id,
                            }),
                        };
                    }
                }
                let record = Record {
                    fingerprint,
                    request_id,
                    created_at: crate::time::now(),
                    response: None,
                    streamed: false,
                };
                store::put_json(tx, IDEMPOTENCY, &table_key, &record)?;
                // Marked with this node: if it dies before answering, another
                // node releases the claim once its lease lapses.
                tx.put_str(PENDING_CLAIMS, &table_key, tx.node())?;
                Ok(Start::Proceed(Some(claim)))
            },
        )
        .await
}

/// The opening of every create operation: check the scope, then claim the
/// Idempotency-Key. `Err` is the finished answer (a refusal or a replay).
async fn begin(
    state: &AppState,
    caller: &Caller,
    scope: KeyScope,
    headers: &HeaderMap,
    request_id: &str,
    operation: &str,
    body: &Body,
) -> Result<Option<Idem>, Response> {
    caller.require(scope).map_err(IntoResponse::into_response)?;
    match start(state, caller, headers, request_id, operation, body).await {
        Ok(Start::Proceed(idem)) => Ok(idem),
        Ok(Start::Replay(stored)) => Err(replay(state, stored, headers)),
        Err(e) => Err(e.into_response()),
    }
}

/// A scope a create operation requires.
pub trait WriteScope {
    const SCOPE: KeyScope;
}

/// `sessions:write`: sessions, turns, refreshes, extractions, monitors.
pub struct SessionsWrite;
impl WriteScope for SessionsWrite {
    const SCOPE: KeyScope = KeyScope::SessionsWrite;
}

/// `webhooks:write`: webhook endpoints.
pub struct WebhooksWrite;
impl WriteScope for WebhooksWrite {
    const SCOPE: KeyScope = KeyScope::WebhooksWrite;
}

/// A create request, its Idempotency-Key handled once for every create
/// route: the scope checked, the key claimed (or its first answer replayed,
/// which answers the request), the body read. The operation the key is
/// bound to is the method and path ("POST /v1/sessions/ses_1/turns").
pub struct Idempotent<S> {
    pub caller: Caller,
    pub headers: HeaderMap,
    pub body: Body,
    /// The claimed key, if the request carries one.
    pub idem: Option<Idem>,
    scope: std::marker::PhantomData<S>,
}

impl<S: WriteScope> axum::extract::FromRequest<AppState> for Idempotent<S> {
    type Rejection = Response;

    async fn from_request(req: axum::extract::Request, state: &AppState) -> Result<Self, Response> {
        use axum::extract::{FromRequestParts as _, OriginalUri};
        let (mut parts, body) = req.into_parts();
        let caller = Caller::from_request_parts(&mut parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let request_id = parts
            .extensions
            .get::<crate::http::middleware::RequestId>()
            .map(|r| r.0.clone())
            .unwrap_or_default();
        let path = parts
            .extensions
            .get::<OriginalUri>()
            .map_or_else(|| parts.uri.path().to_string(), |u| u.path().to_string());
        let operation = format!("{} {path}", parts.method);
        let headers = parts.headers.clone();
        let request = axum::extract::Request::from_parts(parts, body);
        let body = <Body as axum::extract::FromRequest<AppState>>::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let idem = begin(
            state,
            &caller,
            S::SCOPE,
            &headers,
            &request_id,
            &operation,
            &body,
        )
        .await?;
        Ok(Idempotent {
            caller,
            headers,
            body,
            idem,
            scope: std::marker::PhantomData,
        })
    }
}

impl<S> Idempotent<S> {
    /// Whether the client asked for the run's event stream as the answer.
    pub fn wants_stream(&self) -> bool {
        crate::http::accept::wants_event_stream(&self.headers)
    }
}

/// The stored first response again. A run created with its event stream as
/// the answer is answered with that stream again, from its first event to
/// the end of the turn it created (not the turns after), when the retry asks
/// for it too: the stream is what the first request got.
fn replay(state: &AppState, stored: Stored, headers: &HeaderMap) -> Response {
    let Stored {
        status,
        body,
        request_id,
        streamed,
    } = stored;
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    let streamed_run = (streamed
        && status == StatusCode::CREATED
        && crate::http::accept::wants_event_stream(headers))
    .then(|| match (body["object"].as_str(), body["id"].as_str()) {
        (Some("session" | "extraction"), Some(id)) => Some(id.to_string()),
        _ => None,
    })
    .flatten();
    let mut response = match streamed_run {
        Some(id) => (
            status,
            crate::sessions::api::sse_first_turn(state.clone(), id),
        )
            .into_response(),
        None => (status, axum::Json(body)).into_response(),
    };
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("fn-request-id", v);
    }
    response
        .headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    response
}

impl Idem {
    /// Is the key's record still this request's (not released and claimed
    /// again by a retry)?
    fn still_ours(&self, tx: &Tx) -> anyhow::Result<bool> {
        Ok(tx
            .get_json::<Record>(IDEMPOTENCY, &self.table_key)?
            .is_some_and(|r| r.request_id == self.request_id))
    }

    /// Store the response inside the transaction that made its effects.
    pub fn complete_in(
        &self,
        tx: &Tx,
        status: StatusCode,
        body: &impl serde::Serialize,
    ) -> anyhow::Result<()> {
        // Still this request's claim (its answer may be stored already, by
        // the transaction of its effects): if it was released meanwhile
        // (its node judged dead) and a retry claimed the key, these effects
        // must not commit beside the retry's.
        anyhow::ensure!(
            self.still_ours(tx)?,
            "the Idempotency-Key claim of request {} was released before it finished",
            self.request_id
        );
        let record = Record {
            fingerprint: self.fingerprint.clone(),
            request_id: self.request_id.clone(),
            created_at: crate::time::now(),
            response: Some((status.as_u16(), serde_json::to_value(body)?)),
            streamed: self.streamed,
        };
        tx.remove(PENDING_CLAIMS, &self.table_key)?;
        store::put_json(tx, IDEMPOTENCY, &self.table_key, &record)
    }
}

/// Answer a create operation, storing its response under its key: success
/// and 4xx are replayed later; 5xx and 429 release the key for a retry.
pub async fn respond<T: serde::Serialize>(
    state: &AppState,
    idem: Option<Idem>,
    result: Result<(StatusCode, T), ApiError>,
) -> Response {
    let result = result.and_then(|(status, body)| {
        let body = serde_json::to_value(body).map_err(|e| ApiError::Internal(e.into()))?;
        Ok((status, body))
    });
    let Some(idem) = idem else {
        return match result {
            Ok((status, body)) => (status, axum::Json(body)).into_response(),
            Err(e) => e.into_response(),
        };
    };
    let stored = match &result {
        Ok((status, body)) => Some((*status, body.clone())),
        Err(e) if e.status().is_server_error() || e.status() == StatusCode::TOO_MANY_REQUESTS => {
            None
        }
        Err(e) => Some((
            e.status(),
            e.envelope_json(&idem.request_id, &state.config.docs_url()),
        )),
    };
    let outcome = store_outcome(&state.store, &idem, stored.clone()).await;
    if let Err(e) = outcome {
        // The outcome could not be written (the database is away): it is
        // written once the database is back, so that the client's retry is
        // answered (replayed, or run again) rather than wait for this node
        // to die.
        tokio::spawn(store_outcome_when_possible(
            state.store.clone(),
            idem,
            stored,
        ));
        return ApiError::Internal(e).into_response();
    }
    match result {
        Ok((status, body)) => (status, axum::Json(body)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// A request's outcome under its key: its answer stored (a success or a
/// 4xx), or the key released (a 5xx or 429).
async fn store_outcome(
    store: &crate::store::Store,
    idem: &Idem,
    stored: Option<(StatusCode, Value)>,
) -> anyhow::Result<()> {
    let idem = idem.clone();
    store
        .write_async_in(
            Scope::account(&idem.account),
            move |tx| -> anyhow::Result<()> {
                match stored {
                    Some((status, body)) => idem.complete_in(tx, status, &body),
                    None => release_own(tx, &idem),
                }
            },
        )
        .await
}

/// Write an outcome that could not be written when the request answered:
/// tried again every second for a few minutes (the claim is this node's,
/// so no other node frees it while it lives), then left to the start-up or
/// dead-node release.
async fn store_outcome_when_possible(
    store: crate::store::Store,
    idem: Idem,
    stored: Option<(StatusCode, Value)>,
) {
    for _ in 0..180 {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        if store_outcome(&store, &idem, stored.clone()).await.is_ok() {
            return;
        }
    }
    tracing::error!(request_id = %idem.request_id, "an Idempotency-Key outcome could not be written; the key is freed when this node restarts or is judged dead");
}

/// Free a claimed key whose request will not answer (a 5xx or 429, or a
/// node that died): the client's retry runs.
pub fn release(tx: &Tx, table_key: &str) -> anyhow::Result<()> {
    tx.remove(PENDING_CLAIMS, table_key)?;
    if tx
        .get_json::<Record>(IDEMPOTENCY, table_key)?
        .is_some_and(|r| r.response.is_none())
    {
        tx.remove(IDEMPOTENCY, table_key)?;
    }
    Ok(())
}

/// Free this request's own claim (a 5xx or 429), and nobody else's.
fn release_own(tx: &Tx, idem: &Idem) -> anyhow::Result<()> {
    // `release` frees only a claim without an answer.
    if idem.still_ours(tx)? {
        release(tx, &idem.table_key)?;
    }
    Ok(())
}

/// After a restart nothing is in flight: free every key whose first request
/// never finished (its effects, if any, were never committed).
pub fn release_unfinished(tx: &Tx) -> anyhow::Result<usize> {
    let all: Vec<(String, Record)> = tx.scan_json(IDEMPOTENCY, "", None, usize::MAX, false)?;
    let mut n = 0;
    for (k, r) in all {
        let expired = crate::time::parse(&r.created_at)
            .is_none_or(|t| Utc::now() - t >= chrono::Duration::hours(REPLAY_WINDOW_HOURS));
        if r.response.is_none() || expired {
            tx.remove(IDEMPOTENCY, &k)?;
            tx.remove(PENDING_CLAIMS, &k)?;
            n += 1;
        }
    }
    Ok(n)
}

/// Replace, in the stored answers of a caller's keys (`scope` is
/// `account:mode`), the object `id` with `redacted`: a replay after a
/// redaction shows no more customer data than a read does.
pub fn scrub(tx: &Tx, scope: &str, id: &str, redacted: &Value) -> anyhow::Result<()> {
    let records: Vec<(String, Record)> =
        tx.scan_json(IDEMPOTENCY, &crate::prefix!(scope), None, usize::MAX, false)?;
    for (key, mut record) in records {
        let Some((_, body)) = record.response.as_mut() else {
            continue;
        };
        let mut changed = false;
        if body["id"] == id {
            *body = redacted.clone();
            changed = true;
        } else if let Some(items) = body.get_mut("data").and_then(Value::as_array_mut) {
            for item in items.iter_mut().filter(|item| item["id"] == id) {
                *item = redacted.clone();
                changed = true;
            }
        }
        if changed {
            store::put_json(tx, IDEMPOTENCY, &key, &record)?;
        }
    }
    Ok(())
}
