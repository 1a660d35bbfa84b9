//! The price of a product card: every amount the card shows, sorted into
//! the current price, a former price, and amounts that are no price (a
//! saving, a unit price, a product code, a members' or pre-tax price).

use crate::dom::AttrOf as _;
use crate::dom::{Doc, AMOUNT_NAMED, BASKET, HIDDEN, PRICE_NAMED, STRIKE};
use crate::money::{has_currency_mark, is_free_text, parse_current_price, parse_machine_price};
use crate::text::Find as _;
use crate::text::{has_word, WordList};
use crate::vocabulary::{
    EXCL_TAX_TEXT, EXCL_TAX_WORDS, INCL_TAX_TEXT, LIST_TEXT, LIST_WORDS, MEMBER_TEXT, MEMBER_WORDS,
    OTHER_AMOUNT_WORDS, OTHER_TEXT, TIER_WORDS,
};

/// Whether a short text is the label of a product code ("Model #:", "SKU:",
/// "Item no.", "Art.-Nr.:"): a code word as a whole word, and the text ends
/// as a label does (a colon, "#" or "no.").
pub fn is_code_label(text: &str) -> bool {
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

/// An amount a card shows.
pub struct Amount {
    pub value: String,
    pub currency: Option<String>,
    pub raw: String,
    pub list: bool,
    pub sale: bool,
    /// A members' price (a loyalty club, a shop card), not everyone's.
    pub member: bool,
    /// Struck through as the page draws it (a tag or a style), not only
    /// named as a former price.
    pub struck: bool,
    /// The text (its own or a label beside it) calls it a members' price,
    /// not only the names of its elements.
    pub member_text: bool,
    /// A price before tax, shown beside the price the shopper pays.
    pub excl_tax: bool,
    /// The text (its own or a label before it) says the tax is included.
    pub incl_tax: bool,
    /// Part of the card's name ("Turbo E-Bike ($900 OFF)"), not a price
    /// of its own.
    pub in_name: bool,
    /// Within a sentence of the card's name or heading: a headline's sum
    /// ("Dad scoops £54,000 on £1 bet"), no price even alone.
    pub in_headline: bool,
}

fn as_f64(v: &str) -> f64 {
    v.parse().unwrap_or(0.0)
}

/// The amounts shown in a card, in order. Prices per measure ("£4.38/kg")
/// are left out unless `measures`.
fn amounts(doc: &Doc, card: usize, names: &[String], measures: bool) -> Vec<Amount> {
    let e = &doc.els[card];
    let mut out: Vec<Amount> = Vec::new();
    // Machine values (Magento `data-price-amount`, `data-price-type`).
    for i in card..e.el_end {
        let v = doc.els[i].el.value();
        if let Some(p) = v.attr_of("data-price-amount").and_then(parse_machine_price) {
            let ty = v
                .attr_of("data-price-type")
                .unwrap_or("")
                .to_ascii_lowercase();
            out.push(Amount {
                value: p,
                currency: None,
                raw: String::new(),
                list: has_word(&ty, &LIST_WORDS) || doc.els[i].flags & STRIKE != 0,
                sale: false,
                member: false,
                struck: doc.els[i].flags & STRIKE != 0,
                member_text: false,
                excl_tax: false,
                incl_tax: false,
                in_name: false,
                in_headline: false,
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
                struck: false,
                member_text: false,
                excl_tax: false,
                incl_tax: false,
                in_name: false,
                in_headline: false,
            });
            continue;
        }
        if t.flags & (HIDDEN | BASKET) != 0
            || t.text.len() > 80
            || !t.text.bytes().any(|b| b.is_ascii_digit())
            || cents_of_previous.contains(&k)
        {
            continue;
        }
        // The amount of a text about delivery ("999円以上は送料無料") is a
        // threshold or a fee.
        if super::about_delivery(&t.text) {
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
        let priced_el = el.named & (PRICE_NAMED | AMOUNT_NAMED) != 0;
        // An amount on a badge ("-5 %", "Server assembly: 1₴"), its element
        // or its parent named so and neither named for a price, is a
        // promotion's, not the card's price.
        let on_badge = std::iter::successors(Some(t.el), |&i| doc.els[i].parent)
            .take(2)
            .all(|i| doc.els[i].named & PRICE_NAMED == 0)
            && std::iter::successors(Some(t.el), |&i| doc.els[i].parent)
                .take(2)
                .any(|i| has_word(&doc.els[i].hint, &BADGE_WORDS));
        if on_badge {
            continue;
        }
        // An amount inside a block named for a saving ("badge-savings" around
        // "разлика" "58.67лв."), the block not a price's: what is saved.
        let in_saving = std::iter::successors(doc.els[t.el].parent, |&i| doc.els[i].parent)
            .take(3)
            .take_while(|&i| i > card)
            .any(|i| {
                doc.els[i].named & PRICE_NAMED == 0 && has_word(&doc.els[i].hint, &SAVING_WORDS)
            });
        if in_saving {
            continue;
        }
        // A currency in its own element right after or before the amount
        // ("11.95 <span>CHF</span>").
        // (Beside the amount: under the amount's element's parent, not in
        // the next block of the card, as a rating's "4.9" is not in the
        // price block whose "R$" follows it.)
        let near = el.parent.unwrap_or(t.el);
        let lone_mark = |j: usize| -> Option<&str> {
            let n = &doc.texts.get(j)?;
            (j >= e.text_start
                && j < e.text_end
                && near <= n.el
                && n.el < doc.els[near].el_end
                && n.text.trim().chars().count() <= 4
                && n.flags & HIDDEN == 0
                && has_currency_mark(&n.text))
            .then_some(n.text.as_str())
        };
        // A sentence that opens with the currency of the amount before it
        // ("<b>1.594,52</b> € | Am Falkenberg 11M, ..."): the sign is the
        // amount's, and the rest of the sentence no amount.
        let leading_mark = |j: usize| -> Option<&str> {
            let n = &doc.texts.get(j)?;
            let mut words = n.text.split_whitespace();
            let first = words.next()?;
            // "€ 633,75" is an amount of its own.
            let amount_follows = words
                .next()
                .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()));
            (j < e.text_end
                && near <= n.el
                && n.el < doc.els[near].el_end
                && !amount_follows
                && n.flags & HIDDEN == 0
                && first.chars().count() <= 4
                && !first.bytes().any(|b| b.is_ascii_digit())
                && has_currency_mark(first))
            .then_some(first)
        };
        let bare = !t.text.chars().any(|c| c.is_alphabetic());
        // Cents written after the figure in an element of their own ("69"
        // "c", as prices below one dollar are shown): hundredths of the
        // page's currency.
        let cents_sign = |j: usize| {
            doc.texts.get(j).is_some_and(|n| {
                j < e.text_end
                    && near <= n.el
                    && n.el < doc.els[near].el_end
                    && n.flags & HIDDEN == 0
                    && matches!(n.text.trim(), "c" | "¢")
            })
        };
        let raw = if has_currency_mark(&t.text) {
            t.text.clone()
        } else if bare && t.text.trim().len() <= 2 && cents_sign(k + 1) {
            format!("{}¢", t.text.trim())
        } else if let (true, Some(m)) = (bare, lone_mark(k + 1)) {
            format!("{} {}", t.text, m)
        } else if let (true, Some(m)) = (bare, leading_mark(k + 1)) {
            cents_of_previous.push(k + 1);
            format!("{} {}", t.text, m)
        } else if let (true, Some(m)) = (bare, k.checked_sub(1).and_then(lone_mark)) {
            format!("{} {}", m, t.text)
        } else if let (true, Some(m)) = (bare, lone_mark(k + 2)) {
            // The cents apart, then the currency ("224<sup>99</sup> Lei").
            match cents_after(doc, e, k, &format!("{m} {}", t.text.trim())) {
                Some((cents_at, joined)) => {
                    cents_of_previous.push(cents_at);
                    joined
                }
                None => continue,
            }
        } else if priced_el && !done_els.contains(&t.el) {
            done_els.push(t.el);
            // A bare figure whose element also holds a labelled amount of
            // another offer in an element of its own ("699" then
            // "Outletista alkaen 604€"): the figure alone.
            let labelled_inside = (k + 1..el.text_end.min(e.text_end)).any(|j| {
                let n = &doc.texts[j].text;
                n.bytes().any(|b| b.is_ascii_digit())
                    && n.split_whitespace()
                        .any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 3)
            });
            if bare && labelled_inside {
                t.text.clone()
            } else {
                doc.text_of(t.el, 80)
            }
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
        // A size without a currency ("250g", "1,5 l") is a quantity.
        if is_quantity(&lower) {
            continue;
        }
        // An amount written with a minus ("-50,000 TND", "− 20 €") is a
        // saving, whatever its element is named.
        if is_minus_amount(&raw) {
            continue;
        }
        // What follows the amount in its own elements ("£4.38" "/" "kg").
        let after = following_text(doc, e, k, 24, "");
        let after = past_currency_mark(after.trim_start());
        let per_after = ["/", "per ", "pro ", "je ", "le ", "la "]
            .iter()
            .any(|p| after.starts_with(p));
        if !measures && (per_measure(&lower) || (per_after && per_measure(after))) {
            continue;
        }
        // A least quantity after the amount, in texts of their own.
        if is_tier_after(past_currency_mark(
            following_text(doc, e, k, 24, " ").trim_start(),
        )) {
            continue;
        }
        // An instalment's amount: a month after it or in its text.
        let after_lower = after.to_lowercase();
        if crate::vocabulary::MONTHLY_TEXT
            .iter()
            .any(|w| lower.has(w) || after_lower.starts_with(w))
        {
            continue;
        }
        // An instalment: a count and a times sign before the amount ("3 x"
        // "363 TL", "12x R$ 10,00").
        if is_instalment(&raw) || (k > e.text_start && ends_with_times(&doc.texts[k - 1].text)) {
            continue;
        }
        // The cents of the amount before, set apart (",28 TL" after
        // "1.091"), are no amount of their own.
        if t.text.trim_start().starts_with([',', '.'])
            && t.text.trim_start()[1..].starts_with(|c: char| c.is_ascii_digit())
        {
            continue;
        }
        if OTHER_TEXT.iter().any(|w| lower.has(w))
            || is_amount_off(&lower)
            || (has_word(
                &without_tax_included(&own_role(&el.hint)),
                &OTHER_AMOUNT_WORDS,
            ) && !(per_after && per_one(after)))
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
        // (Past the amount's currency mark in an element of its own: "Was"
        // "£" "45".)
        let mut before = k;
        if before > e.text_start + 1 && raw.starts_with(doc.texts[k - 1].text.trim()) {
            let mark = doc.texts[k - 1].text.trim();
            if !mark.is_empty() && mark.chars().count() <= 4 && has_currency_mark(mark) {
                before -= 1;
            }
        }
        let label_before = (before > e.text_start)
            .then(|| doc.texts[before - 1].text.to_lowercase())
            .filter(|prev| prev.len() < 30 && !prev.bytes().any(|b| b.is_ascii_digit()));
        let former_in_text = LIST_TEXT.iter().any(|w| lower.has(w))
            || label_before
                .as_ref()
                .is_some_and(|prev| LIST_TEXT.iter().any(|w| prev.has(w.trim_end())));
        // "was $20 now $15" in one text: parse_current_price took the
        // current one, so the text is not a former price.
        let former_only = former_in_text && !lower.has("now") && !has_two_amounts(&raw);
        // The names of the amount's element and its two ancestors, read
        // only for an amount.
        let hints = without_typography(&doc.ancestor_hints(t.el, 2));
        // (A former price's block is told by its name past unnamed
        // wrappers: "old-price" > "tm-tooltip" > "tm-price" > "euro_price".)
        let named_hints = without_typography(&doc.named_ancestor_hints(t.el, 2));
        let list = t.flags & STRIKE != 0
            || has_word(&without_card_blocks(&named_hints), &LIST_WORDS)
            || former_only;
        static SALE_WORDS: WordList = WordList::new(&[
            "sale", "special", "now", "final", "current", "promo", "discount",
        ]);
        let sale = has_word(&el.hint, &SALE_WORDS);
        let incl_tax = INCL_TAX_TEXT.iter().any(|w| lower.has(w))
            || label_before
                .as_ref()
                .is_some_and(|prev| INCL_TAX_TEXT.iter().any(|w| prev.has(w)));
        let excl_tax = has_word(&hints, &EXCL_TAX_WORDS)
            || EXCL_TAX_TEXT.iter().any(|w| lower.has(w))
            || label_before
                .as_ref()
                .is_some_and(|prev| EXCL_TAX_TEXT.iter().any(|w| prev.has(w)));
        // The text calls it a members' price: the amount's own text, or a
        // short label before or after it ("with Nectar") that hangs from
        // the amount's element or one of its two ancestors (the label
        // beside one amount is not the next amount's block's).
        let ups: Vec<usize> = std::iter::successors(Some(t.el), |&i| doc.els[i].parent)
            .take(3)
            .collect();
        let member_label = |j: usize| {
            let label = &doc.texts[j];
            label.text.len() < 30
                && !label.text.bytes().any(|b| b.is_ascii_digit())
                && doc.els[label.el].parent.is_some_and(|p| ups.contains(&p))
                && is_member_text(&label.text.to_lowercase())
        };
        let member_text = (lower.len() < 40 && is_member_text(&lower))
            || (k > e.text_start && member_label(k - 1))
            || (k + 1 < e.text_end && member_label(k + 1));
        // The nearest data attribute that names a price says whose it is
        // (`data-cmr-price` beside `data-internet-price`, where every
        // price's container is named for the store card).
        let priced_attr = std::iter::successors(Some(t.el), |&i| doc.els[i].parent)
            .take(4)
            .find_map(|i| {
                doc.els[i]
                    .el
                    .value()
                    .attrs()
                    .find(|(k, _)| k.starts_with("data-") && k.contains("price"))
                    .map(|(k, _)| k)
            });
        let member = member_text
            || match priced_attr {
                Some(k) => has_word(k, &MEMBER_WORDS),
                None => has_word(&hints, &MEMBER_WORDS),
            };
        out.push(Amount {
            value: p.value,
            currency: p.currency,
            raw,
            list,
            sale,
            member,
            struck: t.flags & STRIKE != 0,
            member_text,
            excl_tax,
            incl_tax,
            // An amount in the card's name, or in a sentence of its
            // description ("the #1 gaming PC under $600 in 2018 by ..."),
            // stands only when the card shows no other. (A heading named
            // for the price, or inside a block so named, that holds only a
            // short amount, "<h3 class=adcard__price>R$ 600", is the price
            // set large.)
            in_name: names.contains(&crate::text::squash(&t.text))
                || (matches!(el.tag, "h2" | "h3" | "h4" | "h5" | "h6")
                    && !(t.text.len() <= 24
                        && std::iter::successors(Some(t.el), |&i| doc.els[i].parent)
                            .take(3)
                            .any(|i| doc.els[i].named & PRICE_NAMED != 0)))
                || prose(&t.text),
            in_headline: prose(&t.text)
                && (names.contains(&crate::text::squash(&t.text))
                    || matches!(el.tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")),
        });
    }
    out
}

/// A role's words without those of a price that includes its tax
/// ("price--withTax", `data-product-price-with-tax`): such a price is the
/// one paid, not a tax's amount.
fn without_tax_included(role: &str) -> String {
    let mut out = role.to_string();
    for named in [
        "with-tax", "with_tax", "withtax", "incl-tax", "incl_tax", "incltax",
    ] {
        if out.has(named) {
            out = out.replace(named, " ");
        }
    }
    out
}

/// The words that name what an element itself is: of a class written as
/// block, element and modifier ("aditem-main--price-shipping--price",
/// "card__price"), the part after the last `--` or `__`; the block's words
/// ("price-shipping") name its container.
fn own_role(hint: &str) -> String {
    hint.split_ascii_whitespace()
        .map(|class| {
            let from = [class.rfind("--"), class.rfind("__")]
                .into_iter()
                .flatten()
                .max()
                .map_or(0, |at| at + 2);
            if from < class.len() {
                &class[from..]
            } else {
                class
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a text is an amount written with a minus sign ("-50,000 TND",
/// "− $20"): the sign right before the figure or the currency sign, not a
/// dash that separates words ("– Mara Lindqvist – 12,99 €").
fn is_minus_amount(raw: &str) -> bool {
    // Also in parentheses ("(-15 Lei)").
    let raw = raw.trim_start();
    let raw = raw.strip_prefix('(').unwrap_or(raw);
    let Some(rest) = raw.trim_start().strip_prefix(['-', '\u{2212}']) else {
        return false;
    };
    let rest = rest.trim_start();
    // A currency code first ("-  TND 3"): two or three capitals, then the
    // figure.
    let code = rest
        .find(|c: char| !c.is_ascii_uppercase())
        .is_some_and(|n| {
            (2..=3).contains(&n)
                && rest[n..]
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit())
        });
    code || rest
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || (!c.is_alphanumeric() && !c.is_whitespace()))
}

/// Hints without the block of a class written as block and element
/// ("catalog-item-regular-desktop__price") when the block is not a price's:
/// the block names the card ("regular" as opposed to a promoted card), the
/// element the amount. A price's block stays ("old-price__value").
fn without_card_blocks(hints: &str) -> String {
    hints
        .split_ascii_whitespace()
        .map(|t| match t.split_once("__") {
            Some((block, element))
                if !block
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| matches!(w, "price" | "prices" | "amount" | "cost")) =>
            {
                element
            }
            _ => t,
        })
        .collect::<Vec<_>>()
        .join(" ")
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
    // The sign may stand where the decimal point would ("79€" then "95",
    // as French shops write it): it goes after the cents.
    let (whole, sign) = match crate::money::sign_after_figure(raw.trim_end()) {
        Some((figure, sign)) => (figure, Some(sign)),
        None => (raw.trim_end(), None),
    };
    // The decimal mark may end the whole part's element ("$4." then "69").
    let whole = match whole.strip_suffix(['.', ',']) {
        Some(w) if w.ends_with(|c: char| c.is_ascii_digit()) => w,
        _ => whole,
    };
    if !whole.ends_with(|c: char| c.is_ascii_digit())
        || (sign.is_none() && !has_currency_mark(whole))
    {
        return None;
    }
    // The whole amount's figure, with thousands grouped ("1.049", "1,049")
    // but no decimals of its own ("19.99" then "97" is no amount).
    let figure_at = whole
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',')
        .len();
    let figure = &whole[figure_at..];
    let mut groups = figure.split(['.', ',']);
    let lead = groups.next().unwrap_or("");
    if lead.is_empty()
        || lead.len() > 3 && figure.contains(['.', ','])
        || groups.any(|g| g.len() != 3)
    {
        return None;
    }
    let whole = format!("{}{}", &whole[..figure_at], figure.replace(['.', ','], ""));
    let mut at = k + 1;
    let mut next = doc.texts.get(at).filter(|_| at < card.text_end)?;
    // The decimal mark in an element of its own ("87" "," "29").
    if matches!(next.text.trim(), "," | ".") {
        at += 1;
        next = doc.texts.get(at).filter(|_| at < card.text_end)?;
    }
    if next.flags & HIDDEN != 0 {
        return None;
    }
    let digits = next.text.trim().trim_start_matches(['.', ',']);
    if digits.len() != 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let el = &doc.els[next.el];
    static FRACTION_WORDS: WordList = WordList::new(&[
        "cents",
        "cent",
        "fraction",
        "fractional",
        "decimal",
        "decimals",
    ]);
    // (Or cents that begin with their decimal mark, ".49" after "8": no
    // other figure is written so.)
    let apart = el.tag == "sup"
        || el.named & PRICE_NAMED != 0
        || has_word(&el.hint, &FRACTION_WORDS)
        || next.text.trim().starts_with(['.', ',']);
    let sign = sign.map(String::from).unwrap_or_default();
    apart.then(|| (at, format!("{whole}.{digits}{sign}")))
}

/// Whether a text ends with a count and a times sign ("3 x", "12x"), the
/// start of an instalment written apart from its amount.
fn ends_with_times(text: &str) -> bool {
    let Some(rest) = text.trim_end().strip_suffix(['x', '×']) else {
        return false;
    };
    let rest = rest.trim_end();
    let digits = rest.len() - rest.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let before = rest[..rest.len() - digits].chars().next_back();
    (1..=2).contains(&digits) && before.is_none_or(|c| !c.is_alphanumeric())
}

/// Whether an amount's text states an instalment: a count, a
/// times sign, then an amount with its currency ("3 x 363 TL", "Peşin
/// fiyatına 3 x 363 TL", "12x R$ 10,00", "10x de R$ 5,90"); not a pack
/// ("2 x 250 g 4,99 €").
fn is_instalment(text: &str) -> bool {
    text.match_indices(['x', 'X', '×']).any(|(at, sign)| {
        let before = text[..at].trim_end();
        let digits = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let ahead = before[..before.len() - digits].chars().next_back();
        if !(1..=2).contains(&digits) || ahead.is_some_and(char::is_alphanumeric) {
            return false;
        }
        if !text[at + sign.len()..].starts_with(char::is_whitespace) {
            return false;
        }
        let rest = text[at + sign.len()..].trim_start();
        let rest = rest
            .strip_prefix("de ")
            .or_else(|| rest.strip_prefix("De "))
            .unwrap_or(rest);
        let first = rest.split_whitespace().next().unwrap_or("");
        if !first.starts_with(|c: char| c.is_ascii_digit()) {
            return has_currency_mark(first);
        }
        // The amount, then its currency right after it.
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '\'')))
            .unwrap_or(rest.len());
        let unit = rest[number_end..].split_whitespace().next().unwrap_or("");
        has_currency_mark(first) || (unit.chars().count() <= 4 && has_currency_mark(unit))
    })
}

/// Whether a lowercased text is the price of a quantity tier: a tier word,
/// a whole number and a unit word before the amount ("from 3 pcs $5",
/// "vanaf 3 pakken € 6,99"), not the unit price of one item.
pub fn is_tier_price(lower: &str) -> bool {
    tier_unit(lower).is_some_and(|unit| !has_currency_mark(unit))
}

/// Whether the texts after an amount name the least quantity it is sold at
/// ("659 ₽" "от" "1 кг", "5 € ab 3 Stück"): a tier's price. Only a unit of
/// measure or of items counts ("$299 from 12 stores" is no tier).
fn is_tier_after(lower: &str) -> bool {
    tier_unit(lower).is_some_and(|unit| {
        let unit = unit.trim_end_matches(|c: char| !c.is_alphanumeric());
        MEASURE_UNITS.contains(&unit) || ONE_UNIT.contains(&unit) || PACK_UNITS.contains(&unit)
    })
}

/// The unit word of a tier ("from 3 pcs ..." is "pcs").
fn tier_unit(lower: &str) -> Option<&str> {
    let t = lower.trim_start();
    TIER_WORDS.iter().find_map(|w| {
        let rest = t.strip_prefix(w)?;
        if !rest.starts_with(|c: char| c.is_whitespace()) {
            return None;
        }
        let mut words = rest.split_whitespace();
        let count = words.next().unwrap_or("");
        let unit = words.next().unwrap_or("");
        (!count.is_empty()
            && count.bytes().all(|b| b.is_ascii_digit())
            && unit.starts_with(|c: char| c.is_alphabetic()))
        .then_some(unit)
    })
}

/// Whether a lowercased text takes an amount off ("After $6 OFF", "$10 off
/// today"): a saving, not a price.
fn is_amount_off(lower: &str) -> bool {
    let mut previous: Option<&str> = None;
    lower.split_whitespace().any(|w| {
        let off = w.trim_end_matches(['!', '.', ',', '*']) == "off"
            && previous.is_some_and(|p| p.bytes().any(|b| b.is_ascii_digit()));
        previous = Some(w);
        off
    })
}

/// Whether a text is a sentence: six words of letters or more.
fn prose(text: &str) -> bool {
    text.split_whitespace()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count()
        >= 6
}

/// A lowercased text past the currency mark it begins with, the amount's
/// own in an element of its own ("₽/кг" or "rub/кг" after "659" is "/кг").
fn past_currency_mark(text: &str) -> &str {
    let end = text
        .find(|c: char| c == '/' || c.is_whitespace() || c.is_ascii_digit())
        .unwrap_or(text.len());
    let mark = &text[..end];
    if !mark.is_empty()
        && mark.chars().count() <= 4
        && (has_currency_mark(mark) || has_currency_mark(&mark.to_ascii_uppercase()))
    {
        text[end..].trim_start()
    } else {
        text
    }
}

/// Whether a short text calls a price the members' ("with Nectar", "c
/// Shop Счётом").
fn is_member_text(lower: &str) -> bool {
    has_word(lower, &MEMBER_WORDS) || MEMBER_TEXT.iter().any(|w| lower.has(w))
}

/// The card's texts right after text `k`, lowercased, joined by `sep`, up
/// to `max` bytes.
fn following_text(doc: &Doc, card: &crate::dom::El, k: usize, max: usize, sep: &str) -> String {
    let mut out = String::new();
    for t in &doc.texts[(k + 1).min(card.text_end)..card.text_end] {
        if out.len() + t.text.len() + sep.len() > max {
            break;
        }
        out.push_str(&t.text.to_lowercase());
        out.push_str(sep);
    }
    out
}

/// Units a comparison price is counted in ("£4.38/kg", "€ 1,20 / 100 g",
/// "$0.25 per oz").
const MEASURE_UNITS: &[&str] = &[
    "kg",
    "g",
    "gr",
    "mg",
    "l",
    "ltr",
    "litre",
    "liter",
    "ml",
    "cl",
    "dl",
    "m",
    "m2",
    "m²",
    "m3",
    "m³",
    "cm",
    "lb",
    "lbs",
    "oz",
    "floz",
    "sqft",
    "kilo",
    "kilogram",
    "gram",
    "metre",
    "meter",
    "kilogramme",
    "gramm",
    // Cyrillic ("659 ₽/кг", "89 ₽ / 100 г").
    "кг",
    "г",
    "гр",
    "л",
    "мл",
    "м",
    "см",
    "м2",
    "м²",
];

static BADGE_WORDS: WordList = WordList::new(&["badge", "badges"]);

static SAVING_WORDS: WordList = WordList::new(&["saving", "savings", "save", "saved"]);

/// Whether a text is only a package's size, figures and units of measure
/// or packs ("250g", "1,5 l", "12pk", "8pk/168g", "2 x 62g"), with no
/// currency mark to make it a price.
fn is_quantity(lower: &str) -> bool {
    let text = lower.trim();
    if !text.starts_with(|c: char| c.is_ascii_digit()) || has_currency_mark(text) {
        return false;
    }
    let mut measured = false;
    for word in text.split(|c: char| !c.is_alphabetic() && c != '²' && c != '³') {
        if word.is_empty() || matches!(word, "x" | "×") {
            continue;
        }
        if !MEASURE_UNITS.contains(&word) && !PACK_UNITS.contains(&word) {
            return false;
        }
        measured = true;
    }
    measured
}

/// Words of a pack's count ("12pk", "6 pack").
const PACK_UNITS: &[&str] = &["pk", "pack", "ct", "count"];

/// Units of one item ("£1.75/unit", "$3 each").
const ONE_UNIT: &[&str] = &[
    "unit", "each", "ea", "item", "piece", "pc", "pcs", "st", "stk", "stück", "pièce", "pieza",
    "pezzo", "stuk", "szt", "шт",
];

/// The unit a "per" text names: the word after "/", "per", "pro", "je",
/// "le" or "la", a round count before it dropped ("/100 g" is "g"; "pro
/// 0,75 l" names a package, not a unit).
fn per_unit(lower: &str) -> Option<String> {
    let squashed: String = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    for sep in ["/", "per ", "pro ", "je ", "le ", "la "] {
        let Some(at) = squashed.find(sep) else {
            continue;
        };
        let rest = squashed[at + sep.len()..].trim_start();
        let count: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            .collect();
        // A package's size ("pro 0,75 l", "per 400 g") makes the amount the
        // package's price; a comparison counts per 1, 10, 100 or 1000 units.
        if !count.is_empty() && !matches!(count.as_str(), "1" | "10" | "100" | "1000" | "1.000") {
            return None;
        }
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',');
        // The unit's letters, and a power after them ("m2"): texts run
        // together, so figures after a unit are the next text's ("/кг"
        // "593.10").
        let rest = rest.trim_start();
        let mut unit: String = rest
            .chars()
            .take_while(|c| c.is_alphabetic() || *c == '²' || *c == '³')
            .collect();
        let mut next = rest[unit.len()..].chars();
        if let (Some(power @ ('2' | '3')), false) =
            (next.next(), next.next().is_some_and(|c| c.is_ascii_digit()))
        {
            unit.push(power);
        }
        if !unit.is_empty() {
            return Some(unit.replace(' ', ""));
        }
    }
    None
}

/// Whether a text makes the amount before it a price per measure (a
/// comparison price, never what one item costs): "£4.38/kg", "12,41 € / 1 kg".
/// A comparison set apart after the price in the same text ("8,25 €
/// (11,00 € / l)", "8,25 € | 11,00 €/l") leaves the price its own.
pub fn per_measure(lower: &str) -> bool {
    let cut = lower.find(['(', '|', '[']).unwrap_or(lower.len());
    per_unit(&lower[..cut]).is_some_and(|u| MEASURE_UNITS.contains(&u.as_str()))
}

/// Whether a text makes the amount before it the price of one item.
fn per_one(lower: &str) -> bool {
    per_unit(lower).is_some_and(|u| ONE_UNIT.contains(&u.as_str()))
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

/// Whether the card shows a discount badge (a text of its own, "19%",
/// "-19 %", 70 % at most) that takes `high` to `low`, give or take the
/// badge's rounding.
fn discount_leads_to(doc: &Doc, card: usize, high: f64, low: f64) -> bool {
    if !(high > low && low > 0.0) {
        return false;
    }
    let off = 100.0 * (1.0 - low / high);
    let e = &doc.els[card];
    doc.texts[e.text_start..e.text_end].iter().any(|t| {
        let badge = t
            .text
            .trim()
            .trim_start_matches(['-', '−', '–'])
            .trim_end_matches('%');
        t.text.trim().ends_with('%')
            && t.text.len() <= 8
            && badge
                .trim()
                .parse::<f64>()
                .is_ok_and(|p| p > 0.0 && p <= 70.0 && (p - off).abs() <= 1.5)
    })
}

/// The current price of a card, its former price when shown, and the raw
/// text the currency came from.
///
/// `names` are the texts the card gives as its name (its link's label, its
/// image's alt): an amount inside one is no price when the card shows
/// another amount.
pub fn of_card(doc: &Doc, card: usize, names: &[String]) -> Option<(Amount, Option<String>)> {
    let mut all = amounts(doc, card, names, false);
    // Only prices per measure: goods sold by weight or length ("289 ₽/кг"
    // beside "289 ₽ / 1 кг"), whose price is the measure's.
    if all.is_empty() {
        all = amounts(doc, card, names, true);
    }
    if all.iter().any(|a| !a.in_name) {
        all.retain(|a| !a.in_name);
    }
    // Alone, a number of the name stands only with a currency beside it:
    // "Monitor AOC 24V2Q" names a model, not 24 of anything.
    all.retain(|a| !a.in_name || has_currency_mark(&a.raw));
    all.retain(|a| !a.in_headline);
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
    // Every amount named for members by its classes (a modifier that every
    // price of the card carries): the ones the text does not call a
    // members' price are everyone's.
    if current.iter().any(|a| a.member_text) && current.iter().any(|a| !a.member_text) {
        current.retain(|a| !a.member_text);
    }
    if current.iter().any(|a| !a.excl_tax) {
        current.retain(|a| !a.excl_tax);
    }
    // A price the text says includes the tax, beside a lower one it says
    // nothing of ("イケベ特価 ¥4,800" then "消費税込 ¥5,280"): the lower is
    // the price before tax.
    if let Some(with_tax) = current
        .iter()
        .filter(|a| a.incl_tax)
        .map(|a| as_f64(&a.value))
        .reduce(f64::min)
    {
        current.retain(|a| a.incl_tax || as_f64(&a.value) >= with_tax);
    }
    let mut former: Vec<&Amount> = all.iter().filter(|a| a.list).collect();
    // The same price in euros and in the currency the euro replaced ("389.21
    // лв. / 199 €", side by side through a changeover): the euro's.
    for amounts in [&mut current, &mut former] {
        if amounts.iter().any(|a| a.currency.as_deref() == Some("EUR")) {
            amounts.retain(|a| !matches!(a.currency.as_deref(), Some("BGN" | "HRK")));
        }
    }
    // Every amount a former one, some struck through as drawn and the rest
    // only named so (an id "old_price" on the price shown beside a struck
    // one): the drawing decides.
    if current.is_empty() && former.iter().any(|a| a.struck) && former.iter().any(|a| !a.struck) {
        current = former.iter().copied().filter(|a| !a.struck).collect();
        former.retain(|a| a.struck);
    }
    // Only a members' price beside a higher struck one: the struck one is
    // what everyone else pays.
    if !current.is_empty() && current.iter().all(|a| a.member) {
        let member = as_f64(&current[0].value);
        let everyones: Vec<&Amount> = former
            .iter()
            .copied()
            .filter(|a| as_f64(&a.value) > member)
            .collect();
        if !everyones.is_empty() {
            current = everyones;
        }
    }
    if current.is_empty() {
        current = former.clone();
    }
    // Two unmarked amounts beside a discount badge ("19%", "Rp4.299.000",
    // "Rp3.499.000", the strike drawn by a style sheet): the one the
    // discount leads to is the price, the other the former one.
    if let [a, b] = current[..] {
        let (high, low) = if as_f64(&a.value) > as_f64(&b.value) {
            (a, b)
        } else {
            (b, a)
        };
        // (An amount in brackets beside the price is its price before tax.)
        if !a.sale
            && !b.sale
            && !low.raw.trim_start().starts_with('(')
            && discount_leads_to(doc, card, as_f64(&high.value), as_f64(&low.value))
        {
            current = vec![low];
            former.push(high);
        }
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
            struck: pick.struck,
            member_text: pick.member_text,
            excl_tax: pick.excl_tax,
            incl_tax: pick.incl_tax,
            in_name: pick.in_name,
            in_headline: pick.in_headline,
        },
        list_price,
    ))
}
