//! The built-in planner: a deterministic parser of natural-language shopping
//! queries.
//!
//! [`plan`] reads a query such as "tents under $200 from outdoor-gear.example"
//! into a parsed intent (entity, constraints, sources) and judges whether a
//! run could deliver: without a named URL or domain there is nothing to read,
//! so `would_run` is false. The query is only ever data: words that look like
//! commands are read as words, prices in them as prices.
//!
//! The rules, in the order they are applied to the query's words:
//!
//! 1. Sources: `http(s)://` URLs (kept exactly, minus trailing sentence
//!    punctuation); bare domains (`site:shop.example`, a domain after
//!    `from`/`on`/`at`/`via`, or any domain with a well-known top-level
//!    domain such as `.com`, `.de`, `.example`). A bare domain with a path
//!    becomes an `https://` URL.
//! 2. Test sentinels (`FN_TEST_DECLINE`, ...) are set aside, never keywords.
//! 3. Prices: ranges ("between $10 and $20", "$10-$20", "from 10 to 20 EUR"),
//!    upper bounds ("under", "below", "less than", "cheaper than", "at most",
//!    "max", "up to", "no more than", "budget", "<", "or less" after the
//!    amount), lower bounds ("over", "above", "more than", "at least", "min",
//!    "from", "starting at", ">", "or more"/"+" after the amount). A bare
//!    amount with a currency ("$150") is read as an upper bound and says so
//!    in `notes`. Amounts accept `1,299.00`, `1.299,00`, `12,99`; currencies
//!    `$` USD, `€` EUR, `£` GBP, `¥` JPY and ISO codes.
//! 4. Condition: new ("new", "brand new"), used ("used", "second-hand",
//!    "pre-owned"), refurbished ("refurbished", "refurb", "renewed").
//! 5. Brand: after "brand", "by", "from brand", "made by"; a well-known brand
//!    name anywhere; a capitalised word (or run of them) in mid-query directly
//!    before a lowercase word ("cheap Nordpeak tents").
//! 6. Count: "top 10", "cheapest 5", "first 3", or a whole number before a
//!    noun at the start of a phrase ("3 laptops"). "cheapest" also sets
//!    `sort: "price_asc"`, "most expensive" `sort: "price_desc"`.
//! 7. "in stock" sets `availability: "InStock"`.
//!    German and French bound words ("unter", "bis", "ab", "über", "moins
//!    de", "plus de") are understood too.
//! 8. Entity: the last noun of the first phrase that is not a generic word
//!    ("deals", "products"), made singular. Phrases are split by prepositions,
//!    conjunctions and by whatever the rules above consumed.
//! 9. Keywords: the other remaining words, lowercase, minus stop words.

#[cfg(target_arch = "wasm32")]
mod component;

use serde_json::{json, Map, Value};
use std::cmp::Ordering;

/// The planner's reading of a query.
#[derive(Debug, Clone)]
pub struct Plan {
    pub would_run: bool,
    /// The parsed intent (see the WIT `planning.estimate.parsed` docs).
    pub parsed: Value,
    pub missing: Vec<String>,
    pub reason: String,
}

/// Parse a query.
pub fn plan(query: &str) -> Plan {
    let p = Parser::parse(query);
    let parsed = p.to_json(query);
    if query.trim().is_empty() {
        return Plan {
            would_run: false,
            parsed,
            missing: vec!["query".into()],
            reason: "the query is empty: say what to look for and where, for example \"tents under $200 from outdoor-gear.example\"".into(),
        };
    }
    if p.sources.is_empty() {
        return Plan {
            would_run: false,
            parsed,
            missing: vec!["source".into()],
            reason: format!(
                "no source named: the query names no URL or site to read {}, so a run could not deliver; name one, for example \"from shop.example\" or a full https:// URL",
                p.summary()
            ),
        };
    }
    let n = p.sources.len();
    let names: Vec<&str> = p.sources.iter().map(|s| s.value.as_str()).collect();
    Plan {
        would_run: true,
        parsed,
        missing: vec![],
        reason: format!(
            "will read {n} named source{} ({}) for {}",
            if n == 1 { "" } else { "s" },
            names.join(", "),
            p.summary()
        ),
    }
}

// ---------------------------------------------------------------------------
// Word lists

const KNOWN_TLDS: &[&str] = &[
    "com", "net", "org", "io", "co", "uk", "de", "fr", "es", "it", "nl", "be", "at", "ch", "se",
    "no", "dk", "fi", "pl", "cz", "pt", "ie", "eu", "us", "ca", "au", "nz", "jp", "cn", "in", "br",
    "mx", "ru", "kr", "shop", "store", "example", "test", "info", "biz", "app", "dev", "online",
    "site", "tech",
];

/// Words after which any domain-shaped word is read as a source.
const SOURCE_PREPS: &[&str] = &[
    "from", "on", "at", "via", "site", "website", "store", "shop", "bei", "auf", "von", "sur",
    "chez",
];

const STOP_WORDS: &[&str] = &[
    "der",
    "die",
    "das",
    "ein",
    "eine",
    "le",
    "la",
    "les",
    "un",
    "une",
    "a",
    "an",
    "the",
    "me",
    "my",
    "i",
    "we",
    "you",
    "your",
    "our",
    "us",
    "some",
    "any",
    "please",
    "find",
    "show",
    "get",
    "give",
    "list",
    "search",
    "buy",
    "want",
    "need",
    "looking",
    "look",
    "let",
    "is",
    "are",
    "be",
    "that",
    "this",
    "these",
    "those",
    "it",
    "its",
    "all",
    "cheap",
    "cheaper",
    "cheapest",
    "best",
    "good",
    "great",
    "nice",
    "affordable",
    "inexpensive",
    "only",
    "just",
    "also",
    "what",
    "which",
    "can",
    "could",
    "would",
    "should",
    "will",
    "do",
    "does",
    "there",
    "here",
    "online",
    "price",
    "prices",
    "priced",
    "cost",
    "costs",
    "costing",
    "around",
    "about",
    "approximately",
    "roughly",
    "like",
    "really",
    "very",
    "most",
    "least",
    "expensive",
    "priciest",
    "lowest",
    "highest",
    "sorted",
    "sort",
    "ordered",
    "order",
    "available",
    "currently",
    "now",
    "today",
    "top",
    "first",
    "whatever",
    "something",
    "anything",
    "i'm",
    "im",
    "and/or",
    "&",
    "+",
    "-",
    "–",
    "—",
    "~",
    "=",
    "|",
    "/",
];

/// Words that end a noun phrase.
const BREAK_WORDS: &[&str] = &[
    "with", "without", "for", "from", "on", "at", "in", "of", "to", "near", "and", "or", "under",
    "over", "below", "above", "than", "between", "into", "via", "per", "within", "but", "not",
    "no", "nor", "by", "less", "more", "max", "min", "up", "off", "size", "color", "colour", "bei",
    "von", "für", "mit", "auf", "unter", "über", "ab", "bis", "de", "du", "des", "pour", "avec",
    "sur", "chez", "en", "sous",
];

/// Head nouns too vague to be the entity.
const GENERIC: &[&str] = &[
    "deal", "deals", "offer", "offers", "product", "products", "item", "items", "thing", "things",
    "stuff", "option", "options", "result", "results", "listing", "listings", "pair", "pairs",
    "set", "sets", "pack", "packs", "sale", "bargain", "bargains", "one", "ones",
];

/// Words that, after a number, make it a measure rather than a count.
const UNITS: &[&str] = &[
    "person", "persons", "people", "p", "man", "men", "kg", "g", "lb", "lbs", "oz", "gb", "tb",
    "mb", "inch", "inches", "in", "\"", "cm", "mm", "m", "l", "ml", "liter", "liters", "litre",
    "litres", "w", "watt", "watts", "v", "mah", "hz", "ghz", "mp", "k", "x", "seater", "seat",
    "seats", "season", "seasons", "core", "cores", "year", "years", "month", "months", "day",
    "days", "pcs", "pc", "piece", "pieces", "%", "percent", "feet", "ft", "meter", "meters",
    "metre", "metres", "pounds", "ounces", "grams", "gram", "lumen", "lumens", "mph", "rpm",
    "player", "players", "star", "stars", "bit", "bits", "port", "ports", "way", "ply", "ton",
    "tons",
];

const NUMBER_WORDS: &[(&str, u32)] = &[
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("fifteen", 15),
    ("twenty", 20),
    ("dozen", 12),
];

/// Well-known brands (lowercase word sequences), recognised anywhere.
const KNOWN_BRANDS: &[&str] = &[
    "the north face",
    "north face",
    "black diamond",
    "new balance",
    "under armour",
    "sony",
    "apple",
    "samsung",
    "lg",
    "lenovo",
    "dell",
    "hp",
    "asus",
    "acer",
    "msi",
    "microsoft",
    "logitech",
    "bose",
    "sennheiser",
    "jbl",
    "canon",
    "nikon",
    "fujifilm",
    "panasonic",
    "philips",
    "nintendo",
    "google",
    "xiaomi",
    "huawei",
    "nokia",
    "garmin",
    "fitbit",
    "dyson",
    "bosch",
    "makita",
    "dewalt",
    "nike",
    "adidas",
    "puma",
    "reebok",
    "asics",
    "patagonia",
    "columbia",
    "coleman",
    "osprey",
    "salomon",
    "merrell",
    "lego",
    "msr",
    "big agnes",
    "nemo",
    "marmot",
    "vango",
    // The brands of the project's fixture sites (fixtures/sites/README.md).
    "nordpeak",
    "campora",
    "alpenfly",
    "sonora",
];

/// Known brands that are also everyday words.
const COMMON_WORD_BRANDS: &[&str] = &[
    "apple", "puma", "columbia", "nemo", "google", "osprey", "canon",
];

// ---------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Word,
    Num,
    Cur(&'static str),
    Dash,
    /// `<`, `≤` (upper bound) or `>`, `≥` (lower bound) written as symbols.
    CmpMax,
    CmpMin,
    /// A `+` written after an amount ("$100+").
    Plus,
}

#[derive(Debug, Clone)]
struct Tok {
    text: String,
    lower: String,
    kind: Kind,
    used: bool,
    /// Consumed as a modifier inside a noun phrase (brand, condition, count):
    /// unlike other consumed tokens it does not end the phrase.
    soft: bool,
    /// Index of the whitespace-separated word this token came from.
    word: usize,
}

#[derive(Debug, Clone, PartialEq)]
struct Source {
    kind: &'static str,
    value: String,
}

#[derive(Debug, Clone)]
struct Money {
    value: String,
    currency: Option<&'static str>,
}

#[derive(Debug, Default)]
struct Parser {
    toks: Vec<Tok>,
    sources: Vec<Source>,
    sentinels: Vec<String>,
    price_min: Option<String>,
    price_max: Option<String>,
    currency: Option<&'static str>,
    brand: Option<String>,
    condition: Option<&'static str>,
    count: Option<u32>,
    sort: Option<&'static str>,
    in_stock: bool,
    keywords: Vec<String>,
    entity: Option<String>,
    notes: Vec<String>,
}

fn currency_symbol(c: char) -> Option<&'static str> {
    match c {
        '$' => Some("USD"),
        '€' => Some("EUR"),
        '£' => Some("GBP"),
        '¥' => Some("JPY"),
        '₹' => Some("INR"),
        _ => None,
    }
}

fn currency_word(w: &str) -> Option<&'static str> {
    Some(match w {
        "usd" | "us$" | "dollar" | "dollars" | "bucks" => "USD",
        "eur" | "euro" | "euros" => "EUR",
        "gbp" | "sterling" => "GBP",
        "chf" => "CHF",
        "jpy" | "yen" => "JPY",
        "cad" | "c$" => "CAD",
        "aud" | "a$" => "AUD",
        "sek" => "SEK",
        "nok" => "NOK",
        "dkk" => "DKK",
        "pln" => "PLN",
        "inr" => "INR",
        "cny" => "CNY",
        _ => return None,
    })
}

const LEADING_PUNCT: &[char] = &['(', '[', '{', '"', '\'', '“', '‘', '«', '<'];
const TRAILING_PUNCT: &[char] = &[
    '.', ',', ';', ':', '!', '?', ')', ']', '}', '"', '\'', '”', '’', '»', '>',
];

fn strip_edges(w: &str) -> &str {
    // `<` and `>` are comparators when they precede an amount.
    let w = w.trim_start_matches(|c: char| LEADING_PUNCT.contains(&c) && c != '<');
    w.trim_end_matches(|c: char| TRAILING_PUNCT.contains(&c))
}

/// A URL as written, minus sentence punctuation around it.
fn clean_url(w: &str) -> String {
    let w = w.trim_start_matches(|c: char| LEADING_PUNCT.contains(&c));
    let mut s = w.to_string();
    while let Some(last) = s.chars().last() {
        let strip = match last {
            ')' => s.matches('(').count() < s.matches(')').count(),
            ']' => s.matches('[').count() < s.matches(']').count(),
            '.' | ',' | ';' | ':' | '!' | '?' | '"' | '\'' | '”' | '’' | '»' | '>' | '}' => {
                true
            }
            _ => false,
        };
        if !strip {
            break;
        }
        s.pop();
    }
    s
}

fn is_url(w: &str) -> bool {
    let l = w
        .trim_start_matches(|c: char| LEADING_PUNCT.contains(&c))
        .to_ascii_lowercase();
    (l.starts_with("http://") && l.len() > 7) || (l.starts_with("https://") && l.len() > 8)
}

/// `shop.example` or `shop.example/path`: the host (lowercase) and the rest.
fn domain_shape(w: &str, after_prep: bool) -> Option<(String, String)> {
    let (host, rest) = match w.find('/') {
        Some(i) => (&w[..i], &w[i..]),
        None => (w, ""),
    };
    let host = host.to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 {
        return None;
    }
    for l in &labels {
        if l.is_empty() || l.starts_with('-') || l.ends_with('-') {
            return None;
        }
        if !l
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return None;
        }
    }
    let tld = labels[labels.len() - 1];
    if tld.len() < 2 || !tld.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    if !(after_prep || KNOWN_TLDS.contains(&tld) || labels[0] == "www") {
        return None;
    }
    Some((host, rest.to_string()))
}

/// Split a word made only of amounts, currency signs, dashes and comparison
/// signs ("$10-$20", "100€", "<200", "1.299,00") into tokens; `None` for a
/// word that has letters in it (other than a currency code prefix/suffix).
fn split_money_word(w: &str) -> Option<Vec<(String, Kind)>> {
    let lower = w.to_lowercase();
    // A currency code glued to the amount: "usd200", "200eur", "us$200".
    for code in [
        "us$", "c$", "a$", "usd", "eur", "gbp", "chf", "jpy", "cad", "aud",
    ] {
        if let Some(rest) = lower.strip_prefix(code) {
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                let mut v = vec![(w[..code.len()].to_string(), Kind::Cur(currency_word(code)?))];
                v.extend(split_money_word(&w[code.len()..])?);
                return Some(v);
            }
        }
        if let Some(rest) = lower.strip_suffix(code) {
            if rest.ends_with(|c: char| c.is_ascii_digit()) && !code.contains('$') {
                let mut v = split_money_word(&w[..rest.len()])?;
                v.push((w[rest.len()..].to_string(), Kind::Cur(currency_word(code)?)));
                return Some(v);
            }
        }
    }
    let chars: Vec<char> = w.chars().collect();
    if !chars.iter().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || ((chars[i] == '.' || chars[i] == ',')
                        && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit())))
            {
                i += 1;
            }
            out.push((chars[start..i].iter().collect(), Kind::Num));
            continue;
        }
        let kind = if let Some(cur) = currency_symbol(c) {
            Kind::Cur(cur)
        } else {
            match c {
                '-' | '–' | '—' => Kind::Dash,
                '<' | '≤' => Kind::CmpMax,
                '>' | '≥' => Kind::CmpMin,
                '+' => Kind::Plus,
                '=' | '~' => {
                    i += 1;
                    continue;
                }
                _ => return None,
            }
        };
        out.push((c.to_string(), kind));
        i += 1;
    }
    Some(out)
}

/// An amount as a plain decimal string: "1.299,00" → "1299.00",
/// "1,299.00" → "1299.00", "12,99" → "12.99", "1,299" → "1299".
fn parse_amount(s: &str) -> Option<String> {
    if s.is_empty()
        || !s
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    {
        return None;
    }
    let last_dot = s.rfind('.');
    let last_comma = s.rfind(',');
    let decimal_sep = match (last_dot, last_comma) {
        (Some(d), Some(c)) => Some(if d > c { '.' } else { ',' }),
        (Some(_), None) | (None, Some(_)) => {
            let sep = if last_dot.is_some() { '.' } else { ',' };
            let parts: Vec<&str> = s.split(sep).collect();
            let grouped = parts.len() > 2
                || (parts[1].len() == 3 && (1..=3).contains(&parts[0].len()) && parts[0] != "0");
            if grouped {
                None
            } else {
                Some(sep)
            }
        }
        (None, None) => None,
    };
    let (int, frac) = match decimal_sep {
        Some(sep) => {
            let i = s.rfind(sep).unwrap();
            (&s[..i], Some(&s[i + 1..]))
        }
        None => (s, None),
    };
    let int: String = int.chars().filter(|c| c.is_ascii_digit()).collect();
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    match frac {
        Some(f) if !f.is_empty() => Some(format!("{int}.{f}")),
        _ => Some(int.to_string()),
    }
}

fn cmp_decimal(a: &str, b: &str) -> Ordering {
    let (ai, af) = a.split_once('.').unwrap_or((a, ""));
    let (bi, bf) = b.split_once('.').unwrap_or((b, ""));
    ai.len()
        .cmp(&bi.len())
        .then_with(|| ai.cmp(bi))
        .then_with(|| af.trim_end_matches('0').cmp(bf.trim_end_matches('0')))
}

/// Nouns used only in the plural: their singular is the same word.
const SAME_IN_PLURAL: &[&str] = &[
    "headphones",
    "earphones",
    "earbuds",
    "pants",
    "jeans",
    "shorts",
    "glasses",
    "sunglasses",
    "scissors",
    "binoculars",
    "trousers",
    "leggings",
    "goggles",
    "series",
    "species",
    "news",
    "clothes",
    "tights",
    "pliers",
    "tongs",
    "overalls",
];

/// Singular nouns that end in "s".
const SAME_IN_SINGULAR: &[&str] = &[
    "gas", "bus", "lens", "chassis", "analysis", "canvas", "status", "cactus", "iris",
];

/// Make a noun singular ("tents" → "tent", "batteries" → "battery").
pub fn singular(w: &str) -> String {
    const IRREGULAR: &[(&str, &str)] = &[
        ("knives", "knife"),
        ("shelves", "shelf"),
        ("wolves", "wolf"),
        ("leaves", "leaf"),
        ("mice", "mouse"),
        ("children", "child"),
        ("men", "man"),
        ("women", "woman"),
        ("feet", "foot"),
        ("teeth", "tooth"),
        ("geese", "goose"),
        ("shoes", "shoe"),
        ("lenses", "lens"),
        ("buses", "bus"),
        ("boxes", "box"),
        ("people", "person"),
        ("dice", "die"),
        ("halves", "half"),
        ("wives", "wife"),
        ("loaves", "loaf"),
        ("scarves", "scarf"),
        ("hooves", "hoof"),
        ("canvases", "canvas"),
        ("cacti", "cactus"),
    ];
    let lw = w.to_lowercase();
    if SAME_IN_PLURAL.contains(&lw.as_str()) || SAME_IN_SINGULAR.contains(&lw.as_str()) {
        return lw;
    }
    if let Some((_, s)) = IRREGULAR.iter().find(|(p, _)| *p == lw) {
        return s.to_string();
    }
    if lw.len() > 4 && lw.ends_with("ies") && !lw.ends_with("eies") {
        return format!("{}y", &lw[..lw.len() - 3]);
    }
    for suffix in ["ches", "shes", "sses", "xes", "zzes"] {
        if lw.ends_with(suffix) {
            return lw[..lw.len() - 2].to_string();
        }
    }
    if lw.len() > 3
        && lw.ends_with('s')
        && !lw.ends_with("ss")
        && !lw.ends_with("us")
        && !lw.ends_with("is")
    {
        return lw[..lw.len() - 1].to_string();
    }
    lw
}

/// Make a singular noun plural, for sentences ("tent" → "tents").
fn plural(w: &str) -> String {
    if SAME_IN_PLURAL.contains(&w) {
        return w.to_string();
    }
    if let Some(stem) = w.strip_suffix('y') {
        if !stem.is_empty() && !stem.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if ["s", "x", "z", "ch", "sh"].iter().any(|s| w.ends_with(s)) {
        return format!("{w}es");
    }
    format!("{w}s")
}

fn is_plain_int(s: &str) -> Option<u32> {
    if !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()) {
        let n: u32 = s.parse().ok()?;
        (1..=1000).contains(&n).then_some(n)
    } else {
        None
    }
}

fn starts_upper(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_uppercase())
}

impl Parser {
    fn parse(query: &str) -> Parser {
        let mut p = Parser::default();
        p.tokenize(query);
        p.read_sentinels();
        p.read_prices();
        p.read_known_brands(true);
        p.read_condition();
        p.read_brand_markers();
        p.read_known_brands(false);
        p.read_capitalised_brand();
        p.read_count();
        p.read_stock();
        p.read_units();
        p.read_entity_and_keywords();
        p
    }

    // -- tokens ------------------------------------------------------------

    fn tokenize(&mut self, query: &str) {
        let words: Vec<&str> = query.split_whitespace().collect();
        for (wi, raw) in words.iter().enumerate() {
            let prev = if wi > 0 {
                strip_edges(words[wi - 1]).to_lowercase()
            } else {
                String::new()
            };
            if is_url(raw) {
                self.add_source("url", clean_url(raw));
                self.push_used(raw, wi);
                continue;
            }
            match *raw {
                "<" | "<=" | "≤" | "=<" => {
                    self.toks.push(Tok {
                        text: raw.to_string(),
                        lower: raw.to_string(),
                        kind: Kind::CmpMax,
                        used: false,
                        soft: false,
                        word: wi,
                    });
                    continue;
                }
                ">" | ">=" | "≥" | "=>" => {
                    self.toks.push(Tok {
                        text: raw.to_string(),
                        lower: raw.to_string(),
                        kind: Kind::CmpMin,
                        used: false,
                        soft: false,
                        word: wi,
                    });
                    continue;
                }
                "-" | "–" | "—" | "--" => {
                    self.toks.push(Tok {
                        text: raw.to_string(),
                        lower: raw.to_string(),
                        kind: Kind::Dash,
                        used: false,
                        soft: false,
                        word: wi,
                    });
                    continue;
                }
                _ => {}
            }
            let w = strip_edges(raw);
            if w.is_empty() {
                continue;
            }
            let lw = w.to_lowercase();
            if let Some(rest) = lw.strip_prefix("site:") {
                if let Some((host, path)) = domain_shape(rest, true) {
                    self.add_domain(host, path, &w[5..]);
                    self.push_used(w, wi);
                    continue;
                }
            }
            if w.contains('.')
                && !w.starts_with(|c: char| c.is_ascii_digit() || currency_symbol(c).is_some())
            {
                let after_prep = SOURCE_PREPS.contains(&prev.as_str());
                if let Some((host, path)) = domain_shape(w, after_prep) {
                    self.add_domain(host, path, w);
                    self.push_used(w, wi);
                    // The preposition that introduced it is consumed with it.
                    if after_prep {
                        let n = self.toks.len();
                        if n >= 2
                            && self.toks[n - 2].word + 1 == wi
                            && self.toks[n - 2].kind == Kind::Word
                        {
                            self.toks[n - 2].used = true;
                        }
                    }
                    continue;
                }
            }
            if let Some(parts) = split_money_word(w) {
                for (text, kind) in parts {
                    let lower = text.to_lowercase();
                    self.toks.push(Tok {
                        text,
                        lower,
                        kind,
                        used: false,
                        soft: false,
                        word: wi,
                    });
                }
                continue;
            }
            let mut chars = w.chars();
            let lone_symbol = match (chars.next(), chars.next()) {
                (Some(ch), None) => currency_symbol(ch),
                _ => None,
            };
            let kind = match lone_symbol.or_else(|| currency_word(&lw)) {
                Some(c) => Kind::Cur(c),
                None => Kind::Word,
            };
            self.toks.push(Tok {
                text: w.to_string(),
                lower: lw,
                kind,
                used: false,
                soft: false,
                word: wi,
            });
        }
    }

    fn push_used(&mut self, text: &str, wi: usize) {
        self.toks.push(Tok {
            text: text.to_string(),
            lower: text.to_lowercase(),
            kind: Kind::Word,
            used: true,
            soft: false,
            word: wi,
        });
    }

    fn add_source(&mut self, kind: &'static str, value: String) {
        let s = Source { kind, value };
        if !self.sources.contains(&s) {
            self.sources.push(s);
        }
    }

    fn add_domain(&mut self, host: String, path: String, written: &str) {
        if path.is_empty() || path == "/" {
            self.add_source("domain", host);
        } else {
            let _ = written;
            self.add_source("url", format!("https://{host}{path}"));
        }
    }

    fn free(&self, i: usize) -> bool {
        self.toks.get(i).is_some_and(|t| !t.used)
    }

    fn free_word(&self, i: usize, w: &str) -> bool {
        self.toks
            .get(i)
            .is_some_and(|t| !t.used && t.kind == Kind::Word && t.lower == w)
    }

    /// Whether the free words starting at `i` are exactly `phrase`.
    fn phrase_at(&self, i: usize, phrase: &str) -> Option<usize> {
        let mut j = i;
        for w in phrase.split(' ') {
            if !self.free_word(j, w) {
                return None;
            }
            j += 1;
        }
        Some(j)
    }

    fn use_soft(&mut self, from: usize, to: usize) {
        for t in &mut self.toks[from..to] {
            t.used = true;
            t.soft = true;
        }
    }

    fn use_range(&mut self, from: usize, to: usize) {
        for t in &mut self.toks[from..to] {
            t.used = true;
        }
    }

    // -- sentinels -----------------------------------------------------------

    fn read_sentinels(&mut self) {
        for t in &mut self.toks {
            let up = t.text.to_uppercase();
            if !t.used
                && t.kind == Kind::Word
                && up.starts_with("FN_TEST_")
                && up.len() > 8
                && up
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b == b'_' || b.is_ascii_digit())
            {
                t.used = true;
                self.sentinels.push(up);
            }
        }
    }

    // -- prices ----------------------------------------------------------------

    /// An amount at `i`: optional currency, number, optional currency.
    /// Returns the amount and the index after it.
    fn money_at(&self, i: usize) -> Option<(Money, usize)> {
        let mut j = i;
        let mut currency = None;
        if let Some(Kind::Cur(c)) = self.toks.get(j).filter(|t| !t.used).map(|t| t.kind) {
            currency = Some(c);
            j += 1;
        }
        let t = self
            .toks
            .get(j)
            .filter(|t| !t.used && t.kind == Kind::Num)?;
        let value = parse_amount(&t.text)?;
        j += 1;
        if currency.is_none() {
            if let Some(Kind::Cur(c)) = self.toks.get(j).filter(|t| !t.used).map(|t| t.kind) {
                currency = Some(c);
                j += 1;
            }
        }
        if currency.is_none() {
            // "under 2 kg" is a measure, not a price.
            if let Some(next) = self.toks.get(j).filter(|t| !t.used && t.kind == Kind::Word) {
                if UNITS.contains(&next.lower.as_str()) || next.lower.starts_with('-') {
                    return None;
                }
            }
        }
        Some((Money { value, currency }, j))
    }

    fn read_prices(&mut self) {
        const MAX_WORDS: &[&str] = &[
            "no more than",
            "not more than",
            "less than",
            "cheaper than",
            "lower than",
            "at most",
            "up to",
            "under",
            "below",
            "beneath",
            "max",
            "maximum",
            "budget of",
            "budget",
            "within",
            "for under",
            "for less than",
            "not over",
            "no higher than",
            // German and French
            "bis zu",
            "unter",
            "bis",
            "höchstens",
            "maximal",
            "moins de",
            "jusqu'à",
            "sous",
        ];
        const MIN_WORDS: &[&str] = &[
            "no less than",
            "not less than",
            "more than",
            "greater than",
            "higher than",
            "at least",
            "starting at",
            "starting from",
            "from",
            "over",
            "above",
            "min",
            "minimum",
            "upwards of",
            // German and French
            "ab",
            "über",
            "mindestens",
            "plus de",
            "à partir de",
        ];
        const MAX_AFTER: &[&str] = &[
            "or less",
            "or under",
            "and under",
            "or below",
            "or cheaper",
            "max",
            "maximum",
            "at most",
            "tops",
        ];
        const MIN_AFTER: &[&str] = &[
            "or more",
            "and up",
            "and above",
            "or above",
            "or higher",
            "min",
            "minimum",
            "at least",
            "plus",
        ];
        let mut i = 0;
        while i < self.toks.len() {
            if !self.free(i) {
                i += 1;
                continue;
            }
            // between A and B / from A to B
            for (open, mid) in [
                ("between", &["and", "-", "to"][..]),
                ("from", &["to", "-", "until", "till"][..]),
            ] {
                if let Some(j) = self.phrase_at(i, open) {
                    if let Some((a, k)) = self.money_at(j) {
                        let sep = self.toks.get(k).filter(|t| {
                            !t.used && (mid.contains(&t.lower.as_str()) || t.kind == Kind::Dash)
                        });
                        if sep.is_some() {
                            if let Some((b, end)) = self.money_at(k + 1) {
                                self.set_range(a, b);
                                self.use_range(i, end);
                                break;
                            }
                        }
                    }
                }
            }
            if !self.free(i) {
                continue;
            }
            // A-B, A to B (with a currency on one side)
            if let Some((a, k)) = self.money_at(i) {
                if let Some(sep) = self.toks.get(k).filter(|t| !t.used) {
                    if sep.kind == Kind::Dash || sep.lower == "to" {
                        if let Some((b, end)) = self.money_at(k + 1) {
                            // Without a currency, "10-20" is a price range
                            // only after a price word ("priced 10-20").
                            if a.currency.is_some()
                                || b.currency.is_some()
                                || self.comparator_before(i)
                            {
                                self.set_range(a, b);
                                self.use_comparator_before(i);
                                self.use_range(i, end);
                                continue;
                            }
                        }
                    }
                }
            }
            // comparator words or signs, then an amount
            let mut matched = false;
            for (words, is_max) in [(MAX_WORDS, true), (MIN_WORDS, false)] {
                for phrase in words {
                    if let Some(j) = self.phrase_at(i, phrase) {
                        // "from" before an amount without a currency is too
                        // weak ("from 3 shops"): require a currency then.
                        if let Some((m, end)) = self.money_at(j) {
                            if *phrase == "from" && m.currency.is_none() {
                                continue;
                            }
                            self.set_bound(m, is_max);
                            self.use_range(i, end);
                            matched = true;
                            break;
                        }
                    }
                }
                if matched {
                    break;
                }
            }
            if matched {
                continue;
            }
            let sign = self.toks[i].kind;
            if sign == Kind::CmpMax || sign == Kind::CmpMin {
                if let Some((m, end)) = self.money_at(i + 1) {
                    self.set_bound(m, sign == Kind::CmpMax);
                    self.use_range(i, end);
                    continue;
                }
            }
            // an amount with a currency, maybe followed by "or less", "+", ...
            if let Some((m, end)) = self.money_at(i) {
                // "42 max" is too weak without a currency ("size 42 max
                // 120 EUR"); "200 or less" is not.
                let strong = |p: &&&str| {
                    m.currency.is_some() || p.starts_with("or ") || p.starts_with("and ")
                };
                let after_max = MAX_AFTER
                    .iter()
                    .filter(strong)
                    .find_map(|p| self.phrase_at(end, p));
                let after_min = MIN_AFTER
                    .iter()
                    .filter(strong)
                    .find_map(|p| self.phrase_at(end, p))
                    .or_else(|| {
                        self.toks
                            .get(end)
                            .filter(|t| !t.used && t.kind == Kind::Plus && m.currency.is_some())
                            .map(|_| end + 1)
                    });
                if let Some(stop) = after_max {
                    self.set_bound(m, true);
                    self.use_range(i, stop);
                    continue;
                }
                if let Some(stop) = after_min {
                    self.set_bound(m, false);
                    self.use_range(i, stop);
                    continue;
                }
                if m.currency.is_some() {
                    let mut written = String::new();
                    for k in i..end {
                        if k > i && self.toks[k].word != self.toks[k - 1].word {
                            written.push(' ');
                        }
                        written.push_str(&self.toks[k].text);
                    }
                    self.notes
                        .push(format!("read \"{written}\" as a maximum price"));
                    self.set_bound(m, true);
                    self.use_range(i, end);
                    continue;
                }
            }
            i += 1;
        }
    }

    fn comparator_before(&self, i: usize) -> bool {
        i > 0
            && !self.toks[i - 1].used
            && ["between", "from", "price", "priced", "costing", "range"]
                .contains(&self.toks[i - 1].lower.as_str())
    }

    fn use_comparator_before(&mut self, i: usize) {
        if self.comparator_before(i) {
            self.toks[i - 1].used = true;
        }
    }

    fn note_currency(&mut self, c: Option<&'static str>) {
        if self.currency.is_none() {
            self.currency = c;
        }
    }

    fn set_bound(&mut self, m: Money, is_max: bool) {
        self.note_currency(m.currency);
        let slot = if is_max {
            &mut self.price_max
        } else {
            &mut self.price_min
        };
        if slot.is_none() {
            *slot = Some(m.value);
        }
    }

    fn set_range(&mut self, a: Money, b: Money) {
        self.note_currency(a.currency.or(b.currency));
        let (lo, hi) = if cmp_decimal(&a.value, &b.value) == Ordering::Greater {
            (b.value, a.value)
        } else {
            (a.value, b.value)
        };
        if self.price_min.is_none() {
            self.price_min = Some(lo);
        }
        if self.price_max.is_none() {
            self.price_max = Some(hi);
        }
    }

    // -- condition ---------------------------------------------------------------

    fn read_condition(&mut self) {
        const PHRASES: &[(&str, &str)] = &[
            ("brand new", "new"),
            ("brand-new", "new"),
            ("second hand", "used"),
            ("second-hand", "used"),
            ("secondhand", "used"),
            ("pre-owned", "used"),
            ("preowned", "used"),
            ("pre owned", "used"),
            ("used", "used"),
            ("certified refurbished", "refurbished"),
            ("refurbished", "refurbished"),
            ("refurb", "refurbished"),
            ("renewed", "refurbished"),
            ("reconditioned", "refurbished"),
            ("new", "new"),
        ];
        let mut i = 0;
        while i < self.toks.len() {
            for (phrase, cond) in PHRASES {
                if let Some(end) = self.phrase_at(i, phrase) {
                    // "New Balance", "New York": a capitalised "New" before a
                    // capitalised word is a name.
                    if *phrase == "new"
                        && starts_upper(&self.toks[i].text)
                        && self
                            .toks
                            .get(i + 1)
                            .is_some_and(|t| t.kind == Kind::Word && starts_upper(&t.text))
                    {
                        continue;
                    }
                    if self.condition.is_none() {
                        self.condition = Some(cond);
                    }
                    self.use_soft(i, end);
                    break;
                }
            }
            i += 1;
        }
    }

    // -- brand -------------------------------------------------------------------

    fn brand_word_ok(&self, i: usize) -> bool {
        self.toks.get(i).is_some_and(|t| {
            !t.used
                && t.kind == Kind::Word
                && !STOP_WORDS.contains(&t.lower.as_str())
                && !BREAK_WORDS.contains(&t.lower.as_str())
        })
    }

    fn read_brand_markers(&mut self) {
        const MARKERS: &[&str] = &["from brand", "made by", "manufactured by", "brand", "by"];
        if self.brand.is_some() {
            return;
        }
        for i in 0..self.toks.len() {
            for m in MARKERS {
                let Some(j) = self.phrase_at(i, m) else {
                    continue;
                };
                if !self.brand_word_ok(j) {
                    continue;
                }
                // "brand" after a word is part of a phrase ("Sony brand"): only
                // a marker when what follows is a name.
                let mut end = j + 1;
                let mut allow_amp = true;
                while end < self.toks.len() {
                    let t = &self.toks[end];
                    if t.used
                        || t.kind != Kind::Word
                        || !(starts_upper(&t.text) || allow_amp && t.text == "&")
                    {
                        break;
                    }
                    if STOP_WORDS.contains(&t.lower.as_str()) && t.text != "&"
                        || BREAK_WORDS.contains(&t.lower.as_str())
                    {
                        break;
                    }
                    allow_amp = t.text != "&";
                    end += 1;
                }
                if self.toks[end - 1].text == "&" {
                    end -= 1;
                }
                // A lowercase name is one word ("by sony"); a capitalised one
                // may be several ("by Black Diamond").
                if !starts_upper(&self.toks[j].text) {
                    end = j + 1;
                }
                let name: Vec<&str> = self.toks[j..end].iter().map(|t| t.text.as_str()).collect();
                self.brand = Some(name.join(" "));
                self.use_range(i, end);
                return;
            }
        }
    }

    fn read_known_brands(&mut self, multi_word_only: bool) {
        if self.brand.is_some() {
            return;
        }
        for i in 0..self.toks.len() {
            for b in KNOWN_BRANDS {
                if multi_word_only != b.contains(' ') {
                    continue;
                }
                if let Some(end) = self.phrase_at(i, b) {
                    // Brands that are also common words count only when
                    // capitalised ("Apple laptops", not "apple juice").
                    if COMMON_WORD_BRANDS.contains(b) && !starts_upper(&self.toks[i].text) {
                        continue;
                    }
                    let name: Vec<&str> =
                        self.toks[i..end].iter().map(|t| t.text.as_str()).collect();
                    self.brand = Some(name.join(" "));
                    self.use_soft(i, end);
                    return;
                }
            }
        }
    }

    fn read_capitalised_brand(&mut self) {
        if self.brand.is_some() {
            return;
        }
        for i in 1..self.toks.len() {
            if self.toks[i].word == 0 || !self.brand_word_ok(i) || !starts_upper(&self.toks[i].text)
            {
                continue;
            }
            // The previous token must not be capitalised too (that run
            // started earlier and was already judged), nor a preposition:
            // "gifts for Christmas", "laptops with Intel chips" name no brand.
            let prev = &self.toks[i - 1];
            if prev.kind == Kind::Word
                && !prev.used
                && (starts_upper(&prev.text) || BREAK_WORDS.contains(&prev.lower.as_str()))
            {
                continue;
            }
            let mut end = i + 1;
            while self.brand_word_ok(end) && starts_upper(&self.toks[end].text) {
                end += 1;
            }
            let next_is_noun = self.brand_word_ok(end)
                && self.toks[end]
                    .text
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_lowercase())
                && !UNITS.contains(&self.toks[end].lower.as_str());
            if next_is_noun {
                let name: Vec<&str> = self.toks[i..end].iter().map(|t| t.text.as_str()).collect();
                self.brand = Some(name.join(" "));
                self.use_soft(i, end);
                return;
            }
        }
    }

    // -- count, stock, units -------------------------------------------------------

    fn int_at(&self, i: usize) -> Option<u32> {
        let t = self.toks.get(i).filter(|t| !t.used)?;
        match t.kind {
            Kind::Num => is_plain_int(&t.text),
            Kind::Word => NUMBER_WORDS
                .iter()
                .find(|(w, _)| *w == t.lower)
                .map(|(_, n)| *n),
            _ => None,
        }
    }

    /// Whether a noun follows `i`, past any brand or condition words
    /// ("3 refurbished Sony laptops").
    fn followed_by_noun(&self, i: usize) -> bool {
        let mut j = i + 1;
        while self.toks.get(j).is_some_and(|t| t.soft) {
            j += 1;
        }
        self.toks.get(j).is_some_and(|t| {
            !t.used
                && t.kind == Kind::Word
                && !UNITS.contains(&t.lower.as_str())
                && !t.lower.starts_with('-')
                && !BREAK_WORDS.contains(&t.lower.as_str())
        })
    }

    fn read_count(&mut self) {
        for i in 0..self.toks.len() {
            if self.free_word(i, "cheapest")
                || self.phrase_at(i, "lowest priced").is_some()
                || self.free_word(i, "lowest-priced")
            {
                self.sort.get_or_insert("price_asc");
            }
            if self.phrase_at(i, "most expensive").is_some() || self.free_word(i, "priciest") {
                self.sort.get_or_insert("price_desc");
            }
        }
        for i in 0..self.toks.len() {
            let after_qualifier = i > 0
                && [
                    "top",
                    "cheapest",
                    "first",
                    "best",
                    "expensive",
                    "priciest",
                    "lowest-priced",
                ]
                .contains(&self.toks[i - 1].lower.as_str())
                && self.toks[i - 1].kind == Kind::Word;
            let Some(n) = self.int_at(i) else { continue };
            let phrase_start = i == 0 || {
                let p = &self.toks[i - 1];
                // Not after a preposition: "from 10 stores" counts stores,
                // not rows.
                p.used || p.kind != Kind::Word || STOP_WORDS.contains(&p.lower.as_str())
            };
            let unit_follows = self.toks.get(i + 1).is_some_and(|t| {
                !t.used && (UNITS.contains(&t.lower.as_str()) || t.lower.starts_with('-'))
            });
            if (after_qualifier && !unit_follows) || (phrase_start && self.followed_by_noun(i)) {
                self.count = Some(n);
                self.use_soft(i, i + 1);
                return;
            }
        }
    }

    fn read_stock(&mut self) {
        for i in 0..self.toks.len() {
            for p in ["in stock", "in-stock", "available now", "on stock"] {
                if let Some(end) = self.phrase_at(i, p) {
                    self.in_stock = true;
                    self.use_range(i, end);
                }
            }
        }
    }

    fn read_units(&mut self) {
        for i in 0..self.toks.len() {
            if !self.free(i) || self.toks[i].kind != Kind::Num {
                continue;
            }
            if let Some(u) = self
                .toks
                .get(i + 1)
                .filter(|t| !t.used && t.kind == Kind::Word && UNITS.contains(&t.lower.as_str()))
            {
                self.keywords
                    .push(format!("{} {}", self.toks[i].lower, u.lower));
                self.use_range(i, i + 2);
            }
        }
    }

    // -- entity and keywords -------------------------------------------------------

    fn read_entity_and_keywords(&mut self) {
        // Phrases: runs of content tokens (indices), split at used tokens and
        // break words.
        let mut phrases: Vec<Vec<usize>> = vec![vec![]];
        for (i, t) in self.toks.iter().enumerate() {
            if t.soft {
                continue;
            }
            let boundary =
                t.used || (t.kind == Kind::Word && BREAK_WORDS.contains(&t.lower.as_str()));
            if boundary {
                if !phrases.last().unwrap().is_empty() {
                    phrases.push(vec![]);
                }
                continue;
            }
            let content = match t.kind {
                Kind::Word => {
                    !STOP_WORDS.contains(&t.lower.as_str())
                        && t.lower.chars().any(|c| c.is_alphanumeric())
                }
                Kind::Num => true,
                _ => false,
            };
            if content {
                phrases.last_mut().unwrap().push(i);
            }
        }
        let head_of = |ph: &Vec<usize>| -> Option<usize> {
            ph.iter().rev().copied().find(|&i| {
                let t = &self.toks[i];
                t.kind == Kind::Word
                    && t.lower.chars().any(|c| c.is_alphabetic())
                    && !t.lower.starts_with(|c: char| c.is_ascii_digit())
            })
        };
        let mut head = None;
        for ph in &phrases {
            if let Some(h) = head_of(ph) {
                if !GENERIC.contains(&self.toks[h].lower.as_str()) {
                    head = Some(h);
                    break;
                }
            }
        }
        if let Some(h) = head {
            self.entity = Some(singular(&self.toks[h].lower));
        }
        let mut kws = std::mem::take(&mut self.keywords);
        for ph in &phrases {
            for &i in ph {
                if Some(i) == head {
                    continue;
                }
                let t = &self.toks[i];
                if GENERIC.contains(&t.lower.as_str()) {
                    continue;
                }
                let w = t.lower.clone();
                if !kws.contains(&w) {
                    kws.push(w);
                }
            }
        }
        self.keywords = kws;
    }

    // -- output ------------------------------------------------------------------------

    fn entity(&self) -> &str {
        self.entity.as_deref().unwrap_or("product")
    }

    fn to_json(&self, query: &str) -> Value {
        let mut c = Map::new();
        c.insert("price_min".into(), json!(self.price_min));
        c.insert("price_max".into(), json!(self.price_max));
        c.insert("currency".into(), json!(self.currency));
        c.insert("brand".into(), json!(self.brand));
        c.insert("keywords".into(), json!(self.keywords));
        c.insert("condition".into(), json!(self.condition));
        c.insert("count".into(), json!(self.count));
        if self.in_stock {
            c.insert("availability".into(), json!("InStock"));
        }
        if let Some(s) = self.sort {
            c.insert("sort".into(), json!(s));
        }
        let mut out = Map::new();
        out.insert("query".into(), json!(query));
        out.insert("entity".into(), json!(self.entity()));
        out.insert("constraints".into(), Value::Object(c));
        out.insert(
            "sources".into(),
            Value::Array(
                self.sources
                    .iter()
                    .map(|s| json!({"kind": s.kind, "value": s.value}))
                    .collect(),
            ),
        );
        if !self.sentinels.is_empty() {
            out.insert("test_sentinels".into(), json!(self.sentinels));
        }
        if !self.notes.is_empty() {
            out.insert("notes".into(), json!(self.notes));
        }
        Value::Object(out)
    }

    /// "3 used Sony laptops matching gaming under 500 USD".
    fn summary(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(n) = self.count {
            parts.push(n.to_string());
        }
        if let Some(c) = self.condition {
            parts.push(c.to_string());
        }
        if let Some(b) = &self.brand {
            parts.push(b.clone());
        }
        parts.push(if self.count == Some(1) {
            self.entity().to_string()
        } else {
            plural(self.entity())
        });
        if !self.keywords.is_empty() {
            parts.push(format!("matching \"{}\"", self.keywords.join(" ")));
        }
        let cur = self.currency.map(|c| format!(" {c}")).unwrap_or_default();
        match (&self.price_min, &self.price_max) {
            (Some(lo), Some(hi)) => parts.push(format!("between {lo} and {hi}{cur}")),
            (None, Some(hi)) => parts.push(format!("under {hi}{cur}")),
            (Some(lo), None) => parts.push(format!("at least {lo}{cur}")),
            (None, None) => {}
        }
        if self.in_stock {
            parts.push("in stock".into());
        }
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests;
