//! The receipt routes: the signing keys, and the receipts lookup
//! (preview switch `receipts`).

use axum::extract::State;
use axum::Json;
use base64::Engine;
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{get, B64};
use crate::auth::Caller;
use crate::http::ApiError;
use crate::state::AppState;
use crate::wire;
use crate::wire::KeyScope;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(signing_keys))
}

/// The receipts lookup (preview switch `receipts`).
pub fn lookup_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(lookup))
}

/// GET /receipts/{id}: any receipt of the caller's account and mode, a
/// session's or an extraction's; another account's or mode's is not found.
#[utoipa::path(
    get,
    path = "/receipts/{id}",
    operation_id = "getReceipt",
    tag = "sessions",
    summary = "One signed receipt (preview: receipts)",
    description = "Scope: sessions:read. The same verifiable object as in a session's or an extraction's receipt list.",
    params(("id" = String, Path, description = "A receipt id (rcpt_...)")),
    responses((status = 200, description = "The receipt", body = crate::wire::Receipt))
)]
async fn lookup(
    State(state): State<AppState>,
    caller: Caller,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Result<Json<Value>, ApiError> {
    find(&state, &caller, &id).map(Json)
}

/// A receipt of the caller's account and mode (a session's or an
/// extraction's), or not found.
pub fn find(state: &AppState, caller: &Caller, id: &str) -> Result<Value, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    let (account, mode) = (caller.account.id.clone(), caller.mode());
    let receipt = state.store.read(|tx| -> anyhow::Result<Option<Value>> {
        let Some(receipt) = get(tx, id)? else {
            return Ok(None);
        };
        // Its owner: the session or extraction it was issued for.
        let owner = receipt["session_id"]
            .as_str()
            .or_else(|| receipt["extraction_id"].as_str())
            .unwrap_or_default()
            .to_string();
        let owned = crate::sessions::get(tx, &owner)?
            .is_some_and(|s| s.account == account && s.mode == mode);
        Ok(owned.then_some(receipt))
    })?;
    receipt.ok_or(ApiError::NotFound)
}

/// GET /signing-keys: the public keys that verify receipts.
#[utoipa::path(
    get,
    path = "/signing-keys",
    operation_id = "listSigningKeys",
    tag = "sessions",
    summary = "The Ed25519 public keys that verify receipts",
    responses((status = 200, description = "The signing keys", body = crate::wire::SigningKeyList))
)]
async fn signing_keys(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<wire::SigningKeyList>, ApiError> {
    caller.require(KeyScope::SessionsRead)?;
    let s = &state.signer;
    Ok(Json(wire::SigningKeyList {
        object: "list",
        has_more: false,
        data: vec![wire::SigningKey {
            id: s.key_id.clone(),
            object: "signing_key",
            alg: "ed25519",
            public_key: B64.encode(s.public_key().to_bytes()),
            created_at: s.created_at.clone(),
        }],
    }))
}
