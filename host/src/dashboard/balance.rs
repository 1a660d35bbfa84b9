//! The balance page: balance, open reserves, available, and settled spend
//! per day over the last 30 days as an inline SVG bar chart.

use std::fmt::Write as _;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::{Duration, NaiveDate, Utc};

use super::auth::Dash;
use super::frame::{self, Nav};
use super::html::{self, usd, E};
use crate::http::ApiError;
use crate::ledger::{self};
use crate::money::Micros;
use crate::state::AppState;
use crate::wire::KeyScope;

/// Days the chart covers, today included.
const DAYS: i64 = 30;

pub async fn page(State(state): State<AppState>, dash: Dash) -> Response {
    if !dash.can(KeyScope::AccountRead) {
        return frame::page(
            &dash,
            Nav::Balance,
            "Balance",
            &html::missing_scope(KeyScope::AccountRead),
        );
    }
    let (account, mode) = (dash.account.id.clone(), dash.key.mode);
    let today = Utc::now().date_naive();
    let from = today - Duration::days(DAYS - 1);
    let (f, t) = (from.to_string(), today.to_string());
    let read = state
        .store
        .read_async(move |tx| -> anyhow::Result<_> {
            let b = ledger::balance(tx, &account, mode)?;
            let days = ledger::spend_by_day(tx, &account, mode, &f, &t)?;
            let open = ledger::open_reservations(tx, &account, mode)?;
            Ok((b, days, open))
        })
        .await;
    let (b, days, mut open) = match read {
        Ok(v) => v,
        Err(e) => return ApiError::internal(e).into_response(),
    };
    open.sort_by(|a, b| b.created_at.cmp(&a.created_at));

    let mut main = String::new();
    let low = b.balance < dash.account.low_balance_threshold;
    let _ = write!(
        main,
        "<section class=\"cards\">\
         <div class=\"card\"><div class=\"label\">Balance</div><div class=\"big\" id=\"balance-usd\">{}</div></div>\
         <div class=\"card\"><div class=\"label\">Open reserves</div><div class=\"big\" id=\"open-reserves-usd\">{}</div></div>\
         <div class=\"card\"><div class=\"label\">Available</div><div class=\"big\" id=\"available-usd\">{}</div></div>\
         <div class=\"card\"><div class=\"label\">Low-balance threshold</div><div class=\"big\">{}</div></div></section>",
        usd(b.balance),
        usd(b.open_reserves),
        usd(b.available()),
        usd(dash.account.low_balance_threshold),
    );
    if low {
        main.push_str(&html::notice(
            "error",
            "The balance is below the low-balance threshold. Top-ups are made by the operator of this server \
             (<code>fnhost admin top-up</code>); automatic recharge needs a payment provider and is off.",
        ));
    }

    // Spend over time.
    let total: Micros = days.iter().map(|(_, m)| *m).sum();
    let _ = write!(
        main,
        "<h2>Spend, last {DAYS} days</h2><p>Settled spend per UTC day, {} to {}: <strong id=\"spend-total\">{}</strong> in all.</p>{}",
        from,
        today,
        usd(total),
        chart(from, &days)
    );

    // Open reserves.
    let _ = write!(main, "<h2>Open reserves</h2>");
    if open.is_empty() {
        main.push_str("<p class=\"empty\">No money is held for running sessions.</p>");
    } else {
        main.push_str("<table><thead><tr><th>Reservation</th><th>For</th><th class=\"num\">Held</th><th>Since</th></tr></thead><tbody>");
        for r in &open {
            let purpose = if r.purpose.starts_with("ses_") {
                format!("<a href=\"/dashboard/sessions/{0}\">{0}</a>", E(&r.purpose))
            } else {
                html::esc(&r.purpose)
            };
            let _ = write!(
                main,
                "<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                E(&r.id),
                purpose,
                usd(r.amount),
                html::when(&r.created_at)
            );
        }
        main.push_str("</tbody></table>");
    }
    frame::page(&dash, Nav::Balance, "Balance", &main)
}

/// Bars of spend per day from `from`, one per day, zero days included.
pub fn chart(from: NaiveDate, days: &[(String, Micros)]) -> String {
    let (w, h, left, bottom, top) = (720.0f64, 220.0f64, 64.0f64, 28.0f64, 12.0f64);
    let n = DAYS as usize;
    let series: Vec<(NaiveDate, Micros)> = (0..DAYS)
        .map(|i| {
            let d = from + Duration::days(i);
            let key = d.to_string();
            (
                d,
                days.iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, m)| *m)
                    .unwrap_or(Micros::ZERO),
            )
        })
        .collect();
    let max = series.iter().map(|(_, m)| m.0).max().unwrap_or(0).max(1);
    let plot_h = h - bottom - top;
    let slot = (w - left - 8.0) / n as f64;
    let bar = (slot * 0.7).max(1.0);
    let mut svg = format!(
        "<figure class=\"chart\"><svg id=\"spend-chart\" viewBox=\"0 0 {w} {h}\" width=\"100%\" role=\"img\" \
         aria-label=\"Settled spend per day\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
    // Axis and the top gridline with the maximum.
    let base = h - bottom;
    let _ = write!(
        svg,
        "<line class=\"axis\" x1=\"{left}\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\"/>\
         <line class=\"grid\" x1=\"{left}\" y1=\"{top}\" x2=\"{}\" y2=\"{top}\"/>\
         <text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
         <text class=\"tick\" x=\"{}\" y=\"{base}\" text-anchor=\"end\">$0</text>",
        w - 4.0,
        w - 4.0,
        left - 6.0,
        top + 4.0,
        usd(Micros(if max == 1 { 0 } else { max })),
        left - 6.0,
    );
    for (i, (d, m)) in series.iter().enumerate() {
        let x = left + slot * i as f64 + (slot - bar) / 2.0;
        let bh = if m.0 > 0 {
            (m.0 as f64 / max as f64 * plot_h).max(1.5)
        } else {
            0.0
        };
        let _ = write!(
            svg,
            "<rect class=\"bar\" data-date=\"{d}\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{bh:.1}\"><title>{d}: {}</title></rect>",
            base - bh,
            usd(*m)
        );
        if i % 5 == 0 || i == n - 1 {
            let _ = write!(
                svg,
                "<text class=\"tick\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                x + bar / 2.0,
                h - 8.0,
                d.format("%b %d")
            );
        }
    }
    svg.push_str("</svg></figure>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_has_a_bar_per_day_and_scales_to_the_maximum() {
        let from = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        let svg = chart(
            from,
            &[
                ("2026-11-03".into(), Micros(2_000_000)),
                ("2026-11-10".into(), Micros(1_000_000)),
            ],
        );
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), DAYS as usize);
        assert!(svg.contains("2026-11-03: $2.00"));
        assert!(svg.contains("data-date=\"2026-11-30\""));
        assert!(svg.contains(">$2.00</text>"));
    }
}
