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
    None
}
