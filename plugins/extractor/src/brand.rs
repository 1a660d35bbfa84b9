//! The brand the visible page labels.

use crate::dom::{Doc, CHROME, HIDDEN, OPTION, RELATED};
use crate::text::Find as _;
use crate::vocabulary::BRAND_LABELS;

/// Strip the words around a brand name in a store link or label: "Visit the
/// X Store", "Besuchen Sie den X-Store", "Brand: X", "Marque : X".
pub fn clean_brand(text: &str) -> Option<String> {
    let t = crate::text::squash(text);
    let lower = t.to_lowercase();
    for label in BRAND_LABELS {
        if lower.starts_with(label) {
            let Some(rest) = t.get(label.len()..) else {
                continue;
            };
            let rest =
                rest.trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '：');
            if rest.len() < t.len() - label.len() && !rest.is_empty() {
                return Some(rest.trim().to_string());
            }
        }
    }
    let stores: &[(&str, &str)] = &[
        ("visit the ", " store"),
        ("besuchen sie den ", "-store"),
        ("besuche den ", "-store"),
        ("visita lo store di ", ""),
        ("visiter la boutique ", ""),
        ("visita la tienda de ", ""),
        ("visite a loja ", ""),
    ];
    for (pre, suf) in stores {
        if lower.starts_with(pre) && lower.ends_with(suf) {
            let Some(inner) = t.get(pre.len()..t.len().saturating_sub(suf.len())) else {
                continue;
            };
            let inner = inner.trim();
            if !inner.is_empty() {
                return Some(inner.to_string());
            }
        }
    }
    None
}

/// The brand as the visible page states it: a brand label or a brand/byline
/// element near the title.
pub fn of_page(doc: &Doc) -> Option<String> {
    for (i, e) in doc.els.iter().enumerate() {
        if e.flags & (RELATED | CHROME | HIDDEN | OPTION) != 0 || e.text_end <= e.text_start {
            continue;
        }
        if !(e.hint.has("brand") || e.hint.has("byline")) || e.text_end - e.text_start > 4 {
            continue;
        }
        let t = doc.text_of(i, 120);
        if t.is_empty() || t.len() > 80 {
            continue;
        }
        if let Some(b) = clean_brand(&t) {
            return Some(b);
        }
    }
    labelled(doc)
}

/// A brand stated as a label and its value side by side in one row of a
/// table of details ("BRAND | John Boos", "Značka: | Swissdent"): the label
/// a text of its own, the value the next text, both within one small block.
fn labelled(doc: &Doc) -> Option<String> {
    let skip = RELATED | CHROME | HIDDEN | OPTION;
    for (k, t) in doc.texts.iter().enumerate() {
        if t.flags & skip != 0 || t.text.len() > 24 {
            continue;
        }
        let label = t.text.trim().trim_end_matches([':', '：']).trim_end();
        // Compared without a lowercase copy where the text is ASCII (most).
        let is_label = if label.is_ascii() {
            BRAND_LABELS.iter().any(|l| l.eq_ignore_ascii_case(label))
        } else {
            BRAND_LABELS.contains(&label.to_lowercase().as_str())
        };
        if !is_label {
            continue;
        }
        let Some(value) = doc.texts.get(k + 1) else {
            break;
        };
        let v = value.text.trim();
        if value.flags & skip != 0
            || v.is_empty()
            || v.chars().count() > 40
            || !v.chars().any(char::is_alphabetic)
            || v.ends_with(':')
            || !one_row(doc, t.el, value.el)
        {
            continue;
        }
        return Some(v.to_string());
    }
    None
}

/// Whether two elements lie within one small block (a table row, a list
/// item, a pair of cells): an ancestor of the first, at most two levels
/// up, holds the second and no more than eight elements in all.
fn one_row(doc: &Doc, label: usize, value: usize) -> bool {
    let mut up = doc.els[label].parent;
    for _ in 0..2 {
        let Some(a) = up else { return false };
        let holds = a < value && value < doc.els[a].el_end;
        if holds {
            return doc.els[a].el_end - a <= 8;
        }
        up = doc.els[a].parent;
    }
    false
}
