//! Records of one product from several sources (per-item markup, embedded
//! state, a visible card): whether two are the same item, and how the more
//! trusted one is completed from the other.

use crate::record::{Field, Record};

/// A URL for comparison: no fragment, no trailing slash.
pub(crate) fn url_key(u: &str) -> String {
    u.split('#')
        .next()
        .unwrap_or("")
        .trim_end_matches('/')
        .to_string()
}

pub(crate) fn path_key(u: &str) -> String {
    url_key(u.split('?').next().unwrap_or(""))
}

/// An image's file name when it is long enough to name one picture
/// (a hash, an id): the same picture in another size or transform of a
/// media server has it too.
fn image_key(u: &str) -> Option<&str> {
    let file = u.split(['?', '#']).next()?.rsplit('/').next()?;
    let stem = file.split('.').next().unwrap_or(file);
    (stem.len() >= 16 && stem.bytes().filter(|b| b.is_ascii_digit()).count() >= 4).then_some(file)
}

/// Whether two records are the same item: by URL, else by name, else by
/// the picture they show.
pub(crate) fn same_item(a: &Record, b: &Record) -> bool {
    if let (Some(x), Some(y)) = (a.get(Field::Url), b.get(Field::Url)) {
        if url_key(x) == url_key(y) || path_key(x) == path_key(y) {
            return true;
        }
    }
    if let (Some(x), Some(y)) = (
        a.get(Field::Image).and_then(image_key),
        b.get(Field::Image).and_then(image_key),
    ) {
        if x == y {
            return true;
        }
    }
    match (a.get(Field::Name), b.get(Field::Name)) {
        (Some(x), Some(y)) => {
            let (x, y) = (crate::norm_name(x), crate::norm_name(y));
            !x.is_empty() && x == y
        }
        _ => false,
    }
}

/// Fill the fields a record lacks from a less trusted one.
pub(crate) fn fill(high: &mut Record, low: &Record) {
    high.fill_from(low);
    // A former price is only one when it is above the current price.
    if let (Some(l), Some(p)) = (high.get(Field::ListPrice), high.get(Field::Price)) {
        if l.parse::<f64>().unwrap_or(0.0) <= p.parse::<f64>().unwrap_or(f64::MAX) {
            high.take(Field::ListPrice);
        }
    }
}

/// Fill each record from the first matching lower-trust record; returns how
/// many matched.
pub(crate) fn merge(high: &mut [Record], low: &[Record]) -> usize {
    merge_with(high, low, |_, _| {})
}

/// `merge`, then `settle` on each record and the index of the record it
/// matched (before the fill).
pub(crate) fn merge_with(
    high: &mut [Record],
    low: &[Record],
    mut settle: impl FnMut(&mut Record, usize),
) -> usize {
    let mut used = vec![false; low.len()];
    let mut n = 0;
    for r in high.iter_mut() {
        if let Some(j) = (0..low.len()).find(|&j| !used[j] && same_item(r, &low[j])) {
            used[j] = true;
            settle(r, j);
            fill(r, &low[j]);
            n += 1;
        }
    }
    n
}

/// Whether a text shows an amount, in any locale's writing: some figure of
/// it, its separators taken out, is the amount's whole units, or its units
/// and cents ("975,000" and "975.000" show 975000; "19,99" shows 19.99).
pub(crate) fn shows_amount(text: &str, amount: &str) -> bool {
    let Ok(value) = amount.parse::<f64>() else {
        return false;
    };
    let cents = (value * 100.0).round() as u64;
    let mut forms = vec![format!("{}{:02}", cents / 100, cents % 100)];
    if cents % 100 == 0 {
        forms.push((cents / 100).to_string());
    }
    let mut figure = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            figure.push(c);
            continue;
        }
        let joins = matches!(c, '.' | ',' | '\'' | ' ' | '\u{a0}' | '\u{202f}')
            && !figure.is_empty()
            && chars.peek().is_some_and(|n| n.is_ascii_digit());
        if !joins {
            if forms.contains(&figure) {
                return true;
            }
            figure.clear();
        }
    }
    forms.contains(&figure)
}

/// The card's whole name over a markup name cut short with an ellipsis
/// ("Grand appartement de 3 pièces au cent..., Rue Neuve 9").
pub(crate) fn full_name(markup: &mut Record, card: &Record) {
    let (Some(short), Some(whole)) = (markup.get(Field::Name), card.get(Field::Name)) else {
        return;
    };
    let Some(cut) = short.find("...").or_else(|| short.find('\u{2026}')) else {
        return;
    };
    let head = crate::norm_name(&short[..cut]);
    let whole_norm = crate::norm_name(whole);
    if head.len() >= 8 && whole_norm.starts_with(&head) && whole_norm.len() > head.len() {
        let whole = whole.to_string();
        markup.set(Field::Name, whole);
    }
}

/// The price a card shows over a markup price it does not show: the markup
/// amount is neither the card's current nor its former price (an estimate,
/// a price before tax), in the same currency.
pub(crate) fn shown_price(markup: &mut Record, card: &Record) {
    let amount = |r: &Record, f: Field| r.get(f).and_then(|p| p.parse::<f64>().ok());
    let (Some(stated), Some(shown)) = (amount(markup, Field::Price), amount(card, Field::Price))
    else {
        return;
    };
    let same = |a: f64, b: f64| (a - b).abs() < 0.005;
    let former = amount(card, Field::ListPrice).is_some_and(|l| same(l, stated));
    let currency_agrees = match (markup.get(Field::Currency), card.get(Field::Currency)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    if stated > 0.0 && shown > 0.0 && !same(stated, shown) && !former && currency_agrees {
        if let Some(p) = card.get(Field::Price) {
            markup.set(Field::Price, p.to_string());
        }
    }
}
