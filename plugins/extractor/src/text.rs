//! Text normalization: prices in every common locale format, currencies,
//! availability values, identifiers.

/// Collapse runs of whitespace (including no-break spaces) into one space and trim.
pub fn squash(s: &str) -> String {
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
/// long haystacks keep the standard search. Same results as `str::find`.
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
    // SAFETY: both come from `&str` in `find_str`.
    let (hay, needle) = unsafe {
        (
            std::str::from_utf8_unchecked(hay),
            std::str::from_utf8_unchecked(needle),
        )
    };
    hay.find(needle)
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
    /// Which bytes begin a word.
    starts: [bool; 256],
}

impl Words {
    /// At most 64 words, none of them empty.
    pub const fn new(words: &'static [&'static str]) -> Words {
        assert!(words.len() <= 64);
        let mut starts = [false; 256];
        let mut i = 0;
        while i < words.len() {
            let word = words[i].as_bytes();
            assert!(!word.is_empty());
            starts[word[0] as usize] = true;
            i += 1;
        }
        Words { words, starts }
    }

    /// Whether any of the words occurs in `text`:
    /// `words.iter().any(|w| text.contains(w))`.
    pub fn any_in(&self, text: &str) -> bool {
        let hay = text.as_bytes();
        (0..hay.len()).any(|i| {
            self.starts[hay[i] as usize]
                && self
                    .words
                    .iter()
                    .any(|w| w.as_bytes()[0] == hay[i] && starts_with(&hay[i..], w.as_bytes()))
        })
    }

    /// Which of the words occur in `text`: bit `i` is set when word `i`
    /// does.
    pub fn found_in(&self, text: &str) -> u64 {
        let hay = text.as_bytes();
        let mut found = 0;
        for i in 0..hay.len() {
            if !self.starts[hay[i] as usize] {
                continue;
            }
            for (n, w) in self.words.iter().enumerate() {
                if w.as_bytes()[0] == hay[i] && starts_with(&hay[i..], w.as_bytes()) {
                    found |= 1 << n;
                }
            }
        }
        found
    }
}

fn is_group_space(c: char) -> bool {
    matches!(c, ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}' | '\'' | '’')
}

/// A number found in a text, before interpretation: its digit groups and the
/// separators between them.
struct RawNumber {
    groups: Vec<String>,
    seps: Vec<char>,
    start: usize,
    end: usize,
}

/// Scan the first number-like token at or after byte `from`.
fn scan_number(s: &str, from: usize) -> Option<RawNumber> {
    let bytes: Vec<(usize, char)> = s[from..]
        .char_indices()
        .map(|(i, c)| (i + from, c))
        .collect();
    let mut i = 0;
    while i < bytes.len() && !bytes[i].1.is_ascii_digit() {
        i += 1;
    }
    if i >= bytes.len() {
        return None;
    }
    let start = bytes[i].0;
    let mut groups = vec![String::new()];
    let mut seps = Vec::new();
    while i < bytes.len() {
        let c = bytes[i].1;
        if c.is_ascii_digit() {
            groups.last_mut().unwrap().push(c);
            i += 1;
            continue;
        }
        let is_sep = c == '.' || c == ',' || is_group_space(c);
        if !is_sep {
            break;
        }
        // Count the digits that follow the separator.
        let mut j = i + 1;
        let mut n = 0;
        while j < bytes.len() && bytes[j].1.is_ascii_digit() {
            n += 1;
            j += 1;
        }
        if n == 0 {
            break;
        }
        if is_group_space(c) {
            // A space or apostrophe only groups thousands: exactly three digits
            // after it, and the group before at most three.
            let before = groups.last().map(|g| g.len()).unwrap_or(0);
            if n != 3 || before > 3 {
                break;
            }
        }
        seps.push(c);
        groups.push(String::new());
        i += 1;
    }
    let end = if i < bytes.len() { bytes[i].0 } else { s.len() };
    Some(RawNumber {
        groups,
        seps,
        start,
        end,
    })
}

/// Interpret a raw number as a decimal string with '.' as separator.
/// `machine` is true for values from markup (schema.org prescribes '.').
fn interpret(raw: &RawNumber, machine: bool) -> Option<String> {
    let groups = &raw.groups;
    let seps = &raw.seps;
    if seps.is_empty() {
        return Some(trim_int(&groups[0]));
    }
    let last = *seps.last().unwrap();
    let last_group = groups.last().unwrap();
    let dots = seps.iter().filter(|&&c| c == '.').count();
    let commas = seps.iter().filter(|&&c| c == ',').count();
    let decimal: Option<char> = if last == '.' || last == ',' {
        let count = if last == '.' { dots } else { commas };
        let other = if last == '.' { commas } else { dots };
        if count > 1 {
            None
        } else if other > 0 {
            Some(last)
        } else if machine && last == '.' {
            Some('.')
        } else if last_group.len() != 3 {
            Some(last)
        } else if groups[0] == "0" || groups[0].is_empty() {
            Some(last)
        } else if seps.iter().any(|&c| is_group_space(c)) {
            // "1 234,567" is odd; "1 234.567" too: treat as decimal.
            Some(last)
        } else {
            None
        }
    } else {
        None
    };
    let mut int = String::new();
    let mut frac = String::new();
    let n = groups.len();
    for (k, g) in groups.iter().enumerate() {
        if k == n - 1 && decimal.is_some() {
            frac = g.clone();
        } else {
            int.push_str(g);
        }
    }
    let int = trim_int(&int);
    if frac.is_empty() {
        return Some(int);
    }
    Some(format!("{}.{}", int, frac))
}

fn trim_int(s: &str) -> String {
    let t = s.trim_start_matches('0');
    if t.is_empty() {
        "0".to_string()
    } else {
        t.to_string()
    }
}

/// A price parsed from a text: the decimal value and the currency seen next to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Price {
    pub value: String,
    pub currency: Option<String>,
}

/// Parse the first price in a human-written text ("1.234,56 €", "$1,234.56",
/// "CHF 1'234.50", "¥1234", "ab 12,99", "10 - 20 EUR").
pub fn parse_price(text: &str) -> Option<Price> {
    parse_price_from(text, false)
}

/// Parse the current price of a text that may also state a former one:
/// "statt 4.50 CHF 2.25", "was £20 now £15", "au lieu de 30 € 25 €" give the
/// last price written next to a currency; other texts their first price.
pub fn parse_current_price(text: &str) -> Option<Price> {
    let lower = text.to_lowercase();
    let former = [
        "statt",
        "was ",
        "instead of",
        "au lieu de",
        "invece di",
        "en lugar de",
        "em vez de",
        "uvp",
        "rrp",
        "原價",
        "原价",
        "вместо",
    ];
    if !former.iter().any(|w| lower.has(w)) {
        return parse_price(text);
    }
    let mut last: Option<Price> = None;
    let mut from = 0;
    for _ in 0..8 {
        let Some(r) = scan_number(text, from) else {
            break;
        };
        let before: String = text[..r.start]
            .chars()
            .rev()
            .take(4)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let after: String = text[r.end..].chars().take(4).collect();
        if let Some(cur) = currency_near(&before, &after) {
            if let Some(value) = interpret(&r, false) {
                last = Some(Price {
                    value,
                    currency: Some(cur),
                });
            }
        }
        if r.end >= text.len() {
            break;
        }
        from = r.end;
    }
    last.or_else(|| parse_price(text))
}

/// Parse a price from markup (`content="1234.56"`, JSON-LD `"price": "12.5"`).
pub fn parse_machine_price(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    parse_price_from(t, true).map(|p| p.value)
}

fn parse_price_from(text: &str, machine: bool) -> Option<Price> {
    let mut raw = scan_number(text, 0)?;
    // With several numbers, take the first one written next to a currency
    // ("8 offers from 98,65 €" is 98.65).
    if !machine {
        let mut cur = scan_number(text, 0);
        let mut k = 0;
        while let Some(r) = cur {
            let before: String = text[..r.start].chars().rev().take(4).collect();
            let after: String = text[r.end..].chars().take(4).collect();
            if currency_near(&before.chars().rev().collect::<String>(), &after).is_some() {
                raw = r;
                break;
            }
            k += 1;
            if k > 6 || r.end >= text.len() {
                break;
            }
            cur = scan_number(text, r.end);
        }
    }
    // A number glued to letters on its left ("B07FW264WL", "x2") is no price.
    if let Some(prev) = text[..raw.start].chars().last() {
        if prev.is_alphabetic() && !is_currency_letter_context(&text[..raw.start]) {
            return None;
        }
    }
    let mut value = interpret(&raw, machine)?;
    // "12€50": the currency sign stands for the decimal separator.
    if !machine && raw.seps.is_empty() {
        let rest = &text[raw.end..];
        let mut it = rest.chars();
        if let Some(sym) = it.next() {
            if matches!(sym, '€' | '£' | '$') {
                let tail: String = it.clone().take(3).collect();
                let digits: String = tail.chars().take_while(|c| c.is_ascii_digit()).collect();
                if digits.len() == 2 {
                    value = format!("{}.{}", value, digits);
                }
            }
        }
    }
    let before = &text[..raw.start];
    let after = &text[raw.end..];
    let currency = currency_near(before, after);
    Some(Price { value, currency })
}

fn is_currency_letter_context(before: &str) -> bool {
    let lower = before.to_lowercase();
    let t = lower.trim_end();
    [
        "rs", "rs.", "eur", "usd", "gbp", "chf", "kr", "zł", "lei", "ron", "pkr", "inr", "r", "nt",
        "rp", "tl", "kč", "ft",
    ]
    .iter()
    .any(|c| t.ends_with(c))
        || before.ends_with(|c: char| c.is_alphabetic() && !c.is_ascii())
}

/// Currency signs and their ISO codes; longer signs before the signs they
/// end with ("CDN$" before "$"). A bare "$" or "kr" is only a first guess,
/// resolved by the page's locale (`locale.rs`).
const SYMBOLS: &[(&str, &str)] = &[
    ("US$", "USD"),
    ("USD$", "USD"),
    ("NT$", "TWD"),
    ("R$", "BRL"),
    ("CDN$", "CAD"),
    ("CAD$", "CAD"),
    ("CA$", "CAD"),
    ("C$", "CAD"),
    ("AUD$", "AUD"),
    ("AU$", "AUD"),
    ("A$", "AUD"),
    ("NZD$", "NZD"),
    ("NZ$", "NZD"),
    ("HK$", "HKD"),
    ("SGD$", "SGD"),
    ("SG$", "SGD"),
    ("S$", "SGD"),
    ("MXN$", "MXN"),
    ("MX$", "MXN"),
    ("RD$", "DOP"),
    ("J$", "JMD"),
    ("TT$", "TTD"),
    ("€", "EUR"),
    ("£", "GBP"),
    ("₽", "RUB"),
    ("руб", "RUB"),
    ("₹", "INR"),
    ("₩", "KRW"),
    ("원", "KRW"),
    ("₪", "ILS"),
    ("₺", "TRY"),
    ("฿", "THB"),
    ("₫", "VND"),
    ("₴", "UAH"),
    ("грн", "UAH"),
    ("zł", "PLN"),
    ("Kč", "CZK"),
    ("lei", "RON"),
    ("Ft", "HUF"),
    ("円", "JPY"),
    ("元", "CNY"),
    ("¥", "JPY"),
    ("Rs", "INR"),
    ("CHF", "CHF"),
    ("Fr.", "CHF"),
    ("kr.", "SEK"),
    ("kr", "SEK"),
    ("₱", "PHP"),
    ("RM", "MYR"),
    ("Rp", "IDR"),
    ("S/", "PEN"),
    ("TL", "TRY"),
    ("лв", "BGN"),
    ("₸", "KZT"),
    ("৳", "BDT"),
    ("Tk", "BDT"),
    ("₦", "NGN"),
    ("₵", "GHS"),
    ("KSh", "KES"),
    ("₼", "AZN"),
    ("₾", "GEL"),
    ("₮", "MNT"),
    ("₭", "LAK"),
    ("₲", "PYG"),
    ("د.إ", "AED"),
    ("ر.س", "SAR"),
    ("kn", "HRK"),
    ("$", "USD"),
];

const ISO: &[&str] = &[
    "EUR", "USD", "GBP", "CHF", "JPY", "CNY", "RUB", "INR", "PKR", "KRW", "TWD", "ILS", "TRY",
    "PLN", "CZK", "RON", "HUF", "SEK", "NOK", "DKK", "BRL", "ARS", "MXN", "CLP", "COP", "PEN",
    "CAD", "AUD", "NZD", "HKD", "SGD", "THB", "VND", "UAH", "ZAR", "AED", "SAR", "BGN", "HRK",
    "RSD", "IDR", "MYR", "PHP", "EGP", "NGN", "KZT", "BYN", "ISK", "BDT", "KES", "GHS", "QAR",
    "KWD", "BHD", "OMR", "MAD", "LKR", "NPR",
];

/// The currency written right before or after a number.
fn currency_near(before: &str, after: &str) -> Option<String> {
    let b: String = before
        .chars()
        .rev()
        .take(6)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let a: String = after.chars().take(6).collect();
    let (b, a) = (b.trim_end(), a.trim_start());
    // A country prefix set apart from its sign ("CDN $83", "US $36").
    let joined;
    let b = match b.strip_suffix('$').map(str::trim_end) {
        Some(head)
            if head.len() + 1 < b.len() && head.ends_with(|c: char| c.is_ascii_uppercase()) =>
        {
            joined = format!("{head}$");
            joined.as_str()
        }
        _ => b,
    };
    // Letter marks must stand as words ("5 kn", not "5 knives").
    let starts = |text: &str, mark: &str| -> bool {
        let Some(rest) = text.get(..mark.len()) else {
            return false;
        };
        rest.eq_ignore_ascii_case(mark)
            && (!mark.chars().all(|c| c.is_alphabetic())
                || !text[mark.len()..]
                    .chars()
                    .next()
                    .map(|c| c.is_alphabetic())
                    .unwrap_or(false))
    };
    let ends = |text: &str, mark: &str| -> bool {
        if text.len() < mark.len() || !text.is_char_boundary(text.len() - mark.len()) {
            return false;
        }
        let (head, tail) = text.split_at(text.len() - mark.len());
        tail.eq_ignore_ascii_case(mark)
            && (!mark.chars().all(|c| c.is_alphabetic())
                || !head
                    .chars()
                    .last()
                    .map(|c| c.is_alphabetic())
                    .unwrap_or(false))
    };
    for code in ISO {
        if starts(a, code) || ends(b, code) {
            return Some(code.to_string());
        }
    }
    for (sym, code) in SYMBOLS {
        if ends(b, sym) || starts(a, sym) {
            return Some(code.to_string());
        }
    }
    None
}

/// Whether a text carries a currency mark at all.
pub fn has_currency_mark(text: &str) -> bool {
    // Signs and non-ASCII marks ("$", "€", "руб", "元") as substrings, only
    // when the text has such characters at all.
    if text.bytes().any(|b| b >= 0x80 || b == b'$' || b == b'/')
        && SYMBOLS.iter().any(|(s, _)| {
            s.chars().any(|c| !c.is_ascii_alphabetic() && c != '.') && mark_stands(text, s)
        })
    {
        return true;
    }
    // Letter codes and abbreviations count only as whole words.
    text.split(|c: char| !c.is_ascii_alphabetic()).any(|w| {
        (2..=4).contains(&w.len())
            && (ISO.contains(&w)
                || SYMBOLS.iter().any(|(s, _)| {
                    s.chars().all(|c| c.is_ascii_alphabetic() || c == '.')
                        && s.trim_end_matches('.') == w
                }))
    })
}

/// Whether a sign occurs in a text; a sign with Latin letters ("S/", "R$")
/// only as its own word ("S/PDIF" is no currency).
fn mark_stands(text: &str, mark: &str) -> bool {
    if !text.has(mark) {
        return false;
    }
    if !mark.chars().any(|c| c.is_ascii_alphabetic()) {
        return true;
    }
    text.match_indices(mark).any(|(i, _)| {
        let before = text[..i].chars().last();
        let after = text[i + mark.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphabetic()) && !after.is_some_and(|c| c.is_alphabetic())
    })
}

/// Whether a short text says the product costs nothing ("Free", "Free to
/// Play", "Gratis", "Kostenlos"): a price of 0.00, not a missing one.
pub fn is_free_text(text: &str) -> bool {
    let t = text.trim().trim_end_matches('!').trim().to_lowercase();
    matches!(
        t.as_str(),
        "free"
            | "free to play"
            | "free-to-play"
            | "free download"
            | "gratis"
            | "kostenlos"
            | "gratuit"
            | "gratuito"
            | "grátis"
            | "gratuita"
            | "darmowy"
            | "zdarma"
            | "ingyenes"
            | "ilmainen"
            | "бесплатно"
            | "免费"
            | "無料"
            | "무료"
    )
}

/// Normalize a currency value from markup: ISO codes pass, symbols map.
pub fn normalize_currency(v: &str) -> Option<String> {
    let t = v.trim();
    if t.len() == 3 && t.chars().all(|c| c.is_ascii_alphabetic()) {
        return Some(t.to_uppercase());
    }
    for (sym, code) in SYMBOLS {
        if t == *sym || t.eq_ignore_ascii_case(sym) {
            return Some(code.to_string());
        }
    }
    None
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

/// Stock phrases in many languages. Longer and negative phrases come first so
/// "not in stock" is not read as "in stock".
const OUT_PHRASES: &[&str] = &[
    "out of stock",
    "out-of-stock",
    "sold out",
    "currently unavailable",
    "temporarily unavailable",
    "not available",
    "no longer available",
    "unavailable",
    "nicht verfügbar",
    "nicht lieferbar",
    "nicht auf lager",
    "derzeit nicht",
    "ausverkauft",
    "vergriffen",
    "épuisé",
    "epuise",
    "rupture de stock",
    "actuellement indisponible",
    "indisponible",
    "non disponible",
    "agotado",
    "sin stock",
    "no disponible",
    "esaurito",
    "non disponibile",
    "attualmente non disponibile",
    "esgotado",
    "indisponível",
    "sem estoque",
    "sem stock",
    "нет в наличии",
    "распродано",
    "niet op voorraad",
    "uitverkocht",
    "brak w magazynie",
    "niedostępny",
    "wyprzedany",
    "není skladem",
    "vypredané",
    "nie je skladom",
    "slutsåld",
    "udsolgt",
    "loppuunmyyty",
    "stokta yok",
    "tükendi",
    "nincs készleten",
    "品切れ",
    "在庫切れ",
    "缺貨",
    "售完",
    "已售完",
    "缺货",
    "품절",
    "אזל מהמלאי",
    "nu este în stoc",
    "stoc epuizat",
    "ni na zalogi",
    "razprodano",
    "pole laos",
];

const IN_PHRASES: &[&str] = &[
    "in stock",
    "in-stock",
    "available now",
    "ready to ship",
    "only a few left",
    "left in stock",
    "auf lager",
    "lieferbar",
    "sofort verfügbar",
    "vorrätig",
    "en stock",
    "disponible",
    "en existencia",
    "disponibile",
    "disponibilità immediata",
    "em stock",
    "em estoque",
    "в наличии",
    "есть в наличии",
    "op voorraad",
    "na stanie",
    "dostępny",
    "skladem",
    "na sklade",
    "skladom",
    "i lager",
    "på lager",
    "varastossa",
    "stokta",
    "készleten",
    "在庫あり",
    "有庫存",
    "有货",
    "현재 구매 가능",
    "במלאי",
    "în stoc",
    "na zalogi",
    "na voljo",
    "dobavljivo",
    "laos",
];

const PRE_PHRASES: &[&str] = &[
    "pre-order",
    "preorder",
    "vorbestellen",
    "vorbestellung",
    "précommande",
    "pre-ordine",
    "reserva",
    "предзаказ",
];

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
    for p in OUT_PHRASES {
        if contains_phrase(&t, p) {
            return Some(("OutOfStock", true, p.chars().count()));
        }
    }
    for p in PRE_PHRASES {
        if contains_phrase(&t, p) {
            return Some(("PreOrder", false, p.chars().count()));
        }
    }
    for p in IN_PHRASES {
        if contains_phrase(&t, p) {
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

/// Buy-button texts in many languages.
const BUY_PHRASES: &[&str] = &[
    "add to cart",
    "add to basket",
    "add to bag",
    "add to trolley",
    "add to your basket",
    "add to your bag",
    "add to your cart",
    "add to shopping cart",
    "add to shopping bag",
    "buy now",
    "buy it now",
    "in den warenkorb",
    "in den einkaufswagen",
    "zum warenkorb hinzufügen",
    "jetzt kaufen",
    "ajouter au panier",
    "acheter",
    "aggiungi al carrello",
    "acquista ora",
    "compra ora",
    "añadir al carrito",
    "agregar al carrito",
    "añadir a la cesta",
    "comprar",
    "adicionar ao carrinho",
    "adicionar ao cesto",
    "в корзину",
    "купить",
    "dodaj do koszyka",
    "do košíku",
    "do košíka",
    "vložiť do košíka",
    "in winkelwagen",
    "in winkelmand",
    "lägg i varukorgen",
    "læg i kurv",
    "legg i handlekurven",
    "lisää ostoskoriin",
    "sepete ekle",
    "kosárba",
    "adaugă în coș",
    "adauga in cos",
    "lisa ostukorvi",
    "v košarico",
    "dodaj v košarico",
    "カートに入れる",
    "加入購物車",
    "加入购物车",
    "立即購買",
    "立即购买",
    "直接購買",
    "장바구니",
    "구매하기",
    "הוסף לסל",
    "הוספה לסל",
    "לקנייה",
];

/// Whether a text is a buy button's label.
pub fn is_buy_text(text: &str) -> bool {
    let t = text.to_lowercase();
    if t.len() > 60 {
        return false;
    }
    BUY_PHRASES.iter().any(|p| contains_phrase(&t, p))
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

/// Whether a string is a plausible GTIN (8, 12, 13 or 14 digits).
pub fn is_gtin(v: &str) -> bool {
    let d: String = v
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    d.chars().all(|c| c.is_ascii_digit()) && matches!(d.len(), 8 | 12 | 13 | 14)
}
