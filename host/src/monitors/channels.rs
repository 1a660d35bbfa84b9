//! What people read: a monitor run's notified changes as a Slack, Discord
//! or Microsoft Teams message (each in that service's incoming-webhook
//! format), and the monitor's Atom feed of the runs that notified.

use serde_json::{json, Value};

use super::{Monitor, MonitorRun};
use crate::wire::MonitorChange;

/// The most changes named in one chat message (the rest are counted).
const MAX_IN_MESSAGE: usize = 10;

/// One line a person reads: "Ridgeline 2P dropped 12 % to 176.00 USD (was 200.00)".
pub fn line(c: &MonitorChange) -> String {
    let name = c.name.clone().unwrap_or_else(|| c.identity.clone());
    let cur = c
        .currency
        .as_deref()
        .map(|c| format!(" {c}"))
        .unwrap_or_default();
    let pct = c
        .change_percent
        .map(|p| format!("{} %", trim_number(p.abs())))
        .unwrap_or_default();
    let new = c.new_price.clone().unwrap_or_default();
    let old = c.old_price.clone().unwrap_or_default();
    match c.kind.as_str() {
        "price_down" => format!("{name} dropped {pct} to {new}{cur} (was {old})"),
        "price_up" => format!("{name} rose {pct} to {new}{cur} (was {old})"),
        "back_in_stock" => format!("{name} is back in stock"),
        "out_of_stock" => format!("{name} is out of stock"),
        "added" => format!("New: {name}"),
        "removed" => format!("Gone: {name}"),
        _ => format!("{name} changed ({})", c.fields.join(", ")),
    }
}

fn trim_number(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// "3 changes on Tents" / "1 change on Tents".
fn headline(m: &Monitor, n: usize) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{n} change{s} on {}", m.name)
}

/// A chat message for `kind` (slack, discord, teams) of the notified changes.
pub fn message(
    kind: &str,
    m: &Monitor,
    run: &MonitorRun,
    changes: &[&MonitorChange],
    runs_url: &str,
) -> Value {
    let shown: Vec<&&MonitorChange> = changes.iter().take(MAX_IN_MESSAGE).collect();
    let more = changes.len().saturating_sub(shown.len());
    let title = headline(m, changes.len());
    let more_text = if more > 0 {
        format!("and {more} more")
    } else {
        String::new()
    };
    match kind {
        "slack" => {
            // Slack mrkdwn: <url|text>; & < > escaped.
            let esc = |s: &str| {
                s.replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;")
            };
            let mut lines: Vec<String> = shown
                .iter()
                .map(|c| match &c.url {
                    Some(u) => format!("• <{}|{}>", u, esc(&line(c))),
                    None => format!("• {}", esc(&line(c))),
                })
                .collect();
            if more > 0 {
                lines.push(format!("• <{runs_url}|{more_text}>"));
            }
            json!({
                "text": title,
                "blocks": [
                    { "type": "header", "text": { "type": "plain_text", "text": truncate(&title, 150) } },
                    { "type": "section", "text": { "type": "mrkdwn", "text": truncate(&lines.join("\n"), 3000) } },
                    { "type": "context", "elements": [ { "type": "mrkdwn", "text": format!("fnhost monitor {} · run {}", m.id, run.id) } ] }
                ]
            })
        }
        "discord" => {
            let mut lines: Vec<String> = shown
                .iter()
                .map(|c| match &c.url {
                    Some(u) => format!("• [{}]({})", line(c).replace(['[', ']'], ""), u),
                    None => format!("• {}", line(c)),
                })
                .collect();
            if more > 0 {
                lines.push(format!("• [{more_text}]({runs_url})"));
            }
            json!({
                "content": truncate(&title, 2000),
                "embeds": [{
                    "title": truncate(&m.name, 256),
                    "description": truncate(&lines.join("\n"), 4096),
                    "url": runs_url,
                    "footer": { "text": format!("fnhost monitor {} · run {}", m.id, run.id) }
                }],
                "allowed_mentions": { "parse": [] }
            })
        }
        _ => {
            // Microsoft Teams: an Adaptive Card in a message attachment.
            let mut body = vec![
                json!({ "type": "TextBlock", "text": title, "weight": "Bolder", "size": "Medium", "wrap": true }),
            ];
            for c in &shown {
                let text = match &c.url {
                    Some(u) => format!("[{}]({})", line(c).replace(['[', ']'], ""), u),
                    None => line(c),
                };
                body.push(json!({ "type": "TextBlock", "text": text, "wrap": true }));
            }
            if more > 0 {
                body.push(json!({ "type": "TextBlock", "text": format!("[{more_text}]({runs_url})"), "wrap": true }));
            }
            json!({
                "type": "message",
                "attachments": [{
                    "contentType": "application/vnd.microsoft.card.adaptive",
                    "contentUrl": null,
                    "content": {
                        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                        "type": "AdaptiveCard",
                        "version": "1.4",
                        "body": body
                    }
                }]
            })
        }
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The monitor's Atom feed (RFC 4287): one entry per run that notified,
/// newest first, its changes as readable HTML.
pub fn atom(m: &Monitor, runs: &[MonitorRun], public_url: &str) -> String {
    let runs: Vec<&MonitorRun> = runs.iter().filter(|r| r.notified > 0).take(50).collect();
    let updated = runs
        .first()
        .and_then(|r| r.fired_at.clone())
        .unwrap_or_else(|| m.updated_at.clone());
    let self_url = format!("{public_url}/v1/monitors/{}/feed", m.id);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    out.push_str(&format!("  <id>urn:fnhost:monitor:{}</id>\n", m.id));
    out.push_str(&format!("  <title>{}</title>\n", xml(&m.name)));
    out.push_str(&format!("  <updated>{}</updated>\n", xml(&updated)));
    out.push_str(&format!(
        "  <link rel=\"self\" href=\"{}\"/>\n",
        xml(&self_url)
    ));
    out.push_str("  <author><name>fnhost</name></author>\n");
    out.push_str("  <generator>fnhost</generator>\n");
    for r in runs {
        let changes: Vec<&MonitorChange> = r.changes.iter().filter(|c| c.notify).collect();
        let mut html = String::from("<ul>");
        for c in &changes {
            let text = xml(&line(c));
            match &c.url {
                Some(u) => html.push_str(&format!("<li><a href=\"{}\">{text}</a></li>", xml(u))),
                None => html.push_str(&format!("<li>{text}</li>")),
            }
        }
        html.push_str("</ul>");
        let at = r.fired_at.clone().unwrap_or_else(|| r.started_at.clone());
        let changes_url = format!("{public_url}/v1/monitors/{}/runs/{}/changes", m.id, r.id);
        out.push_str("  <entry>\n");
        out.push_str(&format!("    <id>urn:fnhost:run:{}</id>\n", r.id));
        out.push_str(&format!(
            "    <title>{}</title>\n",
            xml(&headline(m, r.notified as usize))
        ));
        out.push_str(&format!("    <updated>{}</updated>\n", xml(&at)));
        out.push_str(&format!(
            "    <link rel=\"alternate\" href=\"{}\"/>\n",
            xml(&changes_url)
        ));
        out.push_str(&format!(
            "    <content type=\"html\">{}</content>\n",
            xml(&html)
        ));
        out.push_str("  </entry>\n");
    }
    out.push_str("</feed>\n");
    out
}
