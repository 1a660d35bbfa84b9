//! The platform plane: /me, /balance, /usage, /keys.

use axum::extract::{Path, State};
use axum::Json;
use chrono::{Duration, NaiveDate, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::http::pagination::PageQuery;
use crate::http::{ApiError, Body, Page, Query};
use crate::keys;
use crate::ledger;
use crate::money::Micros;
use crate::openapi::schemas;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(me))
        .routes(routes!(balance))
        .routes(routes!(usage))
        .routes(routes!(list_keys))
        .routes(routes!(rename_key))
        .routes(routes!(revoke_key))
}

/// The caller's account and the key it called with.
#[utoipa::path(get, path = "/me", operation_id = "getMe", tag = "platform",
    description = "Scope: account:read.",
    responses((status = 200, description = "The account", body = schemas::Account)))]

async fn me(State(_): State<AppState>, caller: Caller) -> Result<Json<Value>, ApiError> {
    caller.require("account:read")?;
    let a = &caller.account;
    Ok(Json(json!({
        "object": "account",
        "id": a.id,
        "name": a.name,
        "created_at": a.created_at,
        "livemode": caller.mode().livemode(),
        "fn_version": a.fn_version,
        "monthly_cap_usd": a.monthly_cap.map(Micros::to_json),
        "key": { "id": caller.key.id, "name": caller.key.name, "scopes": caller.key.scopes },
    })))
}

/// The balance object of an account in one mode.
pub fn balance_json(
    account: &crate::accounts::Account,
    mode: crate::accounts::Mode,
    b: &ledger::Balance,
) -> Value {
    json!({
        "object": "balance",
        "livemode": mode.livemode(),
        "balance_usd": b.balance.to_json(),
        "open_reserves_usd": b.open_reserves.to_json(),
        "available_usd": b.available().to_json(),
        "low_balance_threshold_usd": account.low_balance_threshold.to_json(),
        // Automatic recharge needs a payment provider, which is not configured.
        "auto_recharge": { "enabled": false, "amount_usd": 0 },
    })
}

/// The balance of the caller's account in the caller's mode.
#[utoipa::path(get, path = "/balance", operation_id = "getBalance", tag = "platform",
    description = "Scope: account:read. A fn_test_ key sees the test balance, a fn_live_ key the live one.",
    responses((status = 200, description = "The balance", body = schemas::Balance)))]
async fn balance(State(state): State<AppState>, caller: Caller) -> Result<Json<Value>, ApiError> {
    caller.require("account:read")?;
    let (id, mode) = (caller.account.id.clone(), caller.mode());
    let b = state.store.read(|tx| ledger::balance(tx, &id, mode))?;
    Ok(Json(balance_json(&caller.account, mode, &b)))
}

#[derive(Deserialize)]
struct UsageQuery {
    from: Option<String>,
    to: Option<String>,
}

fn parse_date(name: &str, v: &Option<String>, default: NaiveDate) -> Result<NaiveDate, ApiError> {
    match v {
        None => Ok(default),
        Some(s) => NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .map_err(|_| ApiError::invalid(name, format!("{name} must be a date YYYY-MM-DD"))),
    }
}

/// Settled spend per UTC day.
#[utoipa::path(get, path = "/usage", operation_id = "getUsage", tag = "platform",
    description = "Scope: account:read. The period defaults to the last 30 days and spans at most 366.",
    params(schemas::UsageParams),
    responses((status = 200, description = "The usage", body = schemas::Usage)))]
async fn usage(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<UsageQuery>,
) -> Result<Json<Value>, ApiError> {
    caller.require("account:read")?;
    let today = Utc::now().date_naive();
    let to = parse_date("to", &q.to, today)?;
    let from = parse_date("from", &q.from, to - Duration::days(29))?;
    if from > to {
        return Err(ApiError::invalid("from", "from must not be after to"));
    }
    if (to - from).num_days() > 366 {
        return Err(ApiError::invalid(
            "from",
            "a usage period is at most 366 days",
        ));
    }
    let (id, mode) = (caller.account.id.clone(), caller.mode());
    let (f, t) = (from.to_string(), to.to_string());
    let days = state
        .store
        .read_async(move |tx| ledger::spend_by_day(tx, &id, mode, &f, &t))
        .await?;
    let total: Micros = days.iter().map(|(_, m)| *m).sum();
    Ok(Json(json!({
        "object": "usage",
        "livemode": mode.livemode(),
        "from": from.to_string(),
        "to": to.to_string(),
        "total_usd": total.to_json(),
        "by_day": days.iter().map(|(d, m)| json!({ "date": d, "spend_usd": m.to_json() })).collect::<Vec<_>>(),
    })))
}

/// The account's keys of the caller's mode, newest first; never their text.
#[utoipa::path(get, path = "/keys", operation_id = "listKeys", tag = "platform",
    description = "Scope: keys:read.",
    params(schemas::PageParams),
    responses((status = 200, description = "A page of keys", body = schemas::KeyList)))]
async fn list_keys(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    caller.require("keys:read")?;
    let page = Page::from_query(&q)?;
    let (id, mode) = (caller.account.id.clone(), caller.mode());
    let mut all = state.store.read(|tx| keys::of_account(tx, &id, mode))?;
    all.reverse();
    Ok(Json(
        page.slice(all.iter().map(keys::Key::to_json).collect())?,
    ))
}

/// A key of the caller's account and mode, or 404.
fn own_key(state: &AppState, caller: &Caller, id: &str) -> Result<keys::Key, ApiError> {
    let key = state
        .store
        .read(|tx| keys::get(tx, id))?
        .ok_or(ApiError::NotFound)?;
    if key.account != caller.account.id || key.mode != caller.mode() {
        return Err(ApiError::NotFound);
    }
    Ok(key)
}

/// Renames a key.
#[utoipa::path(patch, path = "/keys/{id}", operation_id = "renameKey", tag = "platform",
    description = "Scope: keys:write.",
    params(schemas::KeyId),
    request_body = schemas::KeyRename,
    responses((status = 200, description = "The key", body = schemas::Key)))]
async fn rename_key(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    caller.require("keys:write")?;
    let name = body.required_str("name")?;
    if name.chars().count() > 100 {
        return Err(ApiError::invalid(
            "name",
            "name must be at most 100 characters",
        ));
    }
    body.only(&["name"])?;
    own_key(&state, &caller, &id)?;
    let key = state
        .store
        .write_async(move |tx| -> Result<keys::Key, ApiError> {
            let mut key = keys::get(tx, &id)?.ok_or(ApiError::NotFound)?;
            key.name = name;
            keys::put(tx, &key)?;
            Ok(key)
        })
        .await?;
    Ok(Json(key.to_json()))
}

/// Revokes a key at once; revoking twice keeps the first time.
#[utoipa::path(post, path = "/keys/{id}/revoke", operation_id = "revokeKey", tag = "platform",
    description = "Scope: keys:write. The key fails with 401 key_revoked from the next request on.",
    params(schemas::KeyId),
    responses((status = 200, description = "The key, with revoked_at", body = schemas::Key)))]
async fn revoke_key(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    caller.require("keys:write")?;
    own_key(&state, &caller, &id)?;
    let key = state
        .store
        .write_async(move |tx| -> Result<keys::Key, ApiError> {
            let mut key = keys::get(tx, &id)?.ok_or(ApiError::NotFound)?;
            // Revoking twice keeps the first revocation time.
            if key.revoked_at.is_none() {
                key.revoked_at = Some(crate::time::now());
                keys::put(tx, &key)?;
            }
            Ok(key)
        })
        .await?;
    Ok(Json(key.to_json()))
}
