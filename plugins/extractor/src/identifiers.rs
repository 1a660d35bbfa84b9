//! Product codes the page shows: labelled SKUs, MPNs and GTINs, codes in
//! form fields and scripts, and the code in the page's URL.

use crate::dom::AttrOf as _;
use crate::dom::{Doc, CHROME, HIDDEN, OPTION, RELATED, SKU_NAMED};
use crate::text::is_gtin;
use crate::vocabulary::{IdKind, ID_LABELS, WEAK_LABELS};

fn is_mark(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{200b}' | '\u{feff}')
}

/// The text without direction marks and zero-width characters; copied only
/// when it has some.
fn clean_marks(s: &str) -> std::borrow::Cow<'_, str> {
    if s.is_ascii() || !s.chars().any(is_mark) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(s.chars().filter(|c| !is_mark(*c)).collect())
}

/// No identifier label is longer (in characters).
const LABEL_CHARS: usize = 32;

/// Split a text into a known identifier label and the rest.
fn split_label(text: &str) -> Option<(IdKind, String, &'static str)> {
    // Cheap test first: the text's first letter must start some label; only
    // the labels it starts are compared below.
    static BY_FIRST: std::sync::OnceLock<Vec<(char, &'static str)>> = std::sync::OnceLock::new();
    let by_first = BY_FIRST.get_or_init(|| {
        let mut v: Vec<(char, &str)> = ID_LABELS
            .iter()
            .filter_map(|(l, _)| Some((l.chars().next()?, *l)))
            .collect();
        v.sort_by_key(|(c, _)| *c);
        v
    });
    let lead = text
        .chars()
        .find(|c| c.is_alphanumeric() || *c == '#')?
        .to_lowercase()
        .next()?;
    let from = by_first.partition_point(|(c, _)| *c < lead);
    let to = by_first.partition_point(|(c, _)| *c <= lead);
    if from == to {
        return None;
    }
    // Whether any label starts the text (its lowercase, from its first
    // letter, digit or '#'), before anything is copied: most texts start
    // with none.
    let mut head = ['\0'; LABEL_CHARS];
    let mut len = 0;
    for c in text
        .chars()
        .filter(|c| !is_mark(*c))
        .skip_while(|c| !(c.is_alphanumeric() || *c == '#'))
        .take(LABEL_CHARS)
    {
        head[len] = c.to_lowercase().next().unwrap_or(c);
        len += 1;
    }
    let head = &head[..len];
    let starts_a_label = |label: &str| {
        let mut i = 0;
        label.chars().all(|l| {
            i += 1;
            head.get(i - 1) == Some(&l)
        })
    };
    // (The first of `head` is `lead`: marks are neither letters nor digits.)
    if !by_first[from..to]
        .iter()
        .any(|(_, label)| starts_a_label(label))
    {
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
pub fn of_page(doc: &Doc, page_url: &str, body: &str) -> Ids {
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
        let named_sku = e.named & SKU_NAMED != 0
            && e.hint.split_whitespace().any(|w| {
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
                .attr_of("name")
                .or_else(|| e.el.value().attr_of("id"))
                .unwrap_or("")
                .to_ascii_lowercase();
        let strong = matches!(
            name.as_str(),
            "sku" | "asin" | "product_sku" | "productsku" | "item_sku"
        );
        if !strong {
            continue;
        }
        if let Some(v) = e.el.value().attr_of("value").and_then(id_token) {
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
        .or_else(|| script_sku(doc.scripts()));
    let from_url = pick.is_none();
    let pick = pick.or_else(|| url_identifier(page_url, body));
    // Many products each with its own labelled code are a list, not one
    // product's page (variants carry their codes in form fields instead).
    let single = (strong.is_some() && strong_all.len() < MANY_CODES) || !form_ids.is_empty();
    Ids {
        from_url: from_url && pick.is_some(),
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
    /// `sku` is only the code in the page's URL (which the page repeats):
    /// news and blog URLs carry such numbers too.
    pub from_url: bool,
    /// A code the page labels unambiguously as the product's ("SKU: ...",
    /// "Product code: ...", "Art.-Nr. ...").
    pub strong_sku: Option<String>,
    pub mpn: Option<String>,
    pub gtin: Option<String>,
    /// The page labels one product code or carries it in a form field: the
    /// page of one product.
    pub single: bool,
}

/// The first `"sku": "VALUE"` in the page's scripts (the key also as
/// `SKU`, `productSku`, `product_sku` or `skuId`, either quote, spaces
/// around the colon; VALUE 2 to 40 letters, digits and `._/-`, starting with
/// a letter or digit). Written out rather than as a regex: a regex would be
/// compiled again for every page, each call having a fresh instance.
fn script_sku(scripts: &str) -> Option<String> {
    // Every key holds one of these; (key, where the needle sits in it).
    const KEYS: [(&str, &[(&str, usize)]); 3] = [
        ("sku", &[("sku", 0), ("skuId", 0), ("product_sku", 8)]),
        ("SKU", &[("SKU", 0)]),
        ("Sku", &[("productSku", 7)]),
    ];
    let b = scripts.as_bytes();
    let mut first: Option<(usize, &str)> = None;
    for (needle, keys) in KEYS {
        // Occurrences come in order and a key's quote sits a fixed distance
        // before its needle, so the first that reads whole is this needle's
        // earliest.
        let found = memchr::memmem::find_iter(b, needle).find_map(|at| {
            keys.iter().find_map(|(key, offset)| {
                let quote = at.checked_sub(offset + 1)?;
                sku_at(scripts, quote, key).map(|value| (quote, value))
            })
        });
        if let Some((quote, value)) = found {
            if first.is_none_or(|(q, _)| quote < q) {
                first = Some((quote, value));
            }
        }
    }
    first.and_then(|(_, value)| id_token(value))
}

/// The value of `"KEY" : "VALUE"` when it starts at byte `quote`.
fn sku_at<'a>(s: &'a str, quote: usize, key: &str) -> Option<&'a str> {
    let is_quote = |c: u8| c == b'"' || c == b'\'';
    let b = s.as_bytes();
    let after_key = quote + 1 + key.len();
    if !is_quote(b[quote]) || b.get(quote + 1..after_key)? != key.as_bytes() {
        return None;
    }
    if !is_quote(*b.get(after_key)?) {
        return None;
    }
    let rest = s.get(after_key + 1..)?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix(['"', '\''])?;
    let len = rest
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'/' | b'-'))
        .count();
    let value = &rest[..len];
    let starts_well = value
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let closed = rest[len..].starts_with(['"', '\'']);
    (starts_well && (2..=40).contains(&len) && closed).then_some(value)
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
        if memchr::memmem::find_iter(body.as_bytes(), c.as_bytes())
            .take(3)
            .count()
            >= 3
        {
            return Some(without_letter_prefix(&c, body).unwrap_or(c));
        }
    }
    None
}

/// The number of a URL's code that is one letter and digits ("p100224517"),
/// when the page also gives the number alone as a value (`value="100224517"`,
/// `>100224517<`, `"100224517"`): the letter marks the kind of page, the
/// number is the product's.
fn without_letter_prefix(code: &str, body: &str) -> Option<String> {
    let (first, digits) = code.split_at(1);
    if !first.chars().all(|c| c.is_ascii_alphabetic())
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let b = body.as_bytes();
    memchr::memmem::find_iter(b, digits.as_bytes())
        .any(|at| {
            let before = at.checked_sub(1).map(|i| b[i]);
            let after = b.get(at + digits.len()).copied();
            matches!(before, Some(b'"' | b'\'' | b'>'))
                && matches!(after, Some(b'"' | b'\'' | b'<'))
        })
        .then(|| digits.to_string())
}

#[cfg(test)]
mod script_sku_tests {
    use super::script_sku;

    /// What `script_sku` replaces, as a regex.
    fn by_regex(scripts: &str) -> Option<String> {
        let re = regex::Regex::new(
            r#"["'](?:sku|SKU|productSku|product_sku|skuId)["']\s*:\s*["']([A-Za-z0-9][A-Za-z0-9._/-]{1,39})["']"#,
        )
        .unwrap();
        re.captures(scripts)
            .and_then(|c| c.get(1))
            .and_then(|m| super::id_token(m.as_str()))
    }

    #[test]
    fn every_label_fits_the_quick_test() {
        for (label, _) in crate::vocabulary::ID_LABELS {
            assert!(label.chars().count() <= super::LABEL_CHARS, "{label}");
        }
    }

    #[test]
    fn reads_the_first_sku_key() {
        let cases = [
            (r#"{"name":"x","sku":"AB-123","price":1}"#, Some("AB-123")),
            (r#"{'productSku' : 'ZX9/44'}"#, Some("ZX9/44")),
            (r#"{"product_sku":"1"} {"skuId": "77A"}"#, Some("77A")),
            (r#"{"SKU":"-lead"} {"sku":"ok12"}"#, Some("ok12")),
            (r#"{"skus":"AB12"}"#, None),
        ];
        for (scripts, want) in cases {
            assert_eq!(script_sku(scripts).as_deref(), want, "{scripts}");
            assert_eq!(by_regex(scripts).as_deref(), want, "{scripts}");
        }
    }

    /// Random scripts of key-value pairs, right and nearly right at every
    /// step of the pattern, between pieces of noise: the regex's answer.
    #[test]
    fn agrees_with_the_regex_on_random_scripts() {
        const QUOTES: &[&str] = &["\"", "'", "", "`"];
        const KEYS: &[&str] = &[
            "sku",
            "SKU",
            "Sku",
            "productSku",
            "product_sku",
            "skuId",
            "skus",
            "xsku",
            "product",
        ];
        const SPACES: &[&str] = &["", " ", "\u{a0}", "\n  ", "x"];
        const COLONS: &[&str] = &[":", ":", ";", ""];
        const VALUES: &[&str] = &[
            "AB-123",
            "A",
            "-x1",
            "é1",
            "a.b/c_d",
            "ab12",
            "0123456789012345678901234567890123456789",
            "01234567890123456789012345678901234567890",
        ];
        const NOISE: &[&str] = &["{", "}", ",", "\"", "'", "sku", "_", " ", "é"];
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1d);
        let mut pick = |list: &[&'static str]| list[(next() % list.len() as u64) as usize];
        let mut found = 0;
        for _ in 0..20_000 {
            let mut scripts = String::new();
            for _ in 0..1 + pick(&["", "x", "xx"]).len() {
                scripts.push_str(pick(NOISE));
                for part in [
                    QUOTES, KEYS, QUOTES, SPACES, COLONS, SPACES, QUOTES, VALUES, QUOTES,
                ] {
                    scripts.push_str(pick(part));
                }
            }
            let want = by_regex(&scripts);
            found += usize::from(want.is_some());
            assert_eq!(script_sku(&scripts), want, "for {scripts:?}");
        }
        assert!(found > 100, "only {found} scripts hold a sku");
    }
}
