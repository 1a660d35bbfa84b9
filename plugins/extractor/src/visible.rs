//! Heuristics over the visible page, for what the markup does not say.

use crate::dom::{Doc, BUTTON, CHROME, HIDDEN, LINK, OPTION, RELATED, STRIKE};
use crate::text::{
    availability_from_text, has_currency_mark, is_buy_text, is_gtin, parse_price, Price,
};

const GOOD_PRICE: &[&str] = &[
    "sale",
    "current",
    "final",
    "our",
    "special",
    "now",
    "actual",
    "selling",
    "deal",
    "promo",
    "offer",
    "main",
    "buybox",
    "product-price",
    "productprice",
    "price--big",
    "big",
    "large",
];
const BAD_PRICE: &[&str] = &[
    "old",
    "was",
    "list",
    "strike",
    "regular",
    "before",
    "original",
    "compare",
    "crossed",
    "rrp",
    "msrp",
    "uvp",
    "reference",
    "retail",
    "ship",
    "deliver",
    "save",
    "saving",
    "discount",
    "unit",
    "per-",
    "instal",
    "month",
    "tax",
    "points",
    "coupon",
    "vat",
    "prev",
    "reduction",
    "percent",
    "basket",
    "cart",
    "mini",
    "range",
    "filter",
    "slider",
];

/// A price shown on the page, with the score that made it win.
#[derive(Debug, Clone)]
pub struct PriceFound {
    pub price: Price,
    pub raw: String,
    pub score: i32,
}

/// The page's main price: elements named like a price, scored by their
/// names, their position relative to the main heading, strike-through and
/// the parts of the page that hold other products.
pub fn main_price(doc: &Doc) -> Option<PriceFound> {
    let h1 = doc.h1_text_index();
    let mut best: Option<PriceFound> = None;
    for (i, e) in doc.els.iter().enumerate() {
        if !e.hint.contains("price") && !e.hint.contains("amount") {
            continue;
        }
        if e.text_end <= e.text_start || e.text_end - e.text_start > 12 {
            continue;
        }
        if e.flags & OPTION != 0 {
            continue;
        }
        let raw = doc.text_of(i, 80);
        if raw.len() > 60 || raw.is_empty() {
            continue;
        }
        let Some(price) = parse_price(&raw) else {
            continue;
        };
        if price.value == "0" || price.value.starts_with("0.0") && price.value.len() <= 4 {
            continue;
        }
        // Bare digit fragments ("99" of a split price) are parts, not prices.
        let bare = !has_currency_mark(&raw);
        if bare && raw.chars().filter(|c| c.is_ascii_digit()).count() <= 2 && raw.len() <= 3 {
            continue;
        }
        let own = &e.hint;
        let near = doc.ancestor_hints(i, 3);
        let far = doc.ancestor_hints(i, 10);
        let mut score = 0i32;
        if !bare {
            score += 3;
        }
        if GOOD_PRICE.iter().any(|w| own.contains(w)) {
            score += 2;
        }
        if BAD_PRICE.iter().any(|w| own.contains(w)) {
            score -= 4;
        } else if BAD_PRICE.iter().any(|w| near.contains(w)) {
            score -= 2;
        }
        if own.contains("itemprop") || e.hint.split_whitespace().any(|w| w == "price") {
            score += 1;
        }
        if e.flags & STRIKE != 0 {
            score -= 6;
        }
        if e.flags & HIDDEN != 0 {
            score -= 3;
        }
        if e.flags & RELATED != 0
            || ["related", "recommend", "similar", "carousel"]
                .iter()
                .any(|w| far.contains(w))
        {
            score -= 5;
        }
        if e.flags & CHROME != 0 {
            score -= 4;
        }
        if e.flags & LINK != 0 {
            score -= 2;
        }
        let pos = e.text_start;
        match h1 {
            Some(h) if pos >= h => {
                let d = (pos - h) as i32;
                score += 4 - (d / 40).min(6);
            }
            Some(h) => {
                let d = (h - pos) as i32;
                score -= 1 + (d / 40).min(4);
            }
            None => {}
        }
        let found = PriceFound { price, raw, score };
        let better = match &best {
            None => true,
            Some(b) => found.score > b.score,
        };
        if better {
            best = Some(found);
        }
    }
    best
}

/// A text with a currency next to a number, right after the main heading:
/// the fallback for pages whose price element has no telling name.
pub fn price_near_heading(doc: &Doc) -> Option<PriceFound> {
    let h = doc.h1_text_index()?;
    for t in doc.texts.iter().skip(h).take(150) {
        if t.flags & (HIDDEN | STRIKE | RELATED | OPTION | CHROME) != 0 || t.text.len() > 40 {
            continue;
        }
        if !has_currency_mark(&t.text) {
            continue;
        }
        if let Some(p) = parse_price(&t.text) {
            if p.value != "0" {
                return Some(PriceFound {
                    price: p,
                    raw: t.text.clone(),
                    score: 0,
                });
            }
        }
    }
    None
}

#[derive(Clone, Copy, PartialEq)]
enum IdKind {
    Sku,
    Mpn,
    Gtin,
}

const ID_LABELS: &[(&str, IdKind)] = &[
    ("sku", IdKind::Sku),
    ("sku number", IdKind::Sku),
    ("sku no", IdKind::Sku),
    ("asin", IdKind::Sku),
    ("item #", IdKind::Sku),
    ("item no", IdKind::Sku),
    ("item number", IdKind::Sku),
    ("item code", IdKind::Sku),
    ("product code", IdKind::Sku),
    ("product no", IdKind::Sku),
    ("product number", IdKind::Sku),
    ("product id", IdKind::Sku),
    ("product #", IdKind::Sku),
    ("art.-nr", IdKind::Sku),
    ("art.nr", IdKind::Sku),
    ("art-nr", IdKind::Sku),
    ("art. nr", IdKind::Sku),
    ("artikelnummer", IdKind::Sku),
    ("artikel-nr", IdKind::Sku),
    ("artikel nr", IdKind::Sku),
    ("artikelnr", IdKind::Sku),
    ("bestellnummer", IdKind::Sku),
    ("best.-nr", IdKind::Sku),
    ("référence", IdKind::Sku),
    ("reference", IdKind::Sku),
    ("réf", IdKind::Sku),
    ("ref", IdKind::Sku),
    ("referencia", IdKind::Sku),
    ("referência", IdKind::Sku),
    ("código", IdKind::Sku),
    ("código do produto", IdKind::Sku),
    ("cód", IdKind::Sku),
    ("codice", IdKind::Sku),
    ("codice articolo", IdKind::Sku),
    ("cod. articolo", IdKind::Sku),
    ("cod", IdKind::Sku),
    ("kod produktu", IdKind::Sku),
    ("kód", IdKind::Sku),
    ("kód produktu", IdKind::Sku),
    ("katalógové číslo", IdKind::Sku),
    ("cod produs", IdKind::Sku),
    ("tootekood", IdKind::Sku),
    ("šifra", IdKind::Sku),
    ("šifra izdelka", IdKind::Sku),
    ("артикул", IdKind::Sku),
    ("код товара", IdKind::Sku),
    ("商品編號", IdKind::Sku),
    ("商品编号", IdKind::Sku),
    ("商品番号", IdKind::Sku),
    ("品番", IdKind::Sku),
    ("상품번호", IdKind::Sku),
    ("מק\"ט", IdKind::Sku),
    ("מק״ט", IdKind::Sku),
    ("מקט", IdKind::Sku),
    ("model", IdKind::Mpn),
    ("model number", IdKind::Mpn),
    ("model no", IdKind::Mpn),
    ("item model number", IdKind::Mpn),
    ("modell", IdKind::Mpn),
    ("modellnummer", IdKind::Mpn),
    ("modèle", IdKind::Mpn),
    ("modello", IdKind::Mpn),
    ("numero modello", IdKind::Mpn),
    ("modelo", IdKind::Mpn),
    ("mpn", IdKind::Mpn),
    ("manufacturer part number", IdKind::Mpn),
    ("part number", IdKind::Mpn),
    ("herstellernummer", IdKind::Mpn),
    ("hersteller-nr", IdKind::Mpn),
    ("herstellerreferenz", IdKind::Mpn),
    ("ean", IdKind::Gtin),
    ("ean13", IdKind::Gtin),
    ("ean-13", IdKind::Gtin),
    ("ean code", IdKind::Gtin),
    ("gtin", IdKind::Gtin),
    ("upc", IdKind::Gtin),
    ("isbn", IdKind::Gtin),
    ("isbn-13", IdKind::Gtin),
    ("isbn13", IdKind::Gtin),
    ("barcode", IdKind::Gtin),
];

fn clean_marks(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '\u{200e}' | '\u{200f}' | '\u{200b}' | '\u{feff}'))
        .collect::<String>()
}

/// Split a text into a known identifier label and the rest.
fn split_label(text: &str) -> Option<(IdKind, String)> {
    let t: Vec<char> = clean_marks(text).chars().collect();
    let start = t.iter().position(|c| c.is_alphanumeric() || *c == '#')?;
    let t = &t[start..];
    let low: String = t
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let mut best: Option<(usize, IdKind)> = None;
    for (label, kind) in ID_LABELS {
        if low.starts_with(label) {
            let n = label.chars().count();
            let next = t.get(n);
            let cjk = label.chars().any(|lc| lc as u32 > 0x2e80);
            let boundary = match next {
                None => true,
                Some(c) => !c.is_alphanumeric() || cjk,
            };
            if boundary && best.map(|(l, _)| n > l).unwrap_or(true) {
                best = Some((n, *kind));
            }
        }
    }
    let (n, kind) = best?;
    let rest: String = t[n..].iter().collect();
    let trimmed = rest.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, ':' | '.' | '#' | '：' | '-' | '|' | '°')
    });
    // "Modell: X" or "SKU X" but not "Models available" or "references".
    if !trimmed.is_empty() && trimmed.len() == rest.len() {
        return None;
    }
    Some((kind, trimmed.trim().to_string()))
}

fn id_token(v: &str) -> Option<String> {
    let v = clean_marks(v);
    let v = v.trim().trim_end_matches(['.', ',', ';', ')']);
    if v.is_empty() || v.len() > 40 || v.split_whitespace().count() > 2 {
        return None;
    }
    let token: String = v.split_whitespace().collect::<Vec<_>>().join("");
    if token.len() < 3 || token.len() > 40 {
        return None;
    }
    if !token.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    if !token
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
    {
        return None;
    }
    Some(token)
}

/// Identifiers found on the visible page: (sku, mpn, gtin).
pub fn identifiers(doc: &Doc, page_url: &str) -> (Option<String>, Option<String>, Option<String>) {
    let mut sku: Vec<String> = Vec::new();
    let mut mpn: Option<String> = None;
    let mut gtin: Option<String> = None;
    let n = doc.texts.len();
    for i in 0..n {
        let t = &doc.texts[i];
        if t.flags & (RELATED | OPTION) != 0 || t.text.len() > 80 {
            continue;
        }
        let Some((kind, rest)) = split_label(&t.text) else {
            continue;
        };
        let mut value = if rest.is_empty() {
            None
        } else {
            id_token(&rest)
        };
        if value.is_none() && rest.is_empty() {
            for j in i + 1..(i + 4).min(n) {
                let s = clean_marks(&doc.texts[j].text);
                let s = s
                    .trim()
                    .trim_matches(|c: char| c == ':' || c.is_whitespace());
                if s.is_empty() {
                    continue;
                }
                value = id_token(s);
                break;
            }
        }
        let Some(v) = value else { continue };
        match kind {
            IdKind::Sku => {
                if !sku.contains(&v) {
                    sku.push(v)
                }
            }
            IdKind::Mpn => {
                if mpn.is_none() {
                    mpn = Some(v)
                }
            }
            IdKind::Gtin => {
                if gtin.is_none() && is_gtin(&v) {
                    gtin = Some(v)
                }
            }
        }
    }
    // Form fields that carry the product's identifier.
    let mut form_ids: Vec<String> = Vec::new();
    for e in &doc.els {
        if e.tag != "input" {
            continue;
        }
        let name =
            e.el.value()
                .attr("name")
                .or_else(|| e.el.value().attr("id"))
                .unwrap_or("")
                .to_ascii_lowercase();
        let strong = matches!(
            name.as_str(),
            "sku" | "asin" | "product_sku" | "productsku" | "item_sku"
        );
        if !strong {
            continue;
        }
        if let Some(v) = e.el.value().attr("value").and_then(id_token) {
            if !form_ids.contains(&v) {
                form_ids.push(v);
            }
        }
    }
    let url_lower = page_url.to_ascii_lowercase();
    let in_url = |v: &String| url_lower.contains(&v.to_ascii_lowercase());
    let pick = sku
        .iter()
        .find(|v| in_url(v))
        .or_else(|| form_ids.iter().find(|v| in_url(v)))
        .or_else(|| sku.first())
        .or_else(|| form_ids.first())
        .cloned();
    (pick, mpn, gtin)
}

const STOCK_HINTS: &[&str] = &[
    "avail",
    "stock",
    "inventory",
    "lager",
    "dispon",
    "delivery",
    "status",
];

/// Availability as the visible page states it: stock messages first, then
/// buy buttons, then short stock phrases anywhere in the main content.
pub fn availability(doc: &Doc) -> Option<(&'static str, &'static str)> {
    for (i, e) in doc.els.iter().enumerate() {
        if e.flags & (HIDDEN | RELATED | OPTION) != 0 || e.text_end <= e.text_start {
            continue;
        }
        if !STOCK_HINTS.iter().any(|w| e.hint.contains(w)) {
            continue;
        }
        if e.text_end - e.text_start > 8 {
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
            || (e.tag == "a"
                && ["cart", "basket", "buy", "bag"]
                    .iter()
                    .any(|w| e.hint.contains(w)));
        if !is_button || e.tag == "form" {
            continue;
        }
        if v.attr("disabled").is_some() {
            continue;
        }
        let mut label = doc.text_of(i, 80);
        if label.is_empty() {
            label = v
                .attr("value")
                .or_else(|| v.attr("title"))
                .or_else(|| v.attr("aria-label"))
                .unwrap_or("")
                .to_string();
        }
        if is_buy_text(&label) {
            return Some(("InStock", "buy button"));
        }
    }
    for t in &doc.texts {
        if t.flags & (HIDDEN | RELATED | OPTION | CHROME | LINK) != 0 || t.text.len() > 40 {
            continue;
        }
        if let Some((a, _)) = availability_from_text(&t.text) {
            return Some((a, "stock text"));
        }
    }
    None
}
