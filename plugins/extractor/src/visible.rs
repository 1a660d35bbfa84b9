//! Heuristics over the visible page, for what the markup does not say.

use crate::dom::{Doc, BUTTON, CHROME, HIDDEN, LINK, OPTION, RELATED, STRIKE};
use crate::text::Find as _;
use crate::text::{
    availability_from_short_text, availability_from_text, has_currency_mark, is_buy_text, is_gtin,
    parse_current_price, Price, Words,
};

pub(crate) const GOOD_PRICE: &[&str] = &[
    "sale", "current", "final", "our", "special", "now", "actual", "selling", "deal", "promo",
    "offer", "main", "buybox", "big", "large", "new", "active", "hero", "primary",
];
const BAD_PRICE: &[&str] = &[
    "old",
    "was",
    "strike",
    "striked",
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
    "shipping",
    "deliver",
    "delivery",
    "save",
    "saving",
    "savings",
    "discount",
    "unit",
    "per",
    "instal",
    "installment",
    "installments",
    "month",
    "monthly",
    "tax",
    "points",
    "coupon",
    "vat",
    "prev",
    "previous",
    "reduction",
    "percent",
    "basket",
    "cart",
    "minicart",
    "range",
    "filter",
    "slider",
    "full",
    "initial",
    "swatch",
    "economy",
    "economia",
    "subscription",
    "subscribe",
    "barred",
    "strikethrough",
    "line-through",
    "abo",
    "listprice",
    "list-price",
    "list_price",
    "through",
    "crossout",
    "lineprice",
    "ex",
    "excl",
    "net",
];

/// Whether a hint (class, id, ...) holds a word, as a whole part of a name or
/// joined to "price" ("oldprice", "price-old", "was-price").
pub(crate) fn has_word(hint: &str, words: &[&str]) -> bool {
    // Byte comparisons written out (`text::same` and friends): this runs for
    // every price candidate against dozens of words, and slice comparisons
    // are `memcmp` calls in WebAssembly.
    use crate::text::{ends_with, same, starts_with};
    for token in hint.split_ascii_whitespace() {
        if token.len() > 80 {
            continue;
        }
        for part in token.split(|c: char| !c.is_ascii_alphanumeric()) {
            if part.is_empty() {
                continue;
            }
            let p = part.as_bytes();
            let priced = p.len() > 5 && (ends_with(p, b"price") || starts_with(p, b"price"));
            for w in words {
                let wb = w.as_bytes();
                if same(p, wb)
                    || (wb.len() >= 6 && part.has(w))
                    || (priced && p.len() > wb.len() && (starts_with(p, wb) || ends_with(p, wb)))
                {
                    return true;
                }
            }
        }
        for w in words {
            if w.bytes().any(|b| b == b'-' || b == b'_') && token.has(w) {
                return true;
            }
        }
    }
    false
}

/// Words that say a price is the lowest of several offers or options.
const FROM_WORDS: &[&str] = &[
    "from ",
    "offers",
    "options",
    "optionen",
    "angebote",
    "von ",
    "ab ",
    "à partir",
    "a partir",
    "desde",
    "da ",
    "a partire",
    "vanaf",
    "od ",
    "starting",
    "起",
];

/// Words that say a price is a saving or a former price.
const SAVE_WORDS: &[&str] = &[
    "save",
    "you save",
    "was ",
    "statt",
    "uvp",
    "rrp",
    "instead",
    "antes",
    "prima",
    "au lieu",
    "省",
    "原價",
    "原价",
    "定價",
    "listenpreis",
    "economize",
    "economia",
    "ahorra",
    "risparmi",
    "économisez",
    "sparen",
    "spare",
];

/// Words that label a price in a text ("Price:", "Preis", "特價").
const PRICE_LABELS: &[&str] = &[
    "price",
    "preis",
    "prix",
    "prezzo",
    "precio",
    "preço",
    "preco",
    "prijs",
    "cena",
    "cijena",
    "цена",
    "ціна",
    "fiyat",
    "hinta",
    "pris",
    "kaina",
    "hind",
    "特價",
    "售價",
    "價格",
    "直購價",
    "价格",
    "售价",
    "価格",
    "가격",
    "판매가",
    "מחיר",
    "preț",
    "pret",
];

fn has_price_label(text: &str) -> bool {
    let t = text.to_lowercase();
    t.len() < 60 && PRICE_LABELS.iter().any(|l| t.has(l))
}

/// The page's main price: elements named like a price and texts with a
/// currency, scored by their names, their position relative to the main
/// heading, strike-through, repetition (cards of other products) and the
/// parts of the page that hold other products.
pub fn main_price(doc: &Doc) -> Option<PriceFound> {
    let best = price_candidates(doc).iter().cloned().fold(
        None,
        |best: Option<PriceFound>, c| match best {
            // Two equal candidates side by side: a former price and the
            // current one; the current one is the lower.
            Some(b) if b.score == c.score && c.pos.abs_diff(b.pos) <= 6 => {
                let (x, y) = (
                    c.price.value.parse::<f64>().unwrap_or(f64::MAX),
                    b.price.value.parse::<f64>().unwrap_or(0.0),
                );
                // A discount, not a different amount (points, a part).
                if x < y && x >= 0.3 * y {
                    Some(c)
                } else {
                    Some(b)
                }
            }
            Some(b) if b.score >= c.score => Some(b),
            _ => Some(c),
        },
    )?;
    if best.score < 1 {
        return None;
    }
    Some(best)
}

/// A price shown on the page, with the score that made it win.
#[derive(Debug, Clone)]
pub struct PriceFound {
    pub price: Price,
    pub raw: String,
    pub score: i32,
    pub why: String,
    /// Struck through or named like a list price.
    pub list_like: bool,
    /// The element showing the price.
    pub el: usize,
    /// Index of its first text.
    pub pos: usize,
}

struct Raw {
    el: usize,
    pos: usize,
    raw: String,
    price: Price,
    named: bool,
    label: bool,
}

/// Every price candidate of the page with its score, in document order
/// (computed once per page).
pub fn price_candidates<'d>(doc: &'d Doc) -> &'d [PriceFound] {
    doc.prices.get_or_init(|| compute_price_candidates(doc))
}

fn compute_price_candidates(doc: &Doc) -> Vec<PriceFound> {
    let h1 = doc.h1_text_index();
    let mut raws: Vec<Raw> = Vec::new();
    // Elements named like a price (split prices joined).
    for (i, e) in doc.els.iter().enumerate() {
        if !e.hint.has("price") && !e.hint.has("amount") && !e.hint.has("cost") {
            continue;
        }
        if e.text_end <= e.text_start || e.text_end - e.text_start > 12 || e.flags & OPTION != 0 {
            continue;
        }
        let raw = doc.text_of(i, 80);
        if raw.len() > 60 || raw.is_empty() {
            continue;
        }
        let Some(price) = parse_current_price(&raw) else {
            continue;
        };
        let bare = !has_currency_mark(&raw);
        if bare && raw.chars().filter(|c| c.is_ascii_digit()).count() <= 2 && raw.len() <= 3 {
            continue;
        }
        // Several bare numbers in one element named like an amount are a
        // choice of counts ("Items per page: 32 60 96"), not a price.
        if bare && raw_numbers(&raw) >= 3 {
            continue;
        }
        let label = e.text_start > 0 && has_price_label(&doc.texts[e.text_start - 1].text);
        raws.push(Raw {
            el: i,
            pos: e.text_start,
            raw,
            price,
            named: true,
            label,
        });
    }
    // Texts with a currency next to a number (the currency may be the
    // neighbouring text: "294" "元").
    let n = doc.texts.len();
    for k in 0..n {
        let t = &doc.texts[k];
        if t.text.len() > 40 || t.flags & OPTION != 0 || !t.text.chars().any(|c| c.is_ascii_digit())
        {
            continue;
        }
        if doc.els[t.el].hint.has("price") {
            continue;
        }
        let mut raw = t.text.clone();
        if !has_currency_mark(&raw) {
            let next = doc.texts.get(k + 1).map(|x| x.text.as_str()).unwrap_or("");
            let prev = if k > 0 {
                doc.texts[k - 1].text.as_str()
            } else {
                ""
            };
            let digits_only = raw
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | ' '));
            if digits_only && next.len() <= 6 && has_currency_mark(next) {
                raw = format!("{} {}", raw, next);
            } else if digits_only && prev.chars().count() <= 4 && has_currency_mark(prev) {
                raw = format!("{}{}", prev, raw);
            } else {
                continue;
            }
        }
        let Some(price) = parse_current_price(&raw) else {
            continue;
        };
        let label = has_price_label(&t.text) || (k > 0 && has_price_label(&doc.texts[k - 1].text));
        raws.push(Raw {
            el: t.el,
            pos: k,
            raw,
            price,
            named: false,
            label,
        });
    }
    // Repetition: a price element whose kind repeats with other values is
    // part of a list of products.
    let kind = |r: &Raw| -> String {
        let mut sig = String::new();
        let mut cur = Some(r.el);
        for _ in 0..3 {
            let Some(i) = cur else { break };
            let e = &doc.els[i];
            sig.push_str(e.tag);
            sig.push(' ');
            sig.extend(e.hint.chars().filter(|c| !c.is_ascii_digit()));
            sig.push('/');
            cur = e.parent;
        }
        sig
    };
    let mut counts: std::collections::HashMap<String, Vec<String>> =
        std::collections::HashMap::new();
    for r in &raws {
        let v = counts.entry(kind(r)).or_default();
        if !v.contains(&r.price.value) {
            v.push(r.price.value.clone());
        }
    }
    // Consensus: the main price is often shown in several places (buy box,
    // sticky header); count the elements that show each value.
    let mut shown: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut seen_pos: std::collections::HashSet<(String, usize)> = std::collections::HashSet::new();
    for r in &raws {
        let e = &doc.els[r.el];
        if e.flags & (STRIKE | RELATED) == 0
            && !has_word(&e.hint, BAD_PRICE)
            && seen_pos.insert((r.price.value.clone(), r.pos))
        {
            *shown.entry(r.price.value.clone()).or_default() += 1;
        }
    }
    let mut all = Vec::new();
    for r in raws {
        let times = shown.get(&r.price.value).copied().unwrap_or(0);
        let e = &doc.els[r.el];
        let repeated = counts.get(&kind(&r)).map(|v| v.len()).unwrap_or(0);
        let price = r.price;
        if price.value == "0" || price.value.starts_with("0.0") && price.value.len() <= 4 {
            continue;
        }
        let own = &e.hint;
        let near = doc.ancestor_hints(r.el, 3);
        let far = doc.ancestor_hints(r.el, 12);
        let flags = doc.texts.get(r.pos).map(|t| t.flags).unwrap_or(e.flags) | e.flags;
        let mut score = 0i32;
        let mut notes: Vec<String> = Vec::new();
        if has_currency_mark(&r.raw) {
            score += 3;
            notes.push(format!("+{}", 3));
        }
        if !r.named {
            score -= 1;
            notes.push(format!("-{}", 1));
        }
        if r.label {
            score += 1;
            notes.push(format!("+{}", 1));
        }
        if has_word(own, GOOD_PRICE) {
            score += 2;
            notes.push(format!("+{}", 2));
        }
        if has_word(own, BAD_PRICE) {
            score -= 4;
            notes.push(format!("-{}", 4));
        } else if has_word(&near, BAD_PRICE) {
            score -= 1;
            notes.push(format!("-{}", 1));
        }
        if e.el
            .value()
            .attr("id")
            .map(|i| i.to_ascii_lowercase().has("price") && !i.chars().any(|c| c.is_ascii_digit()))
            .unwrap_or(false)
        {
            score += 2;
            notes.push("+id".into());
        }
        let lower_raw = format!(" {}", r.raw.to_lowercase());
        if FROM_WORDS.iter().any(|w| {
            lower_raw.has(&format!(" {}", w)) || (w.len() > 3 && !w.is_ascii() && lower_raw.has(w))
        }) {
            score -= 2;
            notes.push("-from".into());
        }
        let raw_lower = r.raw.to_lowercase();
        if SAVE_WORDS.iter().any(|w| raw_lower.has(w)) {
            score -= 2;
            notes.push("-save".into());
        }
        if own.split_whitespace().any(|w| w == "price")
            || e.el.value().attr("itemprop") == Some("price")
        {
            score += 1;
            notes.push(format!("+{}", 1));
        }
        let style =
            e.el.value()
                .attr("style")
                .unwrap_or("")
                .to_ascii_lowercase();
        if style.has("bold") || style.has("font-size") || style.has("font:") {
            score += 1;
            notes.push(format!("+{}", 1));
        }
        if raw_numbers(&r.raw) > 2 {
            score -= 2;
        }
        if times >= 3 {
            score += 1;
            notes.push("+shown".into());
        }
        if repeated >= 2 {
            score -= if repeated >= 3 { 3 } else { 2 };
            notes.push(format!("-{}", 3));
        }
        if flags & STRIKE != 0 {
            score -= 6;
            notes.push(format!("-{}", 6));
        }
        if flags & HIDDEN != 0 {
            score -= 3;
            notes.push(format!("-{}", 3));
        }
        if flags & RELATED != 0 {
            score -= 5;
            notes.push("-related".into());
        } else if ["related", "recommend", "similar", "carousel"]
            .iter()
            .any(|w| far.has(w))
        {
            score -= 3;
            notes.push(format!("-{}", 5));
        }
        if flags & CHROME != 0 {
            score -= 4;
            notes.push(format!("-{}", 4));
        }
        if flags & LINK != 0 {
            score -= 2;
            notes.push(format!("-{}", 2));
        }
        let pos = r.pos;
        match h1 {
            Some(h) if pos >= h => {
                let d = (pos - h) as i32;
                score += 4 - (d / 25).min(6);
                notes.push(format!("+{}", 4 - (d / 25).min(6)));
            }
            Some(h) => {
                let d = (h - pos) as i32;
                score -= 1 + (d / 15).min(4);
                notes.push(format!("-{}", 1 + (d / 15).min(4)));
            }
            None => {}
        }
        let why = format!("[{}] @{} {}", own.trim(), pos, notes.join(","));
        let list_like = flags & STRIKE != 0 || has_word(own, BAD_PRICE);
        all.push(PriceFound {
            price,
            raw: r.raw,
            score,
            why,
            list_like,
            el: r.el,
            pos,
        });
    }
    all
}

/// How many separate numbers a text holds.
fn raw_numbers(s: &str) -> usize {
    let mut n = 0;
    let mut in_num = false;
    for c in s.chars() {
        let d = c.is_ascii_digit();
        if d && !in_num {
            n += 1;
        }
        in_num = d || (in_num && matches!(c, '.' | ','));
    }
    n
}

fn same_value(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => (x - y).abs() < 0.005,
        _ => false,
    }
}

/// Whether a price from the markup is, on the visible page, a list price
/// (struck through or named old/regular) while another price is the main one.
/// Returns the visible main price then.
pub fn is_list_price(doc: &Doc, value: &str) -> Option<PriceFound> {
    let cands = price_candidates(doc);
    let shown_as_list = cands
        .iter()
        .any(|c| same_value(&c.price.value, value) && c.list_like);
    let top_markup = cands
        .iter()
        .filter(|c| same_value(&c.price.value, value))
        .map(|c| c.score)
        .max()?;
    if !shown_as_list {
        return None;
    }
    let best = cands
        .iter()
        .filter(|c| !c.list_like)
        .max_by_key(|c| c.score)?
        .clone();
    let lower = best.price.value.parse::<f64>().ok()? < value.parse::<f64>().ok()?;
    if best.score >= 2 && lower && best.score > top_markup + 1 {
        Some(best)
    } else {
        None
    }
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
    ("artikel-nummer", IdKind::Sku),
    ("artikel nummer", IdKind::Sku),
    ("art.", IdKind::Sku),
    ("art.-nr.", IdKind::Sku),
    ("artnr", IdKind::Sku),
    ("sku#", IdKind::Sku),
    ("item no.", IdKind::Sku),
    ("ref.", IdKind::Sku),
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
fn split_label(text: &str) -> Option<(IdKind, String, &'static str)> {
    // Cheap test first: the text's first letter must start some label.
    static FIRST: std::sync::OnceLock<Vec<char>> = std::sync::OnceLock::new();
    let first = FIRST.get_or_init(|| {
        let mut v: Vec<char> = ID_LABELS
            .iter()
            .filter_map(|(l, _)| l.chars().next())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    });
    let lead = text
        .chars()
        .find(|c| c.is_alphanumeric() || *c == '#')?
        .to_lowercase()
        .next()?;
    if first.binary_search(&lead).is_err() {
        return None;
    }
    let t: Vec<char> = clean_marks(text).chars().collect();
    let start = t.iter().position(|c| c.is_alphanumeric() || *c == '#')?;
    let t = &t[start..];
    let low: String = t
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let mut best: Option<(usize, IdKind, &'static str)> = None;
    for (label, kind) in ID_LABELS {
        if low.starts_with(label) {
            let n = label.chars().count();
            let next = t.get(n);
            let cjk = label.chars().any(|lc| lc as u32 > 0x2e80);
            let boundary = match next {
                None => true,
                Some(c) => !c.is_alphanumeric() || cjk,
            };
            if boundary && best.map(|(l, _, _)| n > l).unwrap_or(true) {
                best = Some((n, *kind, label));
            }
        }
    }
    let (n, kind, label) = best?;
    let rest: String = t[n..].iter().collect();
    let trimmed = rest.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, ':' | '.' | '#' | '：' | '-' | '|' | '°')
    });
    // "Modell: X" or "SKU X" but not "Models available" or "references".
    if !trimmed.is_empty() && trimmed.len() == rest.len() {
        return None;
    }
    Some((kind, trimmed.trim().to_string(), label))
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
pub fn identifiers(doc: &Doc, page_url: &str, body: &str) -> Ids {
    let mut sku: Vec<String> = Vec::new();
    let mut strong: Option<String> = None;
    // Every distinct code labelled strongly: a list labels one per card.
    let mut strong_all: Vec<String> = Vec::new();
    let mut mpn: Option<String> = None;
    let mut gtin: Option<String> = None;
    let n = doc.texts.len();
    for i in 0..n {
        let t = &doc.texts[i];
        if t.flags & (RELATED | OPTION) != 0 || t.text.len() > 80 {
            continue;
        }
        let Some((kind, rest, label)) = split_label(&t.text) else {
            continue;
        };
        // Model numbers keep their spaces ("HMP 2000"); codes are one token.
        let token = |v: &str| -> Option<String> {
            if kind == IdKind::Mpn {
                let v = clean_marks(v);
                let v = v.trim().trim_end_matches(['.', ',', ';']);
                let words = v.split_whitespace().count();
                let ok = !v.is_empty()
                    && v.len() <= 40
                    && words <= 3
                    && v.chars().any(|c| c.is_ascii_digit());
                if ok {
                    return Some(v.split_whitespace().collect::<Vec<_>>().join(" "));
                }
                return None;
            }
            id_token(v)
        };
        let mut value = if rest.is_empty() { None } else { token(&rest) };
        if value.is_none() && rest.is_empty() {
            for j in i + 1..(i + 4).min(n) {
                let s = clean_marks(&doc.texts[j].text);
                let s = s
                    .trim()
                    .trim_matches(|c: char| c == ':' || c.is_whitespace());
                if s.is_empty() {
                    continue;
                }
                value = token(s);
                break;
            }
        }
        let Some(v) = value else { continue };
        match kind {
            IdKind::Sku => {
                if !WEAK_LABELS.contains(&label) && t.flags & (CHROME | HIDDEN) == 0 {
                    if strong.is_none() {
                        strong = Some(v.clone());
                    }
                    if t.flags & RELATED == 0 && !strong_all.contains(&v) {
                        strong_all.push(v.clone());
                    }
                }
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
    // Elements named like a sku ("data-testid=sku", "product-sku"): the
    // identifier in their text, after any label.
    let mut named: Vec<String> = Vec::new();
    for (i, e) in doc.els.iter().enumerate() {
        if e.flags & (RELATED | OPTION | HIDDEN) != 0
            || e.text_end <= e.text_start
            || e.text_end - e.text_start > 3
        {
            continue;
        }
        let named_sku = e.hint.split_whitespace().any(|w| {
            w == "sku"
                || w.ends_with("-sku")
                || w.ends_with("_sku")
                || w.starts_with("sku-")
                || w.starts_with("sku_")
        });
        if !named_sku {
            continue;
        }
        let text = doc.text_of(i, 80);
        if let Some(v) = text.split_whitespace().last().and_then(id_token) {
            if !named.contains(&v) {
                named.push(v);
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
    // Data layers in inline scripts ("sku":"1236291").
    let url_lower = page_url.to_ascii_lowercase();
    let in_url = |v: &String| url_lower.contains(&v.to_ascii_lowercase());
    let pick = sku
        .iter()
        .find(|v| in_url(v))
        .or_else(|| form_ids.iter().find(|v| in_url(v)))
        .or_else(|| sku.first())
        .or_else(|| named.first())
        .or_else(|| form_ids.first())
        .cloned()
        .or_else(|| script_sku(doc.scripts()))
        .or_else(|| url_identifier(page_url, body));
    // Many products each with its own labelled code are a list, not one
    // product's page (variants carry their codes in form fields instead).
    let single = (strong.is_some() && strong_all.len() < MANY_CODES) || !form_ids.is_empty();
    Ids {
        sku: pick,
        strong_sku: strong,
        mpn,
        gtin,
        single,
    }
}

/// Distinct labelled product codes from which a page is a list of products.
const MANY_CODES: usize = 3;

/// Identifiers found on the visible page.
pub struct Ids {
    pub sku: Option<String>,
    /// A code the page labels unambiguously as the product's ("SKU: ...",
    /// "Product code: ...", "Art.-Nr. ...").
    pub strong_sku: Option<String>,
    pub mpn: Option<String>,
    pub gtin: Option<String>,
    /// The page labels one product code or carries it in a form field: the
    /// page of one product.
    pub single: bool,
}

/// Labels too vague to override an identifier from the markup.
const WEAK_LABELS: &[&str] = &[
    "ref",
    "réf",
    "cod",
    "cód",
    "kód",
    "reference",
    "código",
    "codice",
    "product id",
    "item code",
];

static STOCK_HINTS: Words = Words::new(&[
    "avail",
    "stock",
    "inventory",
    "lager",
    "dispon",
    "nalich",
    "zalog",
    "sklad",
]);

/// Hints of a link that works as a buy button.
static CART_HINTS: Words = Words::new(&["cart", "basket", "buy", "bag"]);

/// Availability as the visible page states it: stock messages first, then
/// buy buttons, then short stock phrases anywhere in the main content.
pub fn availability(doc: &Doc) -> Option<(&'static str, &'static str)> {
    // Stock-named elements whose name repeats (one per seller or variant
    // row) speak of offers, not of the product.
    let stock_named = |e: &crate::dom::El| STOCK_HINTS.any_in(&e.hint);
    let norm = |h: &str| {
        h.chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>()
    };
    let mut kinds: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
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
            || (e.tag == "a" && CART_HINTS.any_in(&e.hint));
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

fn script_sku(scripts: &str) -> Option<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r#"["'](?:sku|SKU|productSku|product_sku|skuId)["']\s*:\s*["']([A-Za-z0-9][A-Za-z0-9._/-]{1,39})["']"#)
            .expect("sku pattern")
    });
    re.captures(scripts)
        .and_then(|c| c.get(1))
        .and_then(|m| id_token(m.as_str()))
}

/// The product's identifier as written in its URL: the last path token with
/// at least four digits ("...-112949990", "/Prod/144432/", "M67296549.htm")
/// or an id-like query value (pid=262388), when the page repeats it (more
/// than in its own canonical links).
pub fn url_identifier(page_url: &str, body: &str) -> Option<String> {
    let u = url::Url::parse(page_url).ok()?;
    let mut cands: Vec<String> = Vec::new();
    for (k, v) in u.query_pairs() {
        let k = k.to_ascii_lowercase();
        if matches!(
            k.as_str(),
            "pid"
                | "id"
                | "sku"
                | "productid"
                | "product_id"
                | "itemid"
                | "item_id"
                | "item"
                | "product"
        ) {
            cands.push(v.to_string());
        }
    }
    if let Some(segs) = u.path_segments() {
        let segs: Vec<&str> = segs.filter(|s| !s.is_empty()).collect();
        for seg in segs.iter().rev().take(2) {
            let stem = seg
                .rsplit_once('.')
                .map(|(a, b)| if b.len() <= 5 { a } else { seg })
                .unwrap_or(seg);
            if let Some(tok) = stem.rsplit(['-', '_', ',']).next() {
                cands.push(tok.to_string());
            }
        }
    }
    for c in cands {
        let digits = c.chars().filter(|ch| ch.is_ascii_digit()).count();
        if digits < 5 || c.len() > 30 || !c.chars().all(|ch| ch.is_ascii_alphanumeric()) {
            continue;
        }
        // The page must repeat it (outside its own URL).
        if body.matches(c.as_str()).count() >= 3 {
            return Some(c);
        }
    }
    None
}

const BRAND_LABELS: &[&str] = &[
    "brand",
    "marke",
    "marca",
    "marque",
    "merk",
    "značka",
    "znamka",
    "бренд",
    "品牌",
    "브랜드",
    "manufacturer",
    "hersteller",
    "fabricant",
    "produttore",
    "fabricante",
    "proizvajalec",
    "výrobca",
    "výrobce",
    "producent",
];

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
pub fn brand(doc: &Doc) -> Option<String> {
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
