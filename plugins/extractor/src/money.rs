//! Amounts and currencies as pages write them: numbers in every common
//! locale format, currency signs and codes, "free".

use crate::text::Find as _;

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
        // The same mark grouping thousands and then parting the cents
        // ("1.840.51", as one bolívar shop writes): three-digit groups, then
        // two digits or one.
        let grouped_then_cents = count > 1
            && other == 0
            && last_group.len() <= 2
            && groups[1..groups.len() - 1].iter().all(|g| g.len() == 3)
            && (1..=3).contains(&groups[0].len());
        if grouped_then_cents {
            Some(last)
        } else if count > 1 {
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

/// How many amounts of a text are written next to a currency ("10€ 15€ 40€"
/// is three), counting up to eight.
pub fn amounts_with_currency(text: &str) -> usize {
    numbers_with_currency(text)
        .filter(|(_, _, currency)| currency.is_some())
        .count()
}

/// The first eight numbers of a text, each with the currency written next
/// to it and where the text after the number before it begins.
fn numbers_with_currency(
    text: &str,
) -> impl Iterator<Item = (usize, RawNumber, Option<String>)> + '_ {
    let mut from = Some(0);
    std::iter::from_fn(move || {
        let start = from?;
        let r = scan_number(text, start)?;
        let currency = currency_near(
            last_chars(&text[..r.start], 4),
            first_chars(&text[r.end..], 4),
        );
        from = (r.end < text.len()).then_some(r.end);
        Some((start, r, currency))
    })
    .take(8)
}

/// Parse the current price of a text that may also state a former one:
/// "statt 4.50 CHF 2.25", "was £20 now £15", "au lieu de 30 € 25 €" give the
/// last price written next to a currency; other texts their first price.
pub fn parse_current_price(text: &str) -> Option<Price> {
    minor_units(text).or_else(|| current_price(text).map(|(price, _)| price))
}

/// An amount written in pence or cents alone ("43p", "99¢"): hundredths of
/// the pound, or of the page's currency.
fn minor_units(text: &str) -> Option<Price> {
    let t = text.trim();
    let (digits, currency) = match t.strip_suffix('p') {
        Some(d) => (d, Some("GBP")),
        None => (t.strip_suffix('¢')?, None),
    };
    let digits = digits.trim_end();
    if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    Some(Price {
        value: format!("{}.{:02}", n / 100, n % 100),
        currency: currency.map(String::from),
    })
}

/// Whether a text states a former price and then, apart from it, the
/// current one ("statt 4.50 CHF 2.25", "was £20 now £15"): the text's
/// price is then the current one, not the former ("Save $5, was $25" is
/// not: a former word stands right before its last amount).
pub fn states_former_then_current(text: &str) -> bool {
    current_price(text).is_some_and(|(_, after_former)| after_former)
}

const FORMER_WORDS: [&str; 12] = [
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

/// The current price of a text, and whether a former price stands before
/// it in the text with no former word between the two.
fn current_price(text: &str) -> Option<(Price, bool)> {
    let lower = text.to_lowercase();
    if !FORMER_WORDS.iter().any(|w| lower.has(w)) {
        return parse_price(text).map(|p| (p, false));
    }
    let mut last: Option<Price> = None;
    // Where the amount before the last one ended, and where the last began.
    let (mut before_end, mut last_span) = (None::<usize>, (0, 0));
    for (from, r, currency) in numbers_with_currency(text) {
        // "Save $5" after "was $20 now $15": a saving, not the price.
        let saving = {
            let between = text[from..r.start].to_lowercase();
            SAVING_WORDS.iter().any(|w| between.has(w))
        };
        if let Some(cur) = currency.filter(|_| !saving) {
            if let Some(value) = interpret(&r, false) {
                if last.is_some() {
                    before_end = Some(last_span.1);
                }
                last = Some(Price {
                    value,
                    currency: Some(cur),
                });
                last_span = (r.start, r.end);
            }
        }
    }
    match last {
        Some(price) => {
            let after_former = before_end.is_some_and(|end| {
                let between = text[end..last_span.0].to_lowercase();
                !FORMER_WORDS
                    .iter()
                    .chain(SAVING_WORDS.iter())
                    .any(|w| between.has(w))
            });
            Some((price, after_former))
        }
        None => parse_price(text).map(|p| (p, false)),
    }
}

/// Words of a saving, which a current price never follows directly.
const SAVING_WORDS: [&str; 3] = ["save", "spare", "économisez"];

/// Parse a price from markup (`content="1234.56"`, JSON-LD `"price": "12.5"`).
pub fn parse_machine_price(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    parse_price_from(t, true).map(|p| without_float_noise(p.value))
}

/// A machine amount with the noise of a floating-point sum ("3148.990031",
/// a price computed with its tax) as the cents it stands for ("3148.99"):
/// five decimals or more within a hundredth of a cent of a whole cent, or
/// of an amount of one unit or more ("4873.995201" is shown as 4,874.00).
/// No currency has more than three decimals, and per-unit prices below one
/// unit that do are left as they are.
pub fn without_float_noise(value: String) -> String {
    let Some((units, decimals)) = value.split_once('.') else {
        return value;
    };
    if decimals.len() < 5 || !units.bytes().all(|b| b.is_ascii_digit()) {
        return value;
    }
    let Ok(v) = value.parse::<f64>() else {
        return value;
    };
    let cents = (v * 100.0).round();
    if (v * 100.0 - cents).abs() < 0.01 || v >= 1.0 {
        format!("{:.2}", cents / 100.0)
    } else {
        value
    }
}

fn parse_price_from(text: &str, machine: bool) -> Option<Price> {
    let mut raw = scan_number(text, 0)?;
    // With several numbers, take the first one written next to a currency
    // ("8 offers from 98,65 €" is 98.65).
    if !machine {
        let mut cur = scan_number(text, 0);
        let mut k = 0;
        while let Some(r) = cur {
            let before = last_chars(&text[..r.start], 4);
            if currency_near(before, first_chars(&text[r.end..], 4)).is_some() {
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
    // Currencies of a thousand minor units (Tunisian, Kuwaiti, Bahraini,
    // Omani, Jordanian dinars) write three decimals: "169,000 DT" is 169.
    if !machine
        && currency
            .as_deref()
            .is_some_and(|c| THREE_DECIMALS.contains(&c))
    {
        if let Some(v) = three_decimals(&text[raw.start..raw.end]) {
            value = v;
        }
    }
    Some(Price { value, currency })
}

/// Currencies whose amounts are written with three decimals.
const THREE_DECIMALS: &[&str] = &["TND", "KWD", "BHD", "OMR", "JOD", "LYD", "IQD"];

/// A number whose last separator is followed by exactly three digits and
/// occurs once ("169,000", "2 075,000", "1.299,000"), as units and
/// thousandths.
fn three_decimals(number: &str) -> Option<String> {
    let number = number.trim();
    let at = number.rfind(['.', ','])?;
    let sep = number[at..].chars().next()?;
    let (whole, frac) = (&number[..at], &number[at + 1..]);
    if frac.len() != 3 || !frac.bytes().all(|b| b.is_ascii_digit()) || whole.contains(sep) {
        return None;
    }
    let whole: String = whole.chars().filter(|c| c.is_ascii_digit()).collect();
    let whole = if whole.is_empty() {
        "0".to_string()
    } else {
        whole
    };
    Some(format!("{whole}.{frac}"))
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
    // "Conventional units" of the former Soviet Union's classifieds: dollars.
    ("у.е.", "USD"),
    ("zł", "PLN"),
    ("Kč", "CZK"),
    ("lei", "RON"),
    ("Lei", "RON"),
    ("LEI", "RON"),
    ("Ft", "HUF"),
    // The bolívar (Venezuela; Bolivia's boliviano, written alike, is told
    // by the page's region).
    ("Bs.S", "VES"),
    ("Bs.", "VES"),
    ("Bs", "VES"),
    ("円", "JPY"),
    ("元", "CNY"),
    ("¥", "JPY"),
    // The full-width sign of Japanese and Chinese text.
    ("￥", "JPY"),
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
    ("د.ت", "TND"),
    ("DT", "TND"),
    ("TND", "TND"),
    ("ر.س", "SAR"),
    ("kn", "HRK"),
    ("$", "USD"),
];

const ISO: &[&str] = &[
    "EUR", "USD", "GBP", "CHF", "JPY", "CNY", "RUB", "INR", "PKR", "KRW", "TWD", "ILS", "TRY",
    "PLN", "CZK", "RON", "HUF", "SEK", "NOK", "DKK", "BRL", "ARS", "MXN", "CLP", "COP", "PEN",
    "CAD", "AUD", "NZD", "HKD", "SGD", "THB", "VND", "UAH", "ZAR", "AED", "SAR", "BGN", "HRK",
    "RSD", "IDR", "MYR", "PHP", "EGP", "NGN", "KZT", "BYN", "ISK", "BDT", "KES", "GHS", "QAR",
    "KWD", "BHD", "OMR", "MAD", "LKR", "NPR", "TND", "JOD", "LYD", "IQD", "DZD",
];

/// The currency written right before or after a number.
///
/// The first ISO code in `ISO`'s order that `after` starts with or `before`
/// ends with (as a word), else the first sign of `SYMBOLS` likewise. Each
/// side can hold only one code, so the two are looked up instead of trying
/// every code; a sign is compared only when its end byte is the side's.
fn currency_near(before: &str, after: &str) -> Option<String> {
    let (b, a) = (
        last_chars(before, 6).trim_end(),
        first_chars(after, 6).trim_start(),
    );
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
    let iso = |letters: &[u8]| -> Option<usize> {
        if !letters.iter().all(u8::is_ascii_alphabetic) {
            return None;
        }
        let upper = letters.to_ascii_uppercase();
        ISO.iter()
            .position(|code| code.as_bytes() == upper.as_slice())
    };
    let alphabetic = |c: Option<char>| c.is_some_and(char::is_alphabetic);
    let in_after = a
        .get(..3)
        .and_then(|head| iso(head.as_bytes()))
        .filter(|_| !alphabetic(a[3..].chars().next()));
    let in_before = b
        .len()
        .checked_sub(3)
        .filter(|&at| b.is_char_boundary(at))
        .and_then(|at| iso(&b.as_bytes()[at..]).filter(|_| !alphabetic(b[..at].chars().last())));
    let first_iso = match (in_after, in_before) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    if let Some(i) = first_iso {
        return Some(ISO[i].to_string());
    }
    // Letter signs must stand as words ("5 kn", not "5 knives").
    let starts = |text: &str, mark: &str| -> bool {
        let Some(rest) = text.get(..mark.len()) else {
            return false;
        };
        rest.eq_ignore_ascii_case(mark)
            && (!mark.chars().all(|c| c.is_alphabetic())
                || !alphabetic(text[mark.len()..].chars().next()))
    };
    let ends = |text: &str, mark: &str| -> bool {
        if text.len() < mark.len() || !text.is_char_boundary(text.len() - mark.len()) {
            return false;
        }
        let (head, tail) = text.split_at(text.len() - mark.len());
        tail.eq_ignore_ascii_case(mark)
            && (!mark.chars().all(|c| c.is_alphabetic()) || !alphabetic(head.chars().last()))
    };
    let first = a.bytes().next().map(|c| c.to_ascii_lowercase());
    let last = b.bytes().last().map(|c| c.to_ascii_lowercase());
    for (sym, code) in SYMBOLS {
        let s = sym.as_bytes();
        if (last == Some(s[s.len() - 1].to_ascii_lowercase()) && ends(b, sym))
            || (first == Some(s[0].to_ascii_lowercase()) && starts(a, sym))
        {
            return Some(code.to_string());
        }
    }
    None
}

/// The last `n` characters of a text (all of it when shorter).
fn last_chars(text: &str, n: usize) -> &str {
    if n == 0 {
        return "";
    }
    match text.char_indices().rev().nth(n - 1) {
        Some((i, _)) => &text[i..],
        None => text,
    }
}

/// The first `n` characters of a text (all of it when shorter).
fn first_chars(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Whether a text carries a currency mark at all.
pub fn has_currency_mark(text: &str) -> bool {
    let marks = currency_marks();
    // Signs and non-ASCII marks ("$", "€", "руб", "元") as substrings, only
    // when the text has such characters at all: the signs that occur, found
    // in one pass, then each checked as it stands.
    if text.bytes().any(|b| b >= 0x80 || b == b'$' || b == b'/')
        && marks
            .signs
            .occurrences(text)
            .any(|i| mark_stands(text, marks.signs.pattern(i)))
    {
        return true;
    }
    // Letter codes and abbreviations count only as whole words.
    text.split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| (2..=4).contains(&w.len()) && marks.words.binary_search(&w).is_ok())
}

/// The currency marks of `SYMBOLS` and `ISO`, arranged for
/// `has_currency_mark`: the signs (marks with a character other than a
/// letter or a dot) indexed by first byte, and the words (ISO codes, and letter
/// abbreviations without their final dots) sorted.
struct CurrencyMarks {
    signs: crate::text::Patterns,
    words: Vec<&'static str>,
}

fn currency_marks() -> &'static CurrencyMarks {
    static MARKS: std::sync::OnceLock<CurrencyMarks> = std::sync::OnceLock::new();
    MARKS.get_or_init(|| {
        let sign_list: Vec<&str> = SYMBOLS
            .iter()
            .map(|(s, _)| *s)
            .filter(|s| s.chars().any(|c| !c.is_ascii_alphabetic() && c != '.'))
            .collect();
        let mut words: Vec<&str> = SYMBOLS
            .iter()
            .map(|(s, _)| *s)
            .filter(|s| s.chars().all(|c| c.is_ascii_alphabetic() || c == '.'))
            .map(|s| s.trim_end_matches('.'))
            .chain(ISO.iter().copied())
            .collect();
        words.sort_unstable();
        words.dedup();
        CurrencyMarks {
            signs: crate::text::Patterns::new(sign_list),
            words,
        }
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
/// Play", "Gratis", "Kostenlos", a give-away: "Gis bort", "Zu verschenken"):
/// a price of 0.00, not a missing one.
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
            | "za darmo"
            | "bedava"
            | "ücretsiz"
            | "gratuiti"
            | "gis bort"
            | "ges bort"
            | "gives væk"
            | "bortskänkes"
            | "zu verschenken"
            | "à donner"
            | "se regala"
            | "te koop gratis"
            | "gratis af te halen"
            | "annetaan"
            | "безкоштовно"
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
        let code = t.to_uppercase();
        // The rouble's code before 1998, still in shops' markup.
        if code == "RUR" {
            return Some("RUB".into());
        }
        // Three letters that are no currency's code ("UAN" for the
        // hryvnia) say nothing: the amount's shown sign decides.
        if ISO_4217.binary_search(&code.as_str()).is_ok() {
            return Some(code);
        }
    }
    for (sym, code) in SYMBOLS {
        if t == *sym || t.eq_ignore_ascii_case(sym) {
            return Some(code.to_string());
        }
    }
    None
}

/// The codes of ISO 4217, current and recently withdrawn (which old pages
/// still carry), sorted.
const ISO_4217: &[&str] = &[
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
    "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BYR",
    "BZD", "CAD", "CDF", "CHE", "CHF", "CHW", "CLF", "CLP", "CNY", "COP", "COU", "CRC", "CUC",
    "CUP", "CVE", "CYP", "CZK", "DEM", "DJF", "DKK", "DOP", "DZD", "EEK", "EGP", "ERN", "ETB",
    "EUR", "FJD", "FKP", "FRF", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD",
    "HNL", "HRK", "HTG", "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY",
    "KES", "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD",
    "LSL", "LTL", "LVL", "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRO", "MRU",
    "MTL", "MUR", "MVR", "MWK", "MXN", "MXV", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR",
    "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB",
    "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SIT", "SKK", "SLE", "SLL", "SOS",
    "SRD", "SSP", "STD", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP", "TRY",
    "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "USN", "UYI", "UYU", "UYW", "UZS", "VED", "VEF",
    "VES", "VND", "VUV", "WST", "XAF", "XAG", "XAU", "XCD", "XCG", "XDR", "XOF", "XPD", "XPF",
    "XPT", "XSU", "XUA", "YER", "ZAR", "ZMK", "ZMW", "ZWG", "ZWL",
];

/// A figure followed by a currency sign and nothing else ("79€", "79 €"):
/// the figure and the sign. A sign written where the decimal point would be
/// has its cents after it, set apart ("79€<sup>95</sup>").
pub(crate) fn sign_after_figure(text: &str) -> Option<(&str, char)> {
    let sign = text.chars().last()?;
    if sign.is_alphanumeric()
        || sign.is_whitespace()
        || !has_currency_mark(sign.encode_utf8(&mut [0; 4]))
    {
        return None;
    }
    let figure = text[..text.len() - sign.len_utf8()].trim_end();
    figure
        .ends_with(|c: char| c.is_ascii_digit())
        .then_some((figure, sign))
}

#[cfg(test)]
mod tests {

    #[test]
    fn float_noise_in_machine_amounts_is_cents() {
        assert_eq!(
            parse_machine_price("3148.990031").as_deref(),
            Some("3148.99")
        );
        assert_eq!(
            parse_machine_price("2598.989976").as_deref(),
            Some("2598.99")
        );
        assert_eq!(
            parse_machine_price("19.989999999999998").as_deref(),
            Some("19.99")
        );
        // A tax computed to six decimals: the cents it is shown as.
        assert_eq!(
            parse_machine_price("4873.995201").as_deref(),
            Some("4874.00")
        );
        assert_eq!(
            parse_machine_price("12667.002801").as_deref(),
            Some("12667.00")
        );
        // Three or four decimals, or a true fraction of a cent below one
        // unit, stay.
        assert_eq!(parse_machine_price("1.599").as_deref(), Some("1.599"));
        assert_eq!(parse_machine_price("0.12345").as_deref(), Some("0.12345"));
        assert_eq!(parse_machine_price("12.5").as_deref(), Some("12.5"));
    }
    use super::*;

    #[test]
    fn only_currency_codes_are_read_as_currencies() {
        assert!(
            ISO_4217.windows(2).all(|w| w[0] < w[1]),
            "sorted, once each"
        );
        assert_eq!(normalize_currency("eur").as_deref(), Some("EUR"));
        assert_eq!(normalize_currency("RUR").as_deref(), Some("RUB"));
        assert_eq!(normalize_currency("UAN"), None);
        assert_eq!(normalize_currency("грн").as_deref(), Some("UAH"));
    }

    /// A classified ad's "conventional units" ("13 200 у.е.") are dollars.
    #[test]
    fn conventional_units_are_dollars() {
        let p = parse_current_price("13 200 у.е.").expect("an amount");
        assert_eq!(
            (p.value.as_str(), p.currency.as_deref()),
            ("13200", Some("USD"))
        );
        assert!(has_currency_mark("7 000 у.е."));
    }

    #[test]
    fn a_current_price_after_a_former_one_is_told_apart() {
        for text in [
            "- 50 % statt 4.50 CHF 2.25",
            "was £20 now £15",
            "au lieu de 30 € 25 €",
            "You save £5 was £25 now £20",
        ] {
            assert!(states_former_then_current(text), "{text}");
        }
        for text in [
            "Save $5, was $25",
            "statt 4.50 CHF",
            "UVP 19,99 €",
            "CHF 7.95",
            "12,99 € 9,99 €",
        ] {
            assert!(!states_former_then_current(text), "{text}");
        }
        assert_eq!(parse_current_price("Save $5, was $25").unwrap().value, "25");
    }

    /// `currency_near` as first written: every code and sign tried in turn.
    fn currency_near_reference(before: &str, after: &str) -> Option<String> {
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

    /// The looked-up codes and the filtered signs find what trying every
    /// code and sign in turn finds.
    #[test]
    fn currency_near_finds_what_trying_every_mark_finds() {
        let mut parts: Vec<&str> = vec![
            " ", "\u{a0}", "1", "9.99", "a", "Z", "é", "ß", "-", "/", ".", "$", "us", "Us ", "kr",
            "KR.", "knives", "lei", "x", "руб", "лв", "€", "元", "د.إ", "ر.س", "CDN", "US", "NT",
        ];
        parts.extend(ISO.iter().take(12));
        parts.extend(SYMBOLS.iter().map(|(s, _)| *s));
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1d);
        let mut text = || {
            let mut s = String::new();
            for _ in 0..next() % 5 {
                s.push_str(parts[(next() % parts.len() as u64) as usize]);
            }
            s
        };
        for _ in 0..60_000 {
            let (before, after) = (text(), text());
            assert_eq!(
                currency_near(&before, &after),
                currency_near_reference(&before, &after),
                "for {before:?} | {after:?}"
            );
        }
    }

    #[test]
    fn first_and_last_characters() {
        assert_eq!(last_chars("a€bcd", 3), "bcd");
        assert_eq!(last_chars("a€bcd", 4), "€bcd");
        assert_eq!(last_chars("ab", 6), "ab");
        assert_eq!(last_chars("ab", 0), "");
        assert_eq!(first_chars("€ab", 2), "€a");
        assert_eq!(first_chars("ab", 6), "ab");
    }
}
