//! What people read: a monitor run's notified changes as a Slack, Discord
//! or Microsoft Teams message (each in that service's incoming-webhook
//! format), and the monitor's Atom feed of the runs that notified.

use serde::Serialize;
use serde_json::Value;

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
    let footer = format!("fnhost monitor {} · run {}", m.id, run.id);
    let message = match kind {
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
            let text = |kind, text| SlackText { kind, text };
            serde_json::to_value(SlackMessage {
                blocks: [
                    SlackBlock::Header {
                        text: text("plain_text", truncate(&title, 150)),
                    },
                    SlackBlock::Section {
                        text: text("mrkdwn", truncate(&lines.join("\n"), 3000)),
                    },
                    SlackBlock::Context {
                        elements: [text("mrkdwn", footer)],
                    },
                ],
                text: title,
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
            serde_json::to_value(DiscordMessage {
                content: truncate(&title, 2000),
                embeds: [DiscordEmbed {
                    title: truncate(&m.name, 256),
                    description: truncate(&lines.join("\n"), 4096),
                    url: runs_url.to_string(),
                    footer: DiscordFooter { text: footer },
                }],
                // Nobody is pinged by a change's name.
                allowed_mentions: DiscordMentions { parse: [] },
            })
        }
        _ => {
            // Microsoft Teams: an Adaptive Card in a message attachment.
            let mut body = vec![TeamsTextBlock {
                weight: Some("Bolder"),
                size: Some("Medium"),
                ..TeamsTextBlock::new(title)
            }];
            for c in &shown {
                let text = match &c.url {
                    Some(u) => format!("[{}]({})", line(c).replace(['[', ']'], ""), u),
                    None => line(c),
                };
                body.push(TeamsTextBlock::new(text));
            }
            if more > 0 {
                body.push(TeamsTextBlock::new(format!("[{more_text}]({runs_url})")));
            }
            serde_json::to_value(TeamsMessage {
                kind: "message",
                attachments: [TeamsAttachment {
                    content_type: "application/vnd.microsoft.card.adaptive",
                    content_url: None,
                    content: AdaptiveCard {
                        schema: "http://adaptivecards.io/schemas/adaptive-card.json",
                        kind: "AdaptiveCard",
                        version: "1.4",
                        body,
                    },
                }],
            })
        }
    };
    message.expect("a chat message is plain JSON")
}

// ---- the services' incoming-webhook formats, as far as they are used ----

/// Slack: a fallback `text` and Block Kit blocks.
#[derive(Serialize)]
struct SlackMessage {
    text: String,
    blocks: [SlackBlock; 3],
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum SlackBlock {
    Header { text: SlackText },
    Section { text: SlackText },
    Context { elements: [SlackText; 1] },
}

#[derive(Serialize)]
struct SlackText {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

/// Discord: the content line and one embed.
#[derive(Serialize)]
struct DiscordMessage {
    content: String,
    embeds: [DiscordEmbed; 1],
    allowed_mentions: DiscordMentions,
}

#[derive(Serialize)]
struct DiscordEmbed {
    title: String,
    description: String,
    url: String,
    footer: DiscordFooter,
}

#[derive(Serialize)]
struct DiscordFooter {
    text: String,
}

#[derive(Serialize)]
struct DiscordMentions {
    parse: [&'static str; 0],
}

/// Microsoft Teams: an Adaptive Card in a message attachment.
#[derive(Serialize)]
struct TeamsMessage {
    #[serde(rename = "type")]
    kind: &'static str,
    attachments: [TeamsAttachment; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TeamsAttachment {
    content_type: &'static str,
    content_url: Option<String>,
    content: AdaptiveCard,
}

#[derive(Serialize)]
struct AdaptiveCard {
    #[serde(rename = "$schema")]
    schema: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    version: &'static str,
    body: Vec<TeamsTextBlock>,
}

#[derive(Serialize)]
struct TeamsTextBlock {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<&'static str>,
    wrap: bool,
}

impl TeamsTextBlock {
    fn new(text: String) -> TeamsTextBlock {
        TeamsTextBlock {
            kind: "TextBlock",
            text,
            weight: None,
            size: None,
            wrap: true,
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
