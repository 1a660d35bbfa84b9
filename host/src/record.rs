//! `fnhost record`: run one live session in-process (an in-memory database,
//! nothing billed) and save every page it fetched as a recording that the
//! replay plugin serves to fn_test_ keys.
//!
//! The recording format is the replay plugin's (plugins/replay/README.md):
//! `{name, recorded_at, pages: [{url, status, content_type, body}]}`. Put
//! the file in plugins/replay/recordings/ and rebuild the plugins.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use axum::body::Body as HttpBody;
use serde::Serialize;
use serde_json::Value;
use tower::ServiceExt;

use crate::admin::{self, AdminOp};
use crate::config::Config;
use crate::state::AppState;
use crate::store::Store;

/// The session the recorder runs.
#[derive(Serialize)]
struct SessionBody<'a> {
    query: &'a str,
    max_spend_usd: u32,
}

/// A recording file, as the replay plugin reads it.
#[derive(Serialize)]
struct Recording<'a> {
    name: &'a str,
    recorded_at: String,
    query: &'a str,
    pages: Vec<RecordedPage>,
}

#[derive(Serialize)]
struct RecordedPage {
    url: String,
    status: u16,
    content_type: Option<String>,
    body: String,
}

/// What `fnhost record` prints.
#[derive(Serialize)]
struct Recorded {
    recording: String,
    pages: usize,
    session_status: &'static str,
    records: u64,
}

/// Record the pages a live run of `query` fetches into `out`. With
/// `as_origin`, the seed's origin (for example a site served on loopback)
/// is replaced by that origin in every URL and body.
pub async fn record(
    mut config: Config,
    query: &str,
    name: &str,
    out: &Path,
    as_origin: Option<&str>,
) -> anyhow::Result<Value> {
    config.demo_account = false;
    let store = Store::in_memory()?;
    let account = admin::execute(
        &store,
        AdminOp::CreateAccount {
            name: "recorder".into(),
            balance_usd: "1000".into(),
        },
    )?;
    let key = account["live_key"].as_str().context("no key")?.to_string();
    let (plugins, _) =
        crate::plugins::Plugins::load(&config.plugin_config(), &config.plugin_cache_root())?;
    let signer = crate::receipts::ReceiptSigner::load_or_create(&store)?;
    let pages = Arc::new(Mutex::new(Vec::new()));
    let mut state = AppState::new(config, store.clone(), plugins, signer);
    state.fetcher = state.fetcher.clone().recording(pages.clone());
    let app = crate::app::app(state.clone());

    let request = axum::http::Request::post("/v1/sessions")
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .body(HttpBody::from(serde_json::to_string(&SessionBody {
            query,
            max_spend_usd: 100,
        })?))?;
    let response = app.clone().oneshot(request).await?;
    let body = axum::body::to_bytes(response.into_body(), 1 << 20).await?;
    let session: Value = serde_json::from_slice(&body)?;
    let id = session["id"]
        .as_str()
        .with_context(|| format!("the session was not created: {session}"))?
        .to_string();
    let ended = loop {
        let s = store
            .read(|tx| crate::sessions::get(tx, &id))?
            .context("session vanished")?;
        if !s.is_running() {
            break s;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let seed_origin = crate::sessions::run::seed_origin(&ended.parsed);
    let rewrite = |text: &str| match (&seed_origin, as_origin) {
        (Some(from), Some(to)) => text.replace(from.as_str(), to.trim_end_matches('/')),
        _ => text.to_string(),
    };
    let pages: Vec<RecordedPage> = pages
        .lock()
        .expect("recorder lock")
        .iter()
        .map(|p| RecordedPage {
            url: rewrite(&p.url),
            status: p.status,
            content_type: p.content_type.clone(),
            body: rewrite(&p.body),
        })
        .collect();
    let recording = Recording {
        name,
        recorded_at: crate::time::now(),
        query,
        pages,
    };
    std::fs::write(out, serde_json::to_vec_pretty(&recording)?)
        .with_context(|| format!("failed to write {}", out.display()))?;
    Ok(serde_json::to_value(Recorded {
        recording: out.display().to_string(),
        pages: recording.pages.len(),
        session_status: ended.status.as_str(),
        records: ended.records,
    })?)
}
