//! The monitors pages: the signed-in mode's monitors, and one monitor's
//! runs, its latest changes and a price-history chart per product (from the
//! rows of its runs), as inline SVG.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};

use super::auth::Dash;
use super::frame::{self, Nav};
use super::html::{self, usd, E};
use crate::http::ApiError;
use crate::monitors::{self, changes::MAX_KEPT, Monitor, MonitorRun};
use crate::state::AppState;
use crate::wire::KeyScope;

/// Runs read for the chart, newest first.
const CHART_RUNS: usize = 30;
/// Products charted, at most.
const CHART_PRODUCTS: usize = 12;

pub async fn list(State(state): State<AppState>, dash: Dash) -> Response {
    if !dash.can(KeyScope::SessionsRead) {
        return frame::page(
            &dash,
            Nav::Monitors,
            "Monitors",
            &html::missing_scope(KeyScope::SessionsRead),
        );
    }
    let (account, mode) = (dash.account.id.clone(), dash.key.mode);
    let read = state.store.read_async(move |tx| monitors::all(tx)).await;
    let mut mine: Vec<Monitor> = match read {
        Ok(all) => all
            .into_iter()
            .filter(|m| m.account == account && m.mode == mode)
            .collect(),
        Err(e) => return ApiError::internal(e).into_response(),
    };
    mine.sort_by_key(|m| std::cmp::Reverse(m.created_us));
    let mut main = String::new();
    if mine.is_empty() {
        main.push_str("<p class=\"empty\">No monitors yet (POST /v1/monitors, preview switch <code>monitors</code>).</p>");
    } else {
        main.push_str("<table id=\"monitors\"><thead><tr><th>Monitor</th><th>Status</th><th class=\"num\">Cadence</th><th>Last run</th><th class=\"num\">Runs</th><th class=\"num\">Spent</th></tr></thead><tbody>");
        for m in &mine {
            let last = m
                .last_run
                .as_ref()
                .map(|r| r.outcome.as_str())
                .unwrap_or("none yet");
            let _ = write!(
                main,
                "<tr><td><a href=\"/dashboard/monitors/{}\">{}</a></td><td>{}</td><td class=\"num\">{} s</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                E(&m.id),
                E(&m.name),
                E(m.status.as_str()),
                m.cadence_s,
                E(last),
                m.runs,
                usd(m.lifetime_spend)
            );
        }
        main.push_str("</tbody></table>");
    }
    frame::page(&dash, Nav::Monitors, "Monitors", &main)
}

pub async fn detail(State(state): State<AppState>, dash: Dash, Path(id): Path<String>) -> Response {
    if !dash.can(KeyScope::SessionsRead) {
        return frame::page(
            &dash,
            Nav::Monitors,
            "Monitor",
            &html::missing_scope(KeyScope::SessionsRead),
        );
    }
    let (account, mode) = (dash.account.id.clone(), dash.key.mode);
    let read = state
        .store
        .read_async(
            move |tx| -> anyhow::Result<
                Option<(
                    Monitor,
                    Vec<MonitorRun>,
                    Vec<(String, Vec<crate::wire::Row>)>,
                )>,
            > {
                let Some(m) = monitors::get(tx, &id)? else {
                    return Ok(None);
                };
                if m.account != account || m.mode != mode {
                    return Ok(None);
                }
                let runs = monitors::runs_of(tx, &m.id, None, CHART_RUNS)?;
                let mut rows = Vec::new();
                for r in runs
                    .iter()
                    .filter(|r| matches!(r.outcome.as_str(), "baseline" | "changed" | "unchanged"))
                {
                    let at = r.fired_at.clone().unwrap_or_else(|| r.started_at.clone());
                    let mut all = Vec::new();
                    for child in &r.runs {
                        all.extend(crate::sessions::rows(tx, child, 0, MAX_KEPT)?);
                    }
                    rows.push((at, all));
                }
                Ok(Some((m, runs, rows)))
            },
        )
        .await;
    let (m, runs, rows) = match read {
        Ok(Some(v)) => v,
        Ok(None) => {
            return frame::page_with_status(
                &dash,
                Nav::Monitors,
                "Monitor not found",
                &html::notice("error", "No monitor with this id in this account and mode."),
                axum::http::StatusCode::NOT_FOUND,
            )
        }
        Err(e) => return ApiError::internal(e).into_response(),
    };
    let mut main = String::new();
    let _ = write!(
        main,
        "<p>{} · every {} s · {} runs · {} spent · next run {}</p>",
        E(m.status.as_str()),
        m.cadence_s,
        m.runs,
        usd(m.lifetime_spend),
        m.next_run_ms
            .map(crate::time::from_millis)
            .map(|t| html::when(&t))
            .unwrap_or_else(|| "none (paused)".into())
    );

    // Price history, oldest run first.
    main.push_str("<h2>Price history</h2>");
    main.push_str(&price_charts(&rows));

    // Latest changes.
    if let Some(r) = runs.iter().find(|r| !r.changes.is_empty()) {
        let _ = write!(
            main,
            "<h2>Changes of run {}</h2><ul id=\"changes\">",
            E(&r.id)
        );
        for c in r.changes.iter().take(50) {
            let mark = if c.notify { " class=\"notified\"" } else { "" };
            let _ = write!(main, "<li{mark}>{}</li>", E(&monitors::channels::line(c)));
        }
        main.push_str("</ul>");
    }

    // Runs.
    main.push_str("<h2>Runs</h2><table id=\"runs\"><thead><tr><th>Run</th><th>Outcome</th><th class=\"num\">Rows</th><th class=\"num\">Notified</th><th class=\"num\">Cost</th><th>Ended</th></tr></thead><tbody>");
    for r in &runs {
        let _ = write!(
            main,
            "<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            E(&r.id),
            E(&r.outcome),
            r.rows,
            r.notified,
            usd(r.cost),
            html::when_opt(r.fired_at.as_deref())
        );
    }
    main.push_str("</tbody></table>");
    frame::page(&dash, Nav::Monitors, &m.name, &main)
}

/// One small line chart per product: its price at each run that read it.
fn price_charts(rows: &[(String, Vec<crate::wire::Row>)]) -> String {
    // identity → (name, currency, [(run index, price)]), oldest run first.
    let mut series: BTreeMap<String, (String, String, Vec<(usize, f64)>)> = BTreeMap::new();
    for (i, (_, run_rows)) in rows.iter().rev().enumerate() {
        for row in run_rows {
            let record = &row.record;
            let Some(price) = record.get("price").and_then(|p| match p {
                serde_json::Value::String(s) => s.parse::<f64>().ok(),
                serde_json::Value::Number(n) => n.as_f64(),
                _ => None,
            }) else {
                continue;
            };
            let identity = fnhost_differ::identity(record);
            let name = record
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or(&identity)
                .to_string();
            let currency = record
                .get("currency")
                .and_then(|c| c.as_str())
                .unwrap_or("")
                .to_string();
            series
                .entry(identity)
                .or_insert_with(|| (name, currency, Vec::new()))
                .2
                .push((i, price));
        }
    }
    if series.is_empty() {
        return "<p class=\"empty\">No priced rows yet: the chart appears after the first run.</p>"
            .into();
    }
    let runs = rows.len().max(2);
    let mut out = String::from("<div class=\"charts\" id=\"price-history\">");
    for (name, currency, points) in series.values().take(CHART_PRODUCTS) {
        let (w, h, pad) = (300.0f64, 110.0f64, 18.0f64);
        let lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let hi = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        let span = if hi - lo < 1e-9 { 1.0 } else { hi - lo };
        let x = |i: usize| pad + (w - 2.0 * pad) * i as f64 / (runs - 1) as f64;
        let y = |p: f64| h - pad - (h - 2.0 * pad) * (p - lo) / span;
        let coords: Vec<String> = points
            .iter()
            .map(|(i, p)| format!("{:.1},{:.1}", x(*i), y(*p)))
            .collect();
        let last = points.last().map(|p| p.1).unwrap_or(0.0);
        let _ = write!(
            out,
            "<figure class=\"price-chart\"><figcaption>{} <span class=\"muted\">{:.2} {}</span></figcaption>\
             <svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{} price over runs\">\
             <line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" class=\"axis\"/>\
             <text x=\"2\" y=\"{ty}\" class=\"tick\">{:.2}</text><text x=\"2\" y=\"{by}\" class=\"tick\">{:.2}</text>\
             <polyline class=\"price\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" points=\"{}\"/>",
            E(name),
            last,
            E(currency),
            E(name),
            hi,
            lo,
            coords.join(" "),
            b = h - pad,
            r = w - pad,
            ty = pad,
            by = h - pad,
        );
        for (i, p) in points {
            let _ = write!(out, "<circle class=\"point\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"><title>{:.2}</title></circle>", x(*i), y(*p), p);
        }
        out.push_str("</svg></figure>");
    }
    out.push_str("</div>");
    out
}
