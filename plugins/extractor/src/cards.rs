//! The fields of one product card of a listing (a subtree of the page):
//! link, name, current and former price, stock, image, sku and brand.

use crate::dom::{Doc, BUTTON, HIDDEN, STRIKE};
use crate::text::Find as _;
use crate::text::{
    availability_from_short_text, has_currency_mark, is_buy_text, is_free_text,
    parse_current_price, parse_machine_price,
};
use crate::visible::has_word;
use serde_json::{Map, Value};

/// Hint words of a former price shown next to the current one.
const LIST_WORDS: &[&str] = &[
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
    "listprice",
    "list-price",
    "list_price",
    "strikethrough",
    "line-through",
    "crossout",
    "barred",
    "overridden",
];

/// Hint words of amounts that are not the product's price.
const OTHER_AMOUNT_WORDS: &[&str] = &[
    "ship",
    "shipping",
    "delivery",
    "save",
    "saving",
    "savings",
    "unit",
    "per",
    "instal",
    "installment",
    "month",
    "monthly",
    "tax",
    "points",
    "coupon",
    "percent",
];

/// Words (of a hint or a short label) of a price for members only: a
/// loyalty club or shop card ("IKEA FAMILY", "member price").
const MEMBER_WORDS: &[&str] = &[
    "member",
    "members",
    "membership",
    "loyalty",
    "club",
    "family",
    "rewards",
    "cardholder",
];

/// Hint words of a price before tax (Magento's `price-excluding-tax`).
const EXCL_TAX_WORDS: &[&str] = &["excl", "excluding", "exclusive", "exkl", "netto", "notax"];

/// Text of a price before tax ("exkl. MwSt.", "ex VAT", "HT", "+ VAT").
const EXCL_TAX_TEXT: &[&str] = &[
    "exkl",
    "excl",
    "ex vat",
    "ex. vat",
    "exc vat",
    "exc. vat",
    "ex tax",
    "ex. tax",
    "+ vat",
    "plus vat",
    "+vat",
    "zzgl",
    "hors taxe",
    " ht",
    "sin iva",
    "senza iva",
    "bez dph",
    "excl. btw",
    "ex. btw",
    "ex moms",
    "exkl. moms",
    "ohne mwst",
];

/// Text that makes an amount a former price ("Was $20", "RRP £30").
const LIST_TEXT: &[&str] = &[
    "was ",
    "was:",
    "rrp",
    "uvp",
    "msrp",
    "statt",
    "regular price",
    "list price",
    "compare at",
    "originally",
    "instead of",
    "au lieu de",
    "reg. ",
];

/// Whether a short text is the label of a product code ("Model #:", "SKU:",
/// "Item no.", "Art.-Nr.:"): a code word as a whole word, and the text ends
/// as a label does (a colon, "#" or "no.").
pub(crate) fn is_code_label(text: &str) -> bool {
    let label = text.trim().to_lowercase();
    if label.len() > 24 || !(label.ends_with(':') || label.ends_with('#') || label.ends_with("no."))
    {
        return false;
    }
    label.split(|c: char| !c.is_alphanumeric()).any(|w| {
        matches!(
            w,
            "model" | "sku" | "item" | "part" | "mpn" | "art" | "nr" | "ean" | "upc" | "isbn"
        )
    })
}

/// Text that makes an amount something else than a price (a saving, a unit
/// price, a product code such as "Model #: TL29164RE").
const OTHER_TEXT: &[&str] = &[
    "save", "% off", "saving", "/kg", "/ kg", "/100", "per ", "/month", "/mo", "shipping",
    "model #", "model:", "model no", "sku:", "sku #", "item #", "part #", "mpn:", "art.-nr",
];

/// Hint words that mark a card's name element.
fn is_name_hint(hint: &str) -> bool {
    hint.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| matches!(w, "title" | "name" | "productname" | "producttitle"))
        || hint.has("product-title")
        || hint.has("product-name")
        || hint.has("product_title")
        || hint.has("product_name")
}

/// Whether a link is a route of a single-page app ("#!/content/63207",
/// "#%21/item/5"): the fragment is the address of the page it shows.
pub fn is_app_route(href: &str) -> bool {
    let h = href.trim();
    h.starts_with("#!") || h.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("#%21"))
}

fn usable_href(h: &str) -> bool {
    let l = h.trim().to_ascii_lowercase();
    !(l.is_empty()
        || (l.starts_with('#') && !is_app_route(&l))
        || l.starts_with("javascript")
        || l.starts_with("mailto:")
        || l.starts_with("tel:")
        || l.has("add-to-cart")
        || l.has("add_to_cart")
        || l.has("wishlist")
        || l.has("/cart"))
}

/// An absolute URL without its fragment; an app route keeps its "#!"
/// fragment, the only part that tells its pages apart.
pub fn absolute(base: &Option<url::Url>, href: &str) -> Option<String> {
    let b = base.as_ref()?;
    let mut u = b.join(href.trim()).ok()?;
    if u.scheme() != "http" && u.scheme() != "https" {
        return None;
    }
    let route = u.fragment().and_then(|f| {
        let rest = f.strip_prefix('!').or_else(|| {
            f.get(..3)
                .filter(|p| p.eq_ignore_ascii_case("%21"))
                .map(|_| &f[3..])
        })?;
        Some(format!("!{rest}"))
    });
    u.set_fragment(route.as_deref());
    Some(u.to_string())
}

/// The first usable link of a card, absolute.
pub fn card_link(doc: &Doc, card: usize, base: &Option<url::Url>) -> Option<String> {
    (card..doc.els[card].el_end).find_map(|i| {
        let e = &doc.els[i];
        if e.tag != "a" {
            return None;
        }
        e.el.value()
            .attr("href")
            .filter(|h| usable_href(h))
            .and_then(|h| absolute(base, h))
    })
}

struct Amount {
    value: String,
    currency: Option<String>,
    raw: String,
    list: bool,
    sale: bool,
    /// A members' price (a loyalty club, a shop card), not everyone's.
    member: bool,
    /// A price before tax, shown beside the price the shopper pays.
    excl_tax: bool,
}

fn as_f64(v: &str) -> f64 {
    v.parse().unwrap_or(0.0)
}

/// The amounts shown in a card, in order.
fn amounts(doc: &Doc, card: usize) -> Vec<Amount> {
    let e = &doc.els[card];
    let mut out: Vec<Amount> = Vec::new();
    // Machine values (Magento `data-price-amount`, `data-price-type`).
    for i in card..e.el_end {
        let v = doc.els[i].el.value();
        if let Some(p) = v.attr("data-price-amount").and_then(parse_machine_price) {
            let ty = v.attr("data-price-type").unwrap_or("").to_ascii_lowercase();
            out.push(Amount {
                value: p,
                currency: None,
                raw: String::new(),
                list: has_word(&ty, LIST_WORDS) || doc.els[i].flags & STRIKE != 0,
                sale: false,
                member: false,
                excl_tax: false,
            });
        }
    }
    if !out.is_empty() {
        // The visible text gives the currency.
        let cur = (e.text_start..e.text_end).find_map(|k| {
            let t = &doc.texts[k].text;
            if t.len() <= 40 && has_currency_mark(t) {
                parse_current_price(t).and_then(|p| p.currency.map(|c| (c, t.clone())))
            } else {
                None
            }
        });
        if let Some((c, raw)) = cur {
            for a in &mut out {
                a.currency = Some(c.clone());
                a.raw = raw.clone();
            }
        }
        return out;
    }
    let mut done_els: Vec<usize> = Vec::new();
    // Texts already read as the cents of the amount before them.
    let mut cents_of_previous: Vec<usize> = Vec::new();
    for k in e.text_start..e.text_end {
        let t = &doc.texts[k];
        // "Free", "Free to Play": a price of nothing.
        if t.flags & (HIDDEN | STRIKE) == 0 && t.text.len() <= 24 && is_free_text(&t.text) {
            out.push(Amount {
                value: "0.00".into(),
                currency: None,
                raw: t.text.clone(),
                list: false,
                sale: false,
                member: false,
                excl_tax: false,
            });
            continue;
        }
        if t.flags & HIDDEN != 0
            || t.text.len() > 80
            || !t.text.bytes().any(|b| b.is_ascii_digit())
            || cents_of_previous.contains(&k)
        {
            continue;
        }
        // A count in parentheses ("(138)" reviews, "(3 offers)") is no price,
        // nor a code after its label ("Model #:" "TL29164RE").
        let trimmed = t.text.trim();
        if trimmed.starts_with('(') && !has_currency_mark(trimmed) {
            continue;
        }
        if k > e.text_start && is_code_label(&doc.texts[k - 1].text) {
            continue;
        }
        let el = &doc.els[t.el];
        let hints = without_typography(&doc.ancestor_hints(t.el, 2));
        let priced_el = el.hint.has("price") || el.hint.has("amount");
        // A currency in its own element right after or before the amount
        // ("11.95 <span>CHF</span>").
        let lone_mark = |j: usize| -> Option<&str> {
            let n = &doc.texts.get(j)?;
            (j >= e.text_start
                && j < e.text_end
                && n.text.len() <= 4
                && n.flags & HIDDEN == 0
                && has_currency_mark(&n.text))
            .then_some(n.text.as_str())
        };
        let bare = !t.text.chars().any(|c| c.is_alphabetic());
        let raw = if has_currency_mark(&t.text) {
            t.text.clone()
        } else if let (true, Some(m)) = (bare, lone_mark(k + 1)) {
            format!("{} {}", t.text, m)
        } else if let (true, Some(m)) = (bare, k.checked_sub(1).and_then(lone_mark)) {
            format!("{} {}", m, t.text)
        } else if priced_el && !done_els.contains(&t.el) {
            done_els.push(t.el);
            doc.text_of(t.el, 80)
        } else {
            continue;
        };
        // Cents set apart ("$<b>62</b><sup>99</sup>", "$19<span>97</span>"):
        // a whole amount followed by a text of two digits in a superscript
        // or a price-named element.
        let raw = match cents_after(doc, e, k, &raw) {
            Some((cents_at, joined)) => {
                cents_of_previous.push(cents_at);
                joined
            }
            None => raw,
        };
        let lower = raw.to_lowercase();
        if OTHER_TEXT.iter().any(|w| lower.has(w))
            || has_word(&el.hint, OTHER_AMOUNT_WORDS)
            || is_tier_price(&lower)
        {
            continue;
        }
        let Some(p) = parse_current_price(&raw) else {
            continue;
        };
        if as_f64(&p.value) < 0.0 {
            continue;
        }
        // The text before is a label of this amount only when it holds no
        // amount of its own ("Was" then "£45", not "was £45" then "£30").
        let label_before = (k > e.text_start)
            .then(|| doc.texts[k - 1].text.to_lowercase())
            .filter(|prev| prev.len() < 30 && !prev.bytes().any(|b| b.is_ascii_digit()));
        let former_in_text = LIST_TEXT.iter().any(|w| lower.has(w))
            || label_before
                .as_ref()
                .is_some_and(|prev| LIST_TEXT.iter().any(|w| prev.has(w.trim_end())));
        // "was $20 now $15" in one text: parse_current_price took the
        // current one, so the text is not a former price.
        let former_only = former_in_text && !lower.has("now") && !has_two_amounts(&raw);
        let list = t.flags & STRIKE != 0 || has_word(&hints, LIST_WORDS) || former_only;
        let sale = has_word(
            &el.hint,
            &[
                "sale", "special", "now", "final", "current", "promo", "discount",
            ],
        );
        let excl_tax = has_word(&hints, EXCL_TAX_WORDS)
            || EXCL_TAX_TEXT.iter().any(|w| lower.has(w))
            || label_before
                .as_ref()
                .is_some_and(|prev| EXCL_TAX_TEXT.iter().any(|w| prev.has(w)));
        let member = has_word(&hints, MEMBER_WORDS)
            || (lower.len() < 40 && has_word(&lower, MEMBER_WORDS))
            || label_before
                .as_ref()
                .is_some_and(|prev| has_word(prev, MEMBER_WORDS));
        out.push(Amount {
            value: p.value,
            currency: p.currency,
            raw,
            list,
            sale,
            member,
            excl_tax,
        });
    }
    out
}

/// Hint tokens of typography utilities ("edf-font-size--regular",
/// "font-weight-bold", "typo-small") left out: their words ("regular",
/// "old" in "bold") say nothing about a price.
fn without_typography(hints: &str) -> String {
    hints
        .split_ascii_whitespace()
        .filter(|t| {
            !["font", "size", "weight", "typo", "text-"]
                .iter()
                .any(|w| t.contains(w))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The cents of a whole amount `raw` (text `k`) shown apart from it: the next
/// text of the card when it is two digits (or `.99`, `,99`) in a `sup` or in
/// an element named like a price. Returns that text's index and the joined
/// amount.
fn cents_after(doc: &Doc, card: &crate::dom::El, k: usize, raw: &str) -> Option<(usize, String)> {
    let whole = raw.trim_end();
    if !whole.ends_with(|c: char| c.is_ascii_digit())
        || whole.contains(['.', ','])
        || !has_currency_mark(whole)
    {
        return None;
    }
    let next = doc.texts.get(k + 1).filter(|_| k + 1 < card.text_end)?;
    if next.flags & HIDDEN != 0 {
        return None;
    }
    let digits = next.text.trim().trim_start_matches(['.', ',']);
    if digits.len() != 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let el = &doc.els[next.el];
    let apart = el.tag == "sup"
        || el.hint.has("price")
        || has_word(
            &el.hint,
            &[
                "cents",
                "cent",
                "fraction",
                "fractional",
                "decimal",
                "decimals",
            ],
        );
    apart.then(|| (k + 1, format!("{whole}.{digits}")))
}

/// Words that open a quantity tier ("ab 3 Pack. 10.50 CHF").
const TIER_WORDS: &[&str] = &[
    "ab",
    "from",
    "vanaf",
    "vana",
    "dès",
    "à partir de",
    "a partir de",
    "desde",
    "a partire da",
    "da",
    "od",
    "från",
    "fra",
];

/// Whether a lowercased text is the price of a quantity tier: a tier word,
/// a whole number and a unit word before the amount ("from 3 pcs $5",
/// "vanaf 3 pakken € 6,99"), not the unit price of one item.
pub fn is_tier_price(lower: &str) -> bool {
    let t = lower.trim_start();
    TIER_WORDS.iter().any(|w| {
        let Some(rest) = t.strip_prefix(w) else {
            return false;
        };
        if !rest.starts_with(|c: char| c.is_whitespace()) {
            return false;
        }
        let mut words = rest.split_whitespace();
        let count = words.next().unwrap_or("");
        let unit = words.next().unwrap_or("");
        !count.is_empty()
            && count.bytes().all(|b| b.is_ascii_digit())
            && unit.starts_with(|c: char| c.is_alphabetic())
            && !has_currency_mark(unit)
    })
}

fn has_two_amounts(raw: &str) -> bool {
    let mut n = 0;
    let mut in_num = false;
    for c in raw.chars() {
        let d = c.is_ascii_digit();
        if d && !in_num {
            n += 1;
        }
        in_num = d || (in_num && matches!(c, '.' | ','));
    }
    n >= 2
}

/// The current price of a card, its former price when shown, and the raw
/// text the currency came from.
fn prices(doc: &Doc, card: usize) -> Option<(Amount, Option<String>)> {
    let mut all = amounts(doc, card);
    // A zero or "Free" stands only when the card shows no other amount.
    if all.iter().any(|a| as_f64(&a.value) > 0.0) {
        all.retain(|a| as_f64(&a.value) > 0.0);
    }
    let mut current: Vec<&Amount> = all.iter().filter(|a| !a.list).collect();
    // Everyone's price before a members' price shown beside it, and the
    // price with tax before the one without.
    if current.iter().any(|a| !a.member) {
        current.retain(|a| !a.member);
    }
    if current.iter().any(|a| !a.excl_tax) {
        current.retain(|a| !a.excl_tax);
    }
    let former: Vec<&Amount> = all.iter().filter(|a| a.list).collect();
    if current.is_empty() {
        current = former.clone();
    }
    let mut pick = *current.first()?;
    let mut list_price = None;
    // Two unmarked amounts where one is named as the sale price.
    if let Some(s) = current.iter().find(|a| a.sale) {
        if let Some(o) = current
            .iter()
            .find(|a| !a.sale && as_f64(&a.value) > as_f64(&s.value))
        {
            list_price = Some(o.value.clone());
        }
        pick = s;
    }
    if list_price.is_none() {
        list_price = former
            .iter()
            .find(|a| as_f64(&a.value) > as_f64(&pick.value))
            .map(|a| a.value.clone());
    }
    Some((
        Amount {
            value: pick.value.clone(),
            currency: pick
                .currency
                .clone()
                .or_else(|| all.iter().find_map(|a| a.currency.clone())),
            raw: pick.raw.clone(),
            list: false,
            sale: pick.sale,
            member: pick.member,
            excl_tax: pick.excl_tax,
        },
        list_price,
    ))
}

fn put(r: &mut Map<String, Value>, k: &str, v: Option<String>) {
    if let Some(v) = v {
        let v = crate::text::squash(&v);
        if !v.is_empty() && !r.contains_key(k) {
            r.insert(k.to_string(), Value::String(v));
        }
    }
}

/// Whether a text reads as a name (not a price, stock note or button).
fn name_like(t: &str) -> bool {
    let n = t.chars().count();
    (3..=300).contains(&n)
        && !(has_currency_mark(t) && t.bytes().any(|b| b.is_ascii_digit()))
        && availability_from_short_text(t).is_none()
        && !is_buy_text(t)
}

/// Read a card's fields into a record.
pub fn read_card(doc: &Doc, card: usize, base: &Option<url::Url>) -> Map<String, Value> {
    let mut r = Map::new();
    let end = doc.els[card].el_end;
    let url = card_link(doc, card, base);
    let mut heading: Option<String> = None;
    let mut named: Option<String> = None;
    let mut anchor_text: Option<String> = None;
    let mut alt: Option<String> = None;
    let mut image: Option<String> = None;
    let mut sku: Option<String> = None;
    let mut brand: Option<String> = None;
    let mut buy = false;
    for i in card..end {
        let e = &doc.els[i];
        let v = e.el.value();
        if e.flags & HIDDEN != 0 && e.tag != "img" && e.tag != "meta" {
            continue;
        }
        let has_text = e.text_end > e.text_start;
        match e.tag {
            "a" if anchor_text.is_none() => {
                let same = v.attr("href").and_then(|h| absolute(base, h)) == url;
                if same && url.is_some() {
                    anchor_text = doc.texts[e.text_start..e.text_end]
                        .iter()
                        .map(|t| t.text.as_str())
                        .find(|t| name_like(t))
                        .map(String::from)
                        .or_else(|| v.attr("title").filter(|t| name_like(t)).map(String::from));
                }
            }
            "img" if image.is_none() => {
                let src = v
                    .attr("data-src")
                    .or_else(|| v.attr("data-lazy-src"))
                    .or_else(|| v.attr("data-original"))
                    .or_else(|| v.attr("src"))
                    .or_else(|| {
                        v.attr("srcset")
                            .or_else(|| v.attr("data-srcset"))
                            .and_then(|s| s.split_whitespace().next())
                    })
                    .filter(|s| !s.trim().is_empty() && !s.trim_start().starts_with("data:"));
                image = src.and_then(|s| absolute(base, s));
                alt = v.attr("alt").filter(|a| name_like(a)).map(String::from);
            }
            _ => {}
        }
        if i != card && has_text {
            if named.is_none()
                && (v.attr("itemprop") == Some("name") || is_name_hint(&e.hint))
                && !e.hint.has("brand")
                && e.text_end - e.text_start <= 4
            {
                named = Some(doc.text_of(i, 300)).filter(|t| name_like(t));
            }
            if heading.is_none() && matches!(e.tag, "h2" | "h3" | "h4" | "h5" | "h6") {
                heading = Some(doc.text_of(i, 300)).filter(|t| name_like(t));
            }
            if brand.is_none()
                && (e.hint.has("brand") || e.hint.has("vendor") || e.hint.has("manufacturer"))
                && e.text_end - e.text_start <= 2
            {
                let t = doc.text_of(i, 100);
                brand = crate::visible::clean_brand(&t)
                    .or(Some(t))
                    .filter(|b| b.chars().count() <= 60 && !b.is_empty());
            }
        }
        if sku.is_none() {
            sku = v
                .attr("data-product_sku")
                .or_else(|| v.attr("data-product-sku"))
                .or_else(|| v.attr("data-sku"))
                .and_then(crate::text::clean_identifier);
            if sku.is_none() && v.attr("itemprop") == Some("sku") {
                sku = v
                    .attr("content")
                    .map(String::from)
                    .or_else(|| Some(doc.text_of(i, 60)))
                    .and_then(|s| crate::text::clean_identifier(&s));
            }
        }
        if (e.flags & BUTTON != 0 || e.tag == "a")
            && v.attr("disabled").is_none()
            && !v.attr("class").map(|c| c.has("disabled")).unwrap_or(false)
        {
            let label = doc.text_of(i, 80);
            let label = if label.is_empty() {
                v.attr("value")
                    .or_else(|| v.attr("aria-label"))
                    .unwrap_or("")
                    .to_string()
            } else {
                label
            };
            if is_buy_text(&label) {
                buy = true;
            }
        }
    }
    // Without a named element, the first text that reads as a name.
    let first_text = || {
        let e = &doc.els[card];
        doc.texts[e.text_start..e.text_end]
            .iter()
            .find(|t| t.flags & (HIDDEN | BUTTON) == 0 && name_like(&t.text))
            .map(|t| t.text.clone())
    };
    put(
        &mut r,
        "name",
        named
            .or(heading)
            .or(anchor_text)
            .or(alt)
            .or_else(first_text),
    );
    put(&mut r, "url", url);
    if let Some((p, list)) = prices(doc, card) {
        put(&mut r, "price", Some(p.value.clone()));
        if let Some(c) = &p.currency {
            put(&mut r, "currency", doc.locale.resolve(c, &p.raw));
        }
        put(&mut r, "list_price", list);
    }
    // Stock: a stock note in the card, the card's own state class, or a buy
    // button.
    let e = &doc.els[card];
    let stated = (e.text_start..e.text_end).find_map(|k| {
        let t = &doc.texts[k];
        if t.flags & HIDDEN != 0 || t.text.chars().count() > 60 {
            return None;
        }
        // "Author – 12,99 € – Out of stock": each part on its own.
        t.text
            .split(['–', '—', '|', '·', '•'])
            .find_map(|part| availability_from_short_text(part.trim()))
    });
    let by_class = e
        .hint
        .split(|c: char| c.is_whitespace())
        .find_map(|w| match w {
            "outofstock" | "out-of-stock" | "sold-out" | "soldout" | "is-sold-out" => {
                Some("OutOfStock")
            }
            "instock" | "in-stock" => Some("InStock"),
            _ => None,
        });
    let avail = stated
        .or(by_class)
        .or(if buy { Some("InStock") } else { None });
    put(&mut r, "availability", avail.map(String::from));
    put(&mut r, "image", image);
    put(&mut r, "sku", sku);
    put(&mut r, "brand", brand);
    r
}
