//! Whether the product can be bought, as the visible page says it: stock
//! messages, then buy buttons, then short stock phrases.

use crate::dom::AttrOf as _;
use crate::dom::{Doc, BUTTON, CART_NAMED, CHROME, HIDDEN, LINK, OPTION, RELATED, STOCK_NAMED};
use crate::text::{availability_from_short_text, availability_from_text, is_buy_text};
use foldhash::{HashMap, HashMapExt as _};

/// Availability as the visible page states it: stock messages first, then
/// buy buttons, then short stock phrases anywhere in the main content.
pub fn of_page(doc: &Doc) -> Option<(&'static str, &'static str)> {
    // Stock-named elements whose name repeats (one per seller or variant
    // row) speak of offers, not of the product.
    let stock_named = |e: &crate::dom::El| e.named & STOCK_NAMED != 0;
    let norm = |h: &str| {
        h.chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>()
    };
    let mut kinds: HashMap<String, usize> = HashMap::new();
    for e in &doc.els {
        if stock_named(e) {
            *kinds
                .entry(format!("{} {}", e.tag, norm(&e.hint)))
                .or_default() += 1;
        }
    }
    for (i, e) in doc.els.iter().enumerate() {
        if e.flags & (HIDDEN | RELATED | OPTION) != 0 || e.text_end <= e.text_start {
            continue;
        }
        if !stock_named(e) {
            continue;
        }
        if e.text_end - e.text_start > 8
            || kinds
                .get(&format!("{} {}", e.tag, norm(&e.hint)))
                .copied()
                .unwrap_or(0)
                >= 3
        {
            continue;
        }
        let text = doc.text_of(i, 200);
        if let Some((a, _)) = availability_from_text(&text) {
            return Some((a, "stock text"));
        }
    }
    for (i, e) in doc.els.iter().enumerate() {
        if e.flags & (HIDDEN | RELATED) != 0 {
            continue;
        }
        let v = e.el.value();
        let is_button = e.flags & BUTTON != 0
            || e.tag == "button"
            || (e.tag == "a" && e.named & CART_NAMED != 0);
        if !is_button || e.tag == "form" {
            continue;
        }
        if v.attr_of("disabled").is_some() {
            continue;
        }
        let mut label = doc.text_of(i, 80);
        if label.is_empty() {
            label = v
                .attr_of("value")
                .or_else(|| v.attr_of("title"))
                .or_else(|| v.attr_of("aria-label"))
                .unwrap_or("")
                .to_string();
        }
        if is_buy_text(&label) {
            return Some(("InStock", "buy button"));
        }
    }
    for t in &doc.texts {
        if t.flags & (HIDDEN | RELATED | OPTION | CHROME | LINK) != 0 || t.text.chars().count() > 60
        {
            continue;
        }
        if let Some(a) = availability_from_short_text(&t.text) {
            return Some((a, "short stock text"));
        }
    }
    None
}
