//! Text normalization: prices in every common locale format, currencies,
//! availability values, identifiers.

use crate::vocabulary::{BUY_PHRASES, IN_PHRASES, OUT_PHRASES, PRE_PHRASES};

/// Collapse runs of whitespace (including no-break spaces) into one space and trim.
pub fn squash(s: &str) -> String {
    if !s.is_ascii() {
        return squash_chars(s);
    }
    // `squash_chars`, a byte at a time (the ASCII characters `is_whitespace`
    // takes are tab to carriage return and the space).
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for &b in s.as_bytes() {
        if matches!(b, b'\t'..=b'\r' | b' ') {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(char::from(b));
        }
    }
    out
}

/// `squash` for any text, a character at a time.
fn squash_chars(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() || c == '\u{a0}' || c == '\u{200b}' || c == '\u{feff}' {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// Substring search for the extractor's many short tests (class lists,
/// labels, link targets), each against a handful of words.
///
/// `str::contains` and `str::find` set up a Two-Way searcher on every call.
/// x86-64 skips that for short haystacks with an SSE2 path, but WebAssembly
/// has none, and in the component those set-ups were a quarter of an
/// extraction's time. A first-byte scan is cheaper at these lengths on both;
/// long haystacks are searched with `memchr::memmem`. Same results as `str::find`.
pub trait Find {
    /// The byte offset of the first occurrence of `needle`, like `str::find`.
    fn find_str(&self, needle: &str) -> Option<usize>;

    /// Whether `needle` occurs, like `str::contains`.
    fn has(&self, needle: &str) -> bool {
        self.find_str(needle).is_some()
    }
}

/// Haystacks up to this many bytes are scanned directly.
const SHORT_HAYSTACK: usize = 1024;

impl Find for str {
    #[inline]
    fn find_str(&self, needle: &str) -> Option<usize> {
        let (hay, needle) = (self.as_bytes(), needle.as_bytes());
        let Some(&first) = needle.first() else {
            return Some(0);
        };
        if hay.len() < needle.len() {
            return None;
        }
        if hay.len() > SHORT_HAYSTACK {
            return memmem(hay, needle);
        }
        // A match of a valid UTF-8 needle in valid UTF-8 text always starts
        // on a character boundary, as `str::find` reports it.
        (0..=hay.len() - needle.len()).find(|&i| hay[i] == first && starts_with(&hay[i..], needle))
    }
}

fn memmem(hay: &[u8], needle: &[u8]) -> Option<usize> {
    // The first occurrence, as `str::find` gives it, and several times
    // faster on long texts (SIMD, natively and in WebAssembly).
    memchr::memmem::find(hay, needle)
}

/// `hay.starts_with(prefix)` as an inline loop: the needles are a few bytes,
/// and a slice comparison is a call to `memcmp`, which in WebAssembly is an
/// ordinary (slow) function.
#[inline]
pub(crate) fn starts_with(hay: &[u8], prefix: &[u8]) -> bool {
    hay.len() >= prefix.len() && hay.iter().zip(prefix).all(|(a, b)| a == b)
}

/// `hay.ends_with(suffix)`, inline (see [`starts_with`]).
#[inline]
pub(crate) fn ends_with(hay: &[u8], suffix: &[u8]) -> bool {
    hay.len() >= suffix.len() && starts_with(&hay[hay.len() - suffix.len()..], suffix)
}

/// `a == b`, inline (see [`starts_with`]).
#[inline]
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && starts_with(a, b)
}

/// A fixed set of words to look for in a text, all of them in one pass
/// over it (rather than one search per word).
pub struct Words {
    words: &'static [&'static str],
    /// For each byte, the words that begin with it (bit `i`: word `i`).
    starts: [u64; 256],
    /// For each byte, the words whose second byte it is: a position is
    /// compared only with the words both its bytes allow.
    seconds: [u64; 256],
}

impl Words {
    /// At most 64 words, each of two bytes or more.
    pub const fn new(words: &'static [&'static str]) -> Words {
        assert!(words.len() <= 64);
        let mut starts = [0u64; 256];
        let mut seconds = [0u64; 256];
        let mut i = 0;
        while i < words.len() {
            let word = words[i].as_bytes();
            assert!(word.len() >= 2);
            starts[word[0] as usize] |= 1 << i;
            seconds[word[1] as usize] |= 1 << i;
            i += 1;
        }
        Words {
            words,
            starts,
            seconds,
        }
    }

    /// The words that may begin at `i` (`i + 1` is within `hay`), by its
    /// first two bytes.
    #[inline]
    fn candidates(&self, hay: &[u8], i: usize) -> u64 {
        self.starts[hay[i] as usize] & self.seconds[hay[i + 1] as usize]
    }

    /// Whether any of the words occurs in `text`:
    /// `words.iter().any(|w| text.contains(w))`.
    pub fn any_in(&self, text: &str) -> bool {
        let hay = text.as_bytes();
        // Every word has two bytes or more: none begins at the last byte.
        (0..hay.len().saturating_sub(1)).any(|i| {
            // Only the words that begin with these two bytes are compared.
            let mut m = self.candidates(hay, i);
            while m != 0 {
                let n = m.trailing_zeros() as usize;
                if starts_with(&hay[i..], self.words[n].as_bytes()) {
                    return true;
                }
                m &= m - 1;
            }
            false
        })
    }

    /// Which of the words occur in `text`: bit `i` is set when word `i`
    /// does.
    pub fn found_in(&self, text: &str) -> u64 {
        let hay = text.as_bytes();
        let mut found = 0;
        for i in 0..hay.len().saturating_sub(1) {
            let mut m = self.candidates(hay, i);
            while m != 0 {
                let n = m.trailing_zeros() as usize;
                if starts_with(&hay[i..], self.words[n].as_bytes()) {
                    found |= 1 << n;
                }
                m &= m - 1;
            }
        }
        found
    }
}
/// Normalize an availability value from markup to its schema.org short name.
pub fn normalize_availability(v: &str) -> Option<String> {
    let t = v.trim();
    let last = t.rsplit(['/', '#', ':']).next().unwrap_or(t).trim();
    let key: String = last
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_lowercase();
    let short = match key.as_str() {
        "instock" | "available" | "true" | "1" | "yes" => "InStock",
        "outofstock" | "soldout" | "unavailable" | "false" | "0" | "no" => "OutOfStock",
        "preorder" | "presale" => "PreOrder",
        "backorder" | "availableforbackorder" => "BackOrder",
        "discontinued" => "Discontinued",
        "limitedavailability" => "LimitedAvailability",
        "instoreonly" => "InStoreOnly",
        "onlineonly" => "OnlineOnly",
        "madetoorder" => "MadeToOrder",
        "reserved" => "Reserved",
        _ => {
            // Stock text used as a markup value ("En stock", "Auf Lager").
            return availability_from_text(t).map(|(a, _)| a.to_string());
        }
    };
    Some(short.to_string())
}

/// Normalize an item condition to its schema.org short name.
pub fn normalize_condition(v: &str) -> Option<String> {
    let last = v.trim().rsplit(['/', '#', ':']).next().unwrap_or("").trim();
    let key = last.to_lowercase();
    let short = match key.as_str() {
        "newcondition" | "new" => "NewCondition",
        "usedcondition" | "used" => "UsedCondition",
        "refurbishedcondition" | "refurbished" => "RefurbishedCondition",
        "damagedcondition" | "damaged" => "DamagedCondition",
        _ => return None,
    };
    Some(short.to_string())
}

/// Read availability from a short visible text. Returns the short name and
/// whether it was a negative (out of stock) statement.
pub fn availability_from_text(text: &str) -> Option<(&'static str, bool)> {
    stock_phrase(text).map(|(a, neg, _)| (a, neg))
}

/// Like `availability_from_text`, but only when the stock phrase is most of
/// the text ("Out of stock", "Nur noch 1 auf Lager"), not a word in a
/// sentence about something else.
pub fn availability_from_short_text(text: &str) -> Option<&'static str> {
    let (a, _, len) = stock_phrase(text)?;
    let n = text.chars().count();
    if n <= len + 24 && n <= 2 * len + 12 {
        Some(a)
    } else {
        None
    }
}

fn stock_phrase(text: &str) -> Option<(&'static str, bool, usize)> {
    let t = text.to_lowercase();
    if t.len() > 160 {
        return None;
    }
    // Which phrases occur at all, in one pass; only those are checked for
    // word boundaries, in the lists' order.
    let present = STOCK_PHRASES.present(&t);
    if present == 0 {
        return None;
    }
    let [out, pre, ..] = STOCK_PHRASES.lengths;
    let occurs = |i: usize| present & (1 << i) != 0;
    for (i, p) in OUT_PHRASES.iter().enumerate() {
        if occurs(i) && contains_phrase(&t, p) {
            return Some(("OutOfStock", true, p.chars().count()));
        }
    }
    for (i, p) in PRE_PHRASES.iter().enumerate() {
        if occurs(out + i) && contains_phrase(&t, p) {
            return Some(("PreOrder", false, p.chars().count()));
        }
    }
    for (i, p) in IN_PHRASES.iter().enumerate() {
        if occurs(out + pre + i) && contains_phrase(&t, p) {
            // "not in stock", "nicht auf Lager", "no disponible" handled above;
            // guard against a negation right before the phrase.
            let idx = t.find_str(p).unwrap_or(0);
            let before = &t[..idx];
            let neg = [
                "not ", "no ", "nicht ", "non ", "pas ", "nie ", "není ", "nie je ",
            ];
            if neg.iter().any(|n| before.ends_with(n)) {
                return Some(("OutOfStock", true, p.chars().count() + 4));
            }
            return Some(("InStock", false, p.chars().count()));
        }
    }
    None
}

/// Lists of phrases searched for in short texts, all at once: which
/// phrases occur anywhere in a text, as bits (list after list, in order).
pub(crate) struct Phrases<const N: usize> {
    lists: [&'static [&'static str]; N],
    /// The length of each list: a list's bits start after the previous
    /// lists' lengths.
    lengths: [usize; N],
    index: std::sync::OnceLock<Patterns>,
}

impl<const N: usize> Phrases<N> {
    pub(crate) const fn new(lists: [&'static [&'static str]; N]) -> Self {
        let mut lengths = [0; N];
        let mut i = 0;
        let mut total = 0;
        while i < N {
            lengths[i] = lists[i].len();
            total += lists[i].len();
            i += 1;
        }
        assert!(total <= 128, "at most 128 phrases: one bit each");
        Phrases {
            lists,
            lengths,
            index: std::sync::OnceLock::new(),
        }
    }

    /// Bit `i` set: the `i`-th phrase occurs in `hay` (not necessarily as
    /// a word).
    pub(crate) fn present(&self, hay: &str) -> u128 {
        self.index
            .get_or_init(|| Patterns::new(self.lists.iter().flat_map(|l| l.iter().copied())))
            .occurrences(hay)
            .fold(0, |bits, i| bits | 1 << i)
    }
}

/// A few hundred short patterns, indexed by their first byte, for finding
/// which occur in a short text. Nothing is built beyond one sort of the
/// patterns: the extractor runs in a fresh instance for every page, so
/// whatever it builds it builds for every page (an Aho-Corasick automaton
/// took most of a small page's time). [`Words`] is the same index built at
/// compile time, for up to 64 fixed words; these lists are longer, or made
/// at run time from other tables.
pub(crate) struct Patterns {
    patterns: Vec<&'static str>,
    /// Pattern numbers ordered by first byte: those starting with byte `b`
    /// are `by_first[starts[b]..starts[b + 1]]`.
    by_first: Vec<u16>,
    starts: [u16; 257],
}

impl Patterns {
    pub(crate) fn new(patterns: impl IntoIterator<Item = &'static str>) -> Patterns {
        let patterns: Vec<&'static str> = patterns.into_iter().collect();
        assert!(patterns.len() < usize::from(u16::MAX) && patterns.iter().all(|p| !p.is_empty()));
        let first = |i: u16| patterns[usize::from(i)].as_bytes()[0];
        let mut by_first: Vec<u16> = (0..patterns.len() as u16).collect();
        by_first.sort_by_key(|&i| first(i));
        let mut starts = [0u16; 257];
        for &i in &by_first {
            starts[usize::from(first(i)) + 1] += 1;
        }
        for b in 1..257 {
            starts[b] += starts[b - 1];
        }
        Patterns {
            patterns,
            by_first,
            starts,
        }
    }

    pub(crate) fn pattern(&self, i: usize) -> &'static str {
        self.patterns[i]
    }

    /// The number of every pattern that occurs in `hay`, once per
    /// occurrence (overlapping ones too), in no particular order.
    pub(crate) fn occurrences<'a>(&'a self, hay: &'a str) -> impl Iterator<Item = usize> + 'a {
        let hay = hay.as_bytes();
        (0..hay.len()).flat_map(move |at| {
            let b = usize::from(hay[at]);
            let range = usize::from(self.starts[b])..usize::from(self.starts[b + 1]);
            self.by_first[range]
                .iter()
                .map(|&i| usize::from(i))
                .filter(move |&i| hay[at..].starts_with(self.patterns[i].as_bytes()))
        })
    }
}

static STOCK_PHRASES: Phrases<3> = Phrases::new([OUT_PHRASES, PRE_PHRASES, IN_PHRASES]);
static BUY: Phrases<1> = Phrases::new([BUY_PHRASES]);

fn contains_phrase(hay: &str, needle: &str) -> bool {
    let mut start = 0;
    while let Some(pos) = hay[start..].find_str(needle) {
        let abs = start + pos;
        let before_ok = hay[..abs]
            .chars()
            .last()
            .map(|c| !c.is_alphanumeric())
            .unwrap_or(true);
        let end = abs + needle.len();
        let after_ok = hay[end..]
            .chars()
            .next()
            .map(|c| !c.is_alphanumeric())
            .unwrap_or(true);
        // CJK phrases have no word boundaries.
        let cjk = needle.chars().any(|c| c as u32 > 0x2e80);
        if cjk || (before_ok && after_ok) {
            return true;
        }
        start = end;
    }
    false
}

/// Whether a text is a buy button's label.
pub fn is_buy_text(text: &str) -> bool {
    let t = text.to_lowercase();
    if t.len() > 60 {
        return false;
    }
    let present = BUY.present(&t);
    present != 0
        && BUY_PHRASES
            .iter()
            .enumerate()
            .any(|(i, p)| present & (1 << i) != 0 && contains_phrase(&t, p))
}

/// Clean an identifier value: trim, drop a "sku:"-like prefix, reject blanks
/// and values that are clearly not identifiers.
pub fn clean_identifier(v: &str) -> Option<String> {
    let mut t = v.trim();
    for prefix in [
        "isbn:", "sku:", "mpn:", "gtin:", "gtin13:", "ean:", "upc:", "asin:",
    ] {
        if t.len() > prefix.len()
            && t.get(..prefix.len())
                .map(|h| h.eq_ignore_ascii_case(prefix))
                .unwrap_or(false)
        {
            t = t[prefix.len()..].trim();
        }
    }
    if t.is_empty() || t.len() > 64 || t.has("{{") || t.contains('<') {
        return None;
    }
    if t.eq_ignore_ascii_case("null")
        || t.eq_ignore_ascii_case("undefined")
        || t.eq_ignore_ascii_case("n/a")
    {
        return None;
    }
    Some(t.to_string())
}

/// Whether a string is a plausible GTIN (8, 12, 13 or 14 digits, not all
/// of them zeros: a template's placeholder).
pub fn is_gtin(v: &str) -> bool {
    let d: String = v
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    d.chars().all(|c| c.is_ascii_digit())
        && matches!(d.len(), 8 | 12 | 13 | 14)
        && d.bytes().any(|b| b != b'0')
}

/// Words looked for in class and id names by [`has_word`], with the
/// filter that passes over a hint once before any word is compared.
pub(crate) struct WordList {
    words: &'static [&'static str],
    filter: Words,
}

impl WordList {
    /// At most 64 words, each of two bytes or more.
    pub(crate) const fn new(words: &'static [&'static str]) -> WordList {
        WordList {
            words,
            filter: Words::new(words),
        }
    }
}

/// Whether a hint (class and id names) holds one of `words` as a word, or
/// as the other part of a word with "price" ("oldprice", "price-was").
pub(crate) fn has_word(hint: &str, list: &WordList) -> bool {
    // Every way a word matches below finds it inside the hint: a hint that
    // holds none of the words (most of them) is told in one pass.
    if !list.filter.any_in(hint) {
        return false;
    }
    let words = list.words;
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
            // A word run together with "price" ("priceold", "wasprice"):
            // what the part holds besides "price" is the word (or its
            // plural), so that "pricenobold" is no "old" price.
            let rest = if p.len() <= 5 {
                None
            } else if starts_with(p, b"price") {
                Some(&p[5..])
            } else if ends_with(p, b"price") {
                Some(&p[..p.len() - 5])
            } else {
                None
            };
            for w in words {
                let wb = w.as_bytes();
                if same(p, wb)
                    || (wb.len() >= 6 && part.has(w))
                    || rest.is_some_and(|r| {
                        same(r, wb) || (ends_with(r, b"s") && same(&r[..r.len() - 1], wb))
                    })
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

#[cfg(test)]
mod patterns_tests {
    use super::Patterns;

    /// The ASCII path of `squash` gives what the character path gives.
    #[test]
    fn squash_reads_ascii_like_any_text() {
        let parts = [
            "a", " ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "bc", "\x00",
        ];
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..5000 {
            let mut s = String::new();
            for _ in 0..next() % 12 {
                s.push_str(parts[(next() % parts.len() as u64) as usize]);
            }
            assert_eq!(super::squash(&s), super::squash_chars(&s), "for {s:?}");
        }
    }

    /// Every pattern found is in the text, and every pattern in the text is
    /// found, overlapping and sharing first bytes included.
    #[test]
    fn finds_exactly_the_patterns_that_occur() {
        let list = [
            "in stock", "in", "stock", "n s", "€", "руб", "$", "us$", "s",
        ];
        let patterns = Patterns::new(list);
        for hay in [
            "",
            "in stock",
            "only 2 in stock!",
            "100 руб",
            "us$ 5",
            "€",
            "x",
            "ssss",
        ] {
            let mut found: Vec<&str> = patterns
                .occurrences(hay)
                .map(|i| patterns.pattern(i))
                .collect();
            found.sort_unstable();
            found.dedup();
            let mut want: Vec<&str> = list.iter().copied().filter(|p| hay.contains(p)).collect();
            want.sort_unstable();
            assert_eq!(found, want, "in {hay:?}");
        }
    }
}
