//! The size of the whole list a listing page belongs to, where the page
//! states it: "Showing 1–24 of 283", "283 results", schema.org
//! `numberOfItems`, or a total in the page's state. Stated to the host as
//! the note `total:<n>`, so it can say whether a catalog was read whole.

use crate::dom::Doc;

/// Words that follow a count of a list's items.
const COUNT_NOUNS: &[&str] = &[
    "results",
    "result",
    "products",
    "product",
    "items",
    "item",
    "articles",
    "artikel",
    "produkte",
    "ergebnisse",
    "treffer",
    "produits",
    "résultats",
    "articles trouvés",
    "productos",
    "resultados",
    "artículos",
    "prodotti",
    "risultati",
    "articoli",
    "producten",
    "resultaten",
    "artikelen",
    "produkter",
    "resultat",
    "tuotetta",
    "tulosta",
    "produktów",
    "wyników",
];

/// Keys of a total in embedded state.
const STATE_KEYS: &[&str] = &[
    "\"totalCount\":",
    "\"total_count\":",
    "\"totalResults\":",
    "\"total_results\":",
    "\"totalProducts\":",
    "\"total_products\":",
    "\"totalItems\":",
    "\"total_items\":",
    "\"nbHits\":",
    "\"numFound\":",
    "\"totalHits\":",
    "\"productCount\":",
    "\"numberOfItems\":",
];

/// The list's total, if the page states one.
pub fn stated(doc: &Doc) -> Option<u64> {
    doc.texts
        .iter()
        .find_map(|t| in_text(&t.text))
        .or_else(|| in_json(&doc.jsonld.join("\n")))
        .or_else(|| {
            let state: String = doc.json_scripts().into_iter().map(|(_, t)| t).collect();
            in_json(&state)
        })
        .or_else(|| in_json(doc.scripts()))
        .filter(|n| *n > 0 && *n < 10_000_000)
}

/// "1–24 of 283", "Showing 1 to 24 of 283 products", "283 results",
/// "Results: 283", "(283 items)".
fn in_text(text: &str) -> Option<u64> {
    // Every total is read by `number`, which needs a digit; and lowercasing
    // never shortens a text: both tested before the copy.
    if !text.bytes().any(|b| b.is_ascii_digit()) || text.chars().count() > 80 {
        return None;
    }
    let lower = text.to_lowercase();
    if lower.chars().count() > 80 {
        return None;
    }
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ':' | '|' | '[' | ']'))
        .filter(|w| !w.is_empty())
        .collect();
    // A range and its total: <a> (-|–|to) <b> of <n>.
    for (i, w) in words.iter().enumerate() {
        if !matches!(
            *w,
            "of" | "von" | "de" | "sur" | "di" | "van" | "av" | "z" | "из"
        ) || i == 0
        {
            continue;
        }
        let Some(total) = words.get(i + 1).and_then(|n| number(n)) else {
            continue;
        };
        let before = words[..i].join(" ");
        let ranged = before
            .rsplit(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '–' | '—' | ' ')))
            .next()
            .unwrap_or("");
        let ends_in_range = ranged
            .trim()
            .split(['-', '–', '—'])
            .filter(|p| !p.trim().is_empty())
            .count()
            == 2
            || words[..i].windows(3).last().is_some_and(|w| {
                number(w[0]).is_some()
                    && matches!(w[1], "to" | "bis" | "à" | "a" | "al")
                    && number(w[2]).is_some()
            });
        if ends_in_range {
            return Some(total);
        }
    }
    // A count and its noun, as the whole of a short text.
    if words.len() <= 4 {
        for (i, w) in words.iter().enumerate() {
            let Some(n) = number(w) else { continue };
            let next = words.get(i + 1).copied().unwrap_or("");
            let prev = if i > 0 { words[i - 1] } else { "" };
            if COUNT_NOUNS.contains(&next) || COUNT_NOUNS.contains(&prev) {
                return Some(n);
            }
        }
    }
    None
}

/// The starts the keys share: every key begins with one of them.
const KEY_STEMS: &[&str] = &["\"total", "\"nbHits", "\"num", "\"productCount"];

/// The first total in JSON text under a key that names one: the first key
/// (in the order of [`STATE_KEYS`]) that occurs, read at its first
/// occurrence.
fn in_json(text: &str) -> Option<u64> {
    let first = first_occurrences(text.as_bytes());
    STATE_KEYS.iter().zip(first).find_map(|(key, at)| {
        let rest = text[at? + key.len()..].trim_start().trim_start_matches('"');
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

/// Where each of [`STATE_KEYS`] first occurs in `text`. The page's scripts
/// run to megabytes and mostly hold none of the keys: one scan per stem
/// ([`KEY_STEMS`], memmem) instead of one per key reads them four times
/// instead of thirteen.
fn first_occurrences(text: &[u8]) -> [Option<usize>; STATE_KEYS.len()] {
    let mut first = [None; STATE_KEYS.len()];
    for stem in KEY_STEMS {
        let keys = || {
            STATE_KEYS
                .iter()
                .enumerate()
                .filter(|(_, key)| key.starts_with(stem))
        };
        for at in memchr::memmem::find_iter(text, stem.as_bytes()) {
            for (i, key) in keys() {
                if first[i].is_none() && text[at..].starts_with(key.as_bytes()) {
                    first[i] = Some(at);
                }
            }
            if keys().all(|(i, _)| first[i].is_some()) {
                break;
            }
        }
    }
    first
}

/// A whole number as a page writes it: "283", "1,283", "1.283", "1 283".
fn number(word: &str) -> Option<u64> {
    let w = word.trim_matches(|c: char| !c.is_ascii_digit());
    if w.is_empty()
        || !w
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ',' | '.' | '\u{a0}' | '\u{202f}'))
    {
        return None;
    }
    let digits: String = w.chars().filter(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each key's first occurrence, as a search per key finds it, on texts
    /// made of the keys, their stems and near misses.
    #[test]
    fn one_scan_per_stem_finds_each_key_first() {
        for key in STATE_KEYS {
            assert!(KEY_STEMS.iter().any(|s| key.starts_with(s)), "{key}");
        }
        let parts: Vec<&str> = STATE_KEYS
            .iter()
            .copied()
            .chain(KEY_STEMS.iter().copied())
            .chain([
                "\"totalCount\"",
                "\"num",
                "x",
                " 12,",
                "\"totalItemsX\":",
                "\"",
            ])
            .collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut text = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for k in 0..(seed % 12) {
                text.push_str(parts[((seed >> (4 * k)) as usize) % parts.len()]);
            }
            let expected: Vec<Option<usize>> = STATE_KEYS.iter().map(|k| text.find(k)).collect();
            assert_eq!(
                first_occurrences(text.as_bytes()).to_vec(),
                expected,
                "{text}"
            );
        }
        assert_eq!(in_json(r#"{"totalCount": null, "nbHits": 42}"#), Some(42));
        assert_eq!(in_json(r#"{"numFound":7,"totalItems":"9"}"#), Some(9));
    }

    #[test]
    fn totals_in_words() {
        assert_eq!(in_text("Showing 1–24 of 283 results"), Some(283));
        assert_eq!(in_text("1 - 24 of 1,283"), Some(1283));
        assert_eq!(in_text("Showing 25 to 48 of 283"), Some(283));
        assert_eq!(in_text("283 results"), Some(283));
        assert_eq!(in_text("(42 Products)"), Some(42));
        assert_eq!(in_text("Results: 17"), Some(17));
        assert_eq!(in_text("Page 2 of 12"), None);
        assert_eq!(in_text("4.5 out of 5 stars"), None);
        assert_eq!(
            in_text("Compare up to 4 products on this page before buying"),
            None
        );
    }

    #[test]
    fn totals_in_state() {
        assert_eq!(in_json(r#"{"hits":[],"nbHits": 57,"page":0}"#), Some(57));
        assert_eq!(in_json(r#"{"totalCount":"120"}"#), Some(120));
        assert_eq!(in_json(r#"{"count":3}"#), None);
    }
}
