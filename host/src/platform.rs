//! The platform plane: /me, /balance, /usage, /keys.

use axum::extract::{Path, State};
use axum::Json;
use chrono::{Duration, NaiveDate, Utc};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::http::{ApiError, Body, Page, Query};
use crate::keys;
use crate::ledger;
use crate::money::Micros;
use crate::state::AppState;
use crate::wire::KeyScope;
use crate::wire::{self, Usd};

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
    responses((status = 200, description = "The account", body = wire::Account)))]

async fn me(State(_): State<AppState>, caller: Caller) -> Result<Json<wire::Account>, ApiError> {
    caller.require(KeyScope::AccountRead)?;
    let a = &caller.account;
    Ok(Json(wire::Account {
        object: "account",
        id: a.id.clone(),
        name: a.name.clone(),
        created_at: a.created_at.clone(),
        livemode: caller.mode().livemode(),
        fn_version: a.fn_version.clone(),
        monthly_cap_usd: a.monthly_cap.map(Usd),
        key: wire::CallerKey {
            id: caller.key.id.clone(),
            name: caller.key.name.clone(),
            scopes: caller.key.scopes.clone(),
        },
    }))
}

/// The balance object of an account in one mode.
pub fn balance_wire(
    account: &crate::accounts::Account,
    mode: crate::accounts::Mode,
    b: &ledger::Balance,
) -> wire::Balance {
    wire::Balance {
        object: "balance",
        livemode: mode.livemode(),
        balance_usd: Usd(b.balance),
        open_reserves_usd: Usd(b.open_reserves),
        available_usd: Usd(b.available()),
        low_balance_threshold_usd: Usd(account.low_balance_threshold),
        auto_recharge: wire::AutoRecharge::DISABLED,
    }
}

/// The balance of the caller's account in the caller's mode.
#[utoipa::path(get, path = "/balance", operation_id = "getBalance", tag = "platform",
    description = "Scope: account:read. A fn_test_ key sees the test balance, a fn_live_ key the live one.",
    responses((status = 200, description = "The balance", body = wire::Balance)))]
async fn balance(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<wire::Balance>, ApiError> {
    caller.require(KeyScope::AccountRead)?;
    let (id, mode) = (caller.account.id.clone(), caller.mode());
    let b = state.store.read(|tx| ledger::balance(tx, &id, mode))?;
    Ok(Json(balance_wire(&caller.account, mode, &b)))
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
    params(wire::UsageParams),
    responses((status = 200, description = "The usage", body = wire::Usage)))]
async fn usage(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<wire::UsageParams>,
) -> Result<Json<wire::Usage>, ApiError> {
    caller.require(KeyScope::AccountRead)?;
    let today = Utc::now().date_naive();
    let to = parse_date("to", &q.to, today)?;
    let from = parse_date("from", &q.from, to - Duration::days(29))?;
    if from > to {
        return Err(ApiError::invalid("from", "from must not be after to"));
    }
    // Both ends count, as in the default (the last 30 days: `to` − 29).
    if (to - from).num_days() + 1 > 366 {
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
    Ok(Json(wire::Usage {
        object: "usage",
        livemode: mode.livemode(),
        from: from.to_string(),
        to: to.to_string(),
        total_usd: Usd(total),
        by_day: days
            .into_iter()
            .map(|(date, spend)| wire::UsageDay {
                date,
                spend_usd: Usd(spend),
            })
            .collect(),
    }))
}

/// The account's keys of the caller's mode, newest first; never their text.
#[utoipa::path(get, path = "/keys", operation_id = "listKeys", tag = "platform",
    description = "Scope: keys:read.",
    params(wire::PageParams),
    responses((status = 200, description = "A page of keys", body = wire::KeyList)))]
async fn list_keys(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<wire::PageParams>,
) -> Result<Json<wire::KeyList>, ApiError> {
    caller.require(KeyScope::KeysRead)?;
    let page = Page::from_query(&q)?;
    let (id, mode) = (caller.account.id.clone(), caller.mode());
    let mut all = state.store.read(|tx| keys::of_account(tx, &id, mode))?;
    all.reverse();
    let keys = page.slice(all.iter().map(keys::Key::to_wire).collect(), |k| &k.id)?;
    Ok(Json(wire::KeyList::cut(page.limit, keys)))
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
    params(wire::KeyId),
    request_body = wire::KeyRename,
    responses((status = 200, description = "The key", body = wire::Key)))]
async fn rename_key(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Body,
) -> Result<Json<wire::Key>, ApiError> {
    caller.require(KeyScope::KeysWrite)?;
    // The path's object first: an unknown id is 404 whatever the body.
    own_key(&state, &caller, &id)?;
    let wire::KeyRename { name } = wire::KeyRename::parse(&body)?;
    let key = state
        .store
        .write_async(move |tx| -> Result<keys::Key, ApiError> {
            let mut key = keys::get(tx, &id)?.ok_or(ApiError::NotFound)?;
            key.name = name;
            keys::put(tx, &key)?;
            Ok(key)
        })
        .await?;
    Ok(Json(key.to_wire()))
}

/// Revokes a key at once; revoking twice keeps the first time.
#[utoipa::path(post, path = "/keys/{id}/revoke", operation_id = "revokeKey", tag = "platform",
    description = "Scope: keys:write. The key fails with 401 key_revoked from the next request on.",
    params(wire::KeyId),
    responses((status = 200, description = "The key, with revoked_at", body = wire::Key)))]
async fn revoke_key(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<wire::Key>, ApiError> {
    caller.require(KeyScope::KeysWrite)?;
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
    Ok(Json(key.to_wire()))
}
