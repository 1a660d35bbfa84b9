//! The price of a product page: every price the visible page shows, scored
//! by where it stands and how it is named.

use crate::dom::AttrOf as _;
use crate::dom::{Doc, CHROME, HIDDEN, LINK, OPTION, PRICE_NAMED, RELATED, STRIKE};
use crate::money::{
    amounts_with_currency, has_currency_mark, parse_current_price, states_former_then_current,
    Price,
};
use crate::price::PriceFound;
use crate::text::has_word;
use crate::text::Find as _;
use crate::vocabulary::{
    FROM_WORDS, GOOD_PRICE, LIST_TEXT, LIST_WORDS, NOT_THE_PRICE, OTHER_AMOUNT_WORDS, PRICE_LABELS,
    SAVING_TEXT,
};
use foldhash::{HashMap, HashMapExt as _, HashSet, HashSetExt as _};

/// Whether an element's hint names something else than the current price:
/// a former price, another amount (shipping, a saving, a unit price), a
/// filter or a cart.
fn not_the_price(hint: &str) -> bool {
    has_word(hint, &LIST_WORDS)
        || has_word(hint, &OTHER_AMOUNT_WORDS)
        || has_word(hint, &NOT_THE_PRICE)
}

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

/// The text of the page's main heading: the h1's, else a heading that
/// begins with the page's title (a title with more after it).
fn titled_heading(doc: &Doc, h1: Option<usize>) -> Option<usize> {
    let k = h1.or_else(|| {
        let title = crate::text::squash(&doc.title).to_lowercase();
        if title.chars().count() < 8 {
            return None;
        }
        doc.texts.iter().position(|t| {
            t.flags & (HIDDEN | CHROME | LINK | OPTION) == 0
                && t.text.len() <= 200
                && matches!(doc.els[t.el].tag, "h1" | "h2")
                && t.text.to_lowercase().starts_with(&title)
        })
    })?;
    (doc.texts[k].text.len() <= 200).then_some(k)
}

/// Whether `word` occurs in `hay` right after a space (`hay` holds
/// " " + word), without building that needle.
fn has_after_space(hay: &str, word: &str) -> bool {
    let mut from = 0;
    while let Some(at) = hay[from..].find_str(word).map(|p| from + p) {
        if at > 0 && hay.as_bytes()[at - 1] == b' ' {
            return true;
        }
        from = at + 1;
        while !hay.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

fn compute_price_candidates(doc: &Doc) -> Vec<PriceFound> {
    let h1 = doc.h1_text_index();
    let mut raws: Vec<Raw> = Vec::new();
    // Elements named like a price (split prices joined).
    for (i, e) in doc.els.iter().enumerate() {
        if e.named == 0 {
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
        if in_price_filter_link(doc, i) || is_bound(&raw) {
            continue;
        }
        let bare = !has_currency_mark(&raw);
        if bare && raw.chars().filter(|c| c.is_ascii_digit()).count() <= 2 && raw.len() <= 3 {
            continue;
        }
        // Several bare numbers in one element named like an amount are a
        // choice of counts ("Items per page: 32 60 96"), not a price; four
        // amounts or more with their currency a choice of sums (a
        // donation's, a gift card's).
        if (bare && raw_numbers(&raw) >= 3) || amounts_with_currency(&raw) >= 4 {
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
        if doc.els[t.el].named & PRICE_NAMED != 0 {
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
        // The text's currency stands apart from its number ("$ cbmctrl dir
        // 8", a shell prompt): no amount; nor is a choice of sums, nor the
        // amount of a sentence about delivery (a banner's "Free Shipping on
        // all orders over 85€").
        if price.currency.is_none()
            || amounts_with_currency(&raw) >= 4
            || super::about_delivery(&raw)
            || is_bound(&raw)
        {
            continue;
        }
        if in_price_filter_link(doc, t.el) {
            continue;
        }
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
    // A title that states its price ("1999 Mustang GT - $8500 (Homestead)",
    // as classifieds write them): the amount after its last dash.
    if let Some(k) = titled_heading(doc, h1) {
        let t = &doc.texts[k];
        let tail = t
            .text
            .rsplit_once(" - ")
            .or_else(|| t.text.rsplit_once(" – "));
        if let Some((_, tail)) =
            tail.filter(|(_, tail)| tail.len() <= 40 && has_currency_mark(tail))
        {
            if let Some(price) = parse_current_price(tail) {
                raws.push(Raw {
                    el: t.el,
                    pos: k,
                    raw: tail.to_string(),
                    price,
                    named: false,
                    label: false,
                });
            }
        }
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
    // Each candidate's kind, computed once (it is looked up again below).
    let kinds: Vec<String> = raws.iter().map(kind).collect();
    // The distinct values of each kind (a set: a long list of cards has
    // thousands of them).
    let mut counts: HashMap<&str, HashSet<String>> = HashMap::new();
    for (r, k) in raws.iter().zip(&kinds) {
        let v = counts.entry(k.as_str()).or_default();
        if !v.contains(&r.price.value) {
            v.insert(r.price.value.clone());
        }
    }
    // Consensus: the main price is often shown in several places (buy box,
    // sticky header); count the elements that show each value.
    let mut shown: HashMap<String, usize> = HashMap::new();
    let mut seen_pos: HashSet<(String, usize)> = HashSet::new();
    // What each element's own hint says, asked once per element: the
    // candidates inside one block ask about the same ancestors again.
    let mut cache = vec![0u8; doc.els.len()];
    for r in &raws {
        let e = &doc.els[r.el];
        if e.flags & (STRIKE | RELATED) == 0
            && hint_bits(doc, &mut cache, r.el) & NOT_PRICE == 0
            && seen_pos.insert((r.price.value.clone(), r.pos))
        {
            *shown.entry(r.price.value.clone()).or_default() += 1;
        }
    }
    let mut all = Vec::new();
    for (r, k) in raws.into_iter().zip(&kinds) {
        let times = shown.get(&r.price.value).copied().unwrap_or(0);
        let e = &doc.els[r.el];
        let repeated = counts.get(k.as_str()).map(|v| v.len()).unwrap_or(0);
        let price = r.price;
        // Nothing is no page's price (an empty cart's total, "0,000 DT").
        if price.value.parse::<f64>().is_ok_and(|v| v == 0.0) {
            continue;
        }
        let own = &e.hint;
        let own_not_price = hint_bits(doc, &mut cache, r.el) & NOT_PRICE != 0;
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
        if has_word(own, &GOOD_PRICE) {
            score += 2;
            notes.push(format!("+{}", 2));
        }
        if own_not_price {
            score -= 4;
            notes.push(format!("-{}", 4));
        } else if up_any(doc, &mut cache, r.el, 3, NOT_PRICE) {
            score -= 1;
            notes.push(format!("-{}", 1));
        }
        if e.el
            .value()
            .attr_of("id")
            .map(|i| i.to_ascii_lowercase().has("price") && !i.chars().any(|c| c.is_ascii_digit()))
            .unwrap_or(false)
        {
            score += 2;
            notes.push("+id".into());
        }
        let lower_raw = format!(" {}", r.raw.to_lowercase());
        if FROM_WORDS.iter().any(|w| {
            has_after_space(&lower_raw, w) || (w.len() > 3 && !w.is_ascii() && lower_raw.has(w))
        }) {
            score -= 2;
            notes.push("-from".into());
        }
        let raw_lower = r.raw.to_lowercase();
        // "statt 4.50 CHF 2.25": the text's amount is the current price
        // after the former one, not a former price itself.
        if LIST_TEXT
            .iter()
            .chain(SAVING_TEXT)
            .any(|w| raw_lower.has(w))
            && !states_former_then_current(&r.raw)
        {
            score -= 2;
            notes.push("-save".into());
        }
        if own.split_whitespace().any(|w| w == "price")
            || e.el.value().attr_of("itemprop") == Some("price")
        {
            score += 1;
            notes.push(format!("+{}", 1));
        }
        let style =
            e.el.value()
                .attr_of("style")
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
        } else if up_any(doc, &mut cache, r.el, 12, FAR_RELATED) {
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
        let list_like = flags & STRIKE != 0 || own_not_price;
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

/// [`hint_bits`]: the element's hint was read.
const KNOWN: u8 = 1;
/// [`hint_bits`]: the hint names something else than the current price.
const NOT_PRICE: u8 = 2;
/// [`hint_bits`]: the hint names a block of other products.
const FAR_RELATED: u8 = 4;

/// What an element's own hint says (`KNOWN | NOT_PRICE | FAR_RELATED`),
/// read on first use and kept in `cache` (one byte per element).
fn hint_bits(doc: &Doc, cache: &mut [u8], i: usize) -> u8 {
    if cache[i] == 0 {
        let hint = &doc.els[i].hint;
        let mut bits = KNOWN;
        if not_the_price(hint) {
            bits |= NOT_PRICE;
        }
        if ["related", "recommend", "similar", "carousel"]
            .iter()
            .any(|w| hint.has(w))
        {
            bits |= FAR_RELATED;
        }
        cache[i] = bits;
    }
    cache[i]
}

/// Whether the element or one of its ancestors up to `levels` up has `bit`:
/// the same as asking the joined [`Doc::ancestor_hints`], whose words never
/// span two hints (the hints are joined with spaces; `has_word` reads one
/// space-separated token at a time and the words hold no space).
fn up_any(doc: &Doc, cache: &mut [u8], idx: usize, levels: usize, bit: u8) -> bool {
    let mut cur = Some(idx);
    let mut n = 0;
    while let Some(i) = cur {
        if n > levels {
            break;
        }
        if hint_bits(doc, cache, i) & bit != 0 {
            return true;
        }
        cur = doc.els[i].parent;
        n += 1;
    }
    false
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

/// Whether a text is a bound, not a price: an amount after a comparison
/// sign ("≥ € 100", "< 50 €"), as the labels of a price filter's slider
/// write them.
fn is_bound(text: &str) -> bool {
    text.trim_start()
        .starts_with(['≥', '≤', '>', '<', '⩾', '⩽'])
}

/// Whether an element lies in a link that filters the list by price (`<a
/// href="?price=*,500">до 500 руб.</a>`): a bound of a facet, no product's
/// price.
fn in_price_filter_link(doc: &Doc, el: usize) -> bool {
    let mut at = Some(el);
    for _ in 0..3 {
        let Some(i) = at else { break };
        let e = &doc.els[i];
        if e.tag == "a" {
            return e
                .el
                .value()
                .attr_of("href")
                .and_then(|h| h.split_once('?'))
                .is_some_and(|(_, query)| query.to_ascii_lowercase().has("price"));
        }
        at = e.parent;
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::dom::Doc;
    use crate::tree::Html;

    /// The labels of a price filter's slider ("≥ € 100") are bounds, not a
    /// price of the page.
    #[test]
    fn an_amount_after_a_comparison_sign_is_a_bound() {
        let html = Html::parse_document(
            r#"<html><body><h1>Games</h1><div id="priceFilter"><div class="sliderSecondLabel">&#8805; € 100</div></div></body></html>"#,
        );
        let doc = Doc::build(&html);
        let found = super::main_price(&doc);
        assert!(
            found.is_none(),
            "{:?}",
            found.map(|f| (f.price.value, f.el))
        );
        assert!(super::is_bound("≥ € 100") && super::is_bound(" < 50 €"));
        assert!(!super::is_bound("€ 100") && !super::is_bound("ab € 100"));
    }
}
