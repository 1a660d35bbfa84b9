//! The page's locale, and the currency of an amount once the page's own
//! signals are weighed: a bare "$" or "kr" names a family of currencies, and
//! only the page can say which one it means.
//!
//! Signals, most specific first: the currency the page's markup and data
//! name for its prices (`priceCurrency`, `currencyCode`, `og:price:currency`),
//! the region of `og:locale`, of a locale segment of the page's URL
//! (`/en-ca/`, `?locale=en_CA`), of `<html lang>`, of the `hreflang` that
//! names the page itself, then the host's country domain. When nothing says,
//! a bare sign stays unresolved rather than guessed.

use crate::dom::AttrOf as _;
use crate::dom::Doc;
use crate::text::Find as _;

/// What the page says about where it sells.
#[derive(Debug, Default, Clone)]
pub struct Locale {
    /// The language, lowercased, without region ("en").
    pub lang: String,
    /// The region (ISO 3166 alpha-2, uppercase) the page says it serves.
    pub region: Option<String>,
    /// The host's last label, lowercased ("ca", "com").
    pub tld: String,
    /// The currency the page's markup or embedded data names most often.
    pub data_currency: Option<String>,
    /// The language of the page's script when it states no language
    /// ("zh" for Han text without kana); empty otherwise.
    pub script_lang: &'static str,
}

/// The language a page's visible text is written in, by its script, where
/// the script names one: Han without kana is Chinese, with kana Japanese;
/// Hangul Korean; Hebrew; Thai; Greek. Empty for Latin, Cyrillic and
/// Arabic text (each written in many languages) and for too little text.
fn script_language(doc: &Doc) -> &'static str {
    let (mut han, mut kana, mut hangul, mut hebrew, mut thai, mut greek, mut letters) =
        (0usize, 0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
    for t in &doc.texts {
        for c in t.text.chars().filter(|c| c.is_alphabetic()) {
            letters += 1;
            match c as u32 {
                0x4E00..=0x9FFF | 0x3400..=0x4DBF => han += 1,
                0x3040..=0x30FF => kana += 1,
                0xAC00..=0xD7AF | 0x1100..=0x11FF => hangul += 1,
                0x0590..=0x05FF => hebrew += 1,
                0x0E00..=0x0E7F => thai += 1,
                0x0370..=0x03FF => greek += 1,
                _ => {}
            }
        }
        if letters > 20_000 {
            break;
        }
    }
    // The script of at least a fifth of the letters, and of 50 or more.
    let most = |n: usize| n >= 50 && n * 5 >= letters;
    if most(han + kana) {
        if kana * 20 >= han + kana {
            "ja"
        } else {
            "zh"
        }
    } else if most(hangul) {
        "ko"
    } else if most(hebrew) {
        "he"
    } else if most(thai) {
        "th"
    } else if most(greek) {
        "el"
    } else {
        ""
    }
}

/// Currencies written with a dollar sign, by region.
fn dollar_of(region: &str) -> Option<&'static str> {
    Some(match region {
        "US" | "EC" | "SV" | "PA" | "PR" | "TL" | "ZW" | "FM" | "MH" | "PW" => "USD",
        "CA" => "CAD",
        "AU" => "AUD",
        "NZ" => "NZD",
        "SG" => "SGD",
        "HK" => "HKD",
        "TW" => "TWD",
        "MX" => "MXN",
        "AR" => "ARS",
        "CL" => "CLP",
        "CO" => "COP",
        "UY" => "UYU",
        "DO" => "DOP",
        "JM" => "JMD",
        "TT" => "TTD",
        "BS" => "BSD",
        "BB" => "BBD",
        "BZ" => "BZD",
        "BN" => "BND",
        "FJ" => "FJD",
        "NA" => "NAD",
        "LR" => "LRD",
        "GY" => "GYD",
        "SR" => "SRD",
        _ => return None,
    })
}

const DOLLARS: &[&str] = &[
    "USD", "CAD", "AUD", "NZD", "SGD", "HKD", "TWD", "MXN", "ARS", "CLP", "COP", "UYU", "DOP",
    "JMD", "TTD", "BSD", "BBD", "BZD", "BND", "FJD", "NAD", "LRD", "GYD", "SRD",
];

/// Currencies written "kr", by region.
fn crown_of(region: &str) -> Option<&'static str> {
    Some(match region {
        "SE" => "SEK",
        "NO" | "SJ" => "NOK",
        "DK" | "FO" | "GL" => "DKK",
        "IS" => "ISK",
        _ => return None,
    })
}

const CROWNS: &[&str] = &["SEK", "NOK", "DKK", "ISK"];

/// The region a language implies when it is spoken mostly in one country.
fn region_of_language(lang: &str) -> Option<&'static str> {
    Some(match lang {
        "sv" => "SE",
        "nb" | "nn" | "no" => "NO",
        "da" => "DK",
        "is" => "IS",
        _ => return None,
    })
}

/// The region of a locale tag ("en-CA", "en_ca", "fr-CA", "es-419" gives
/// none).
fn region_of_tag(tag: &str) -> Option<String> {
    let mut parts = tag.trim().split(['-', '_']);
    let lang = parts.next()?;
    if !(2..=3).contains(&lang.len()) || !lang.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    parts
        .find(|p| p.len() == 2 && p.chars().all(|c| c.is_ascii_alphabetic()))
        .map(|p| p.to_ascii_uppercase())
}

/// Language codes that shops put in their URLs.
const LANGUAGES: &[&str] = &[
    "en", "fr", "es", "de", "it", "pt", "nl", "sv", "da", "nb", "no", "fi", "zh", "ja", "ko",
];

/// A locale tag in the URL's path or query ("/en-ca/", "?locale=en_CA").
fn region_of_url(url: &url::Url) -> Option<String> {
    let from_path = url
        .path_segments()
        .into_iter()
        .flatten()
        .take(3)
        .find_map(|s| {
            (s.len() == 5 && matches!(s.as_bytes()[2], b'-' | b'_'))
                .then(|| region_of_tag(s))
                .flatten()
        });
    // A country and a language as the first two segments ("/ca/en/",
    // "/en/au/"): the one that is not a language is the country.
    let pair = || {
        let mut segs = url.path_segments()?;
        let (a, b) = (segs.next()?, segs.next()?);
        let two = |s: &str| s.len() == 2 && s.chars().all(|c| c.is_ascii_alphabetic());
        if !two(a) || !two(b) {
            return None;
        }
        let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
        let country = |s: &str| {
            let up = s.to_ascii_uppercase();
            (dollar_of(&up).is_some() || crown_of(&up).is_some()).then_some(up)
        };
        if LANGUAGES.contains(&b.as_str()) {
            country(&a)
        } else if LANGUAGES.contains(&a.as_str()) {
            country(&b)
        } else {
            None
        }
    };
    from_path.or_else(pair).or_else(|| {
        url.query_pairs().find_map(|(k, v)| {
            matches!(
                k.as_ref(),
                "locale" | "lang" | "language" | "hl" | "region" | "country"
            )
            .then(|| {
                if v.len() == 2 && k != "lang" && k != "language" && k != "hl" {
                    Some(v.to_ascii_uppercase())
                } else {
                    region_of_tag(&v)
                }
            })
            .flatten()
        })
    })
}

/// The currency codes the page's data names for prices, most frequent first
/// (`"priceCurrency":"CAD"`, `"currencyCode": "CAD"`, `"currency":"CAD"`).
fn data_currency(doc: &Doc) -> Option<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    fn count(counts: &mut Vec<(String, usize)>, code: &str) {
        // Only currencies' codes ("UAN" in a shop's markup is none).
        let Some(code) = crate::money::normalize_currency(code) else {
            return;
        };
        match counts.iter_mut().find(|(c, _)| *c == code) {
            Some((_, n)) => *n += 1,
            None => counts.push((code, 1)),
        }
    }
    for (k, v) in &doc.metas {
        if matches!(
            k.as_str(),
            "pricecurrency" | "og:price:currency" | "product:price:currency"
        ) && v.len() == 3
            && v.chars().all(|c| c.is_ascii_alphabetic())
        {
            count(&mut counts, v);
        }
    }
    // One pass of the (SIMD-fast) substring search per text: `currency"`,
    // `Currency"`, `currencyCode"`, `currency_code"`, then `: "XXX"`; in
    // a script's object literal also unquoted keys and single quotes
    // (`currencyCode: 'COP'`, a tag manager's data).
    let mut scan = |text: &str| {
        let mut from = 0;
        for _ in 0..2000 {
            let Some(at) = text[from..].find_str("urrency") else {
                break;
            };
            let start = from + at;
            from = start + 7;
            if !matches!(text[..start].bytes().next_back(), Some(b'c' | b'C')) {
                continue;
            }
            let rest = &text[from..];
            let rest = rest
                .strip_prefix("Code")
                .or_else(|| rest.strip_prefix("_code"))
                .unwrap_or(rest);
            // (Or a script's assignment: `currency = 'VND'`.)
            let rest = match rest.as_bytes().first() {
                Some(b'"' | b'\'') => &rest[1..],
                Some(b' ' | b':' | b'\t' | b'=') => rest,
                _ => continue,
            };
            let rest = rest.trim_start_matches([' ', ':', '\t', '=']);
            let Some(quote) = rest.bytes().next().filter(|q| matches!(q, b'"' | b'\'')) else {
                continue;
            };
            let code = &rest.as_bytes()[1..];
            if code.len() >= 4 && code[3] == quote && code[..3].iter().all(u8::is_ascii_alphabetic)
            {
                count(&mut counts, &rest[1..4]);
            }
        }
    };
    for block in &doc.jsonld {
        scan(block);
    }
    scan(doc.scripts());
    // Else an attribute named for the currency (`<main
    // data-currency-iso-code="COP">`): the hint holds data attributes'
    // names, so only elements so named are read.
    if counts.is_empty() {
        for e in doc.els.iter().filter(|e| e.hint.has("currency")) {
            for (name, value) in e.el.value().attrs() {
                if name.has("currency") && value.len() == 3 {
                    count(&mut counts, value);
                }
            }
        }
    }
    counts.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    counts.into_iter().next().map(|(c, _)| c)
}

/// Whether a top-level domain is a country's (".ca"), not one used as a
/// generic name (".io", ".co", ".tv", ".me", ".ai").
fn country_domain(tld: &str) -> bool {
    tld.len() == 2 && !matches!(tld, "io" | "co" | "tv" | "me" | "ai" | "fm" | "gg" | "ly")
}

impl Locale {
    /// Read the page's locale from its markup and its URL.
    pub fn of(doc: &Doc, page_url: &str) -> Locale {
        let url = url::Url::parse(page_url).ok();
        let host = url
            .as_ref()
            .and_then(|u| u.host_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let tld = host.rsplit('.').next().unwrap_or("").to_string();
        let lang = doc.lang.split(['-', '_']).next().unwrap_or("").to_string();
        // The hreflang that names this very page.
        let own_hreflang = || {
            let page = url.as_ref()?;
            doc.els.iter().find_map(|e| {
                if e.tag != "link" {
                    return None;
                }
                let v = e.el.value();
                let tag = v.attr_of("hreflang")?;
                let href = page.join(v.attr_of("href")?.trim()).ok()?;
                (href.path() == page.path() && href.host_str() == page.host_str())
                    .then(|| region_of_tag(tag))
                    .flatten()
            })
        };
        let region = doc
            .meta("og:locale")
            .and_then(region_of_tag)
            .or_else(|| url.as_ref().and_then(region_of_url))
            .or_else(|| region_of_tag(&doc.lang))
            .or_else(own_hreflang)
            .or_else(|| {
                // A country domain (".ca", ".com.au", ".co.nz").
                country_domain(&tld)
                    .then(|| tld.to_ascii_uppercase())
                    .or_else(|| (tld == "co" && host.ends_with(".com.co")).then(|| "CO".into()))
            })
            .or_else(|| region_of_language(&lang).map(String::from));
        let script_lang = if lang.is_empty() {
            script_language(doc)
        } else {
            ""
        };
        Locale {
            lang,
            region,
            tld,
            data_currency: data_currency(doc),
            script_lang,
        }
    }

    /// The page's language: the one it states, else its script's.
    fn language(&self) -> &str {
        if self.lang.is_empty() {
            self.script_lang
        } else {
            &self.lang
        }
    }

    /// The currency of a bare "$": the page's data currency when it is a
    /// dollar, else the region's dollar; on a page that names no region, the
    /// US dollar when the page is in English (or names no language) on a
    /// generic domain (not a country's); else unresolved.
    pub fn dollar(&self) -> Option<String> {
        if let Some(c) = self
            .data_currency
            .as_deref()
            .filter(|c| DOLLARS.contains(c))
        {
            return Some(c.to_string());
        }
        match self.region.as_deref() {
            Some(r) => Some(dollar_of(r).unwrap_or("USD").to_string()),
            // A generic domain (not a country's) in English, or in no
            // stated language.
            None => (matches!(self.lang.as_str(), "" | "en") && !country_domain(&self.tld))
                .then(|| "USD".to_string()),
        }
    }

    /// The currency of a bare "kr": the data currency when it is a crown,
    /// else the region's crown; else unresolved.
    pub fn crown(&self) -> Option<String> {
        if let Some(c) = self.data_currency.as_deref().filter(|c| CROWNS.contains(c)) {
            return Some(c.to_string());
        }
        self.region
            .as_deref()
            .and_then(crown_of)
            .or_else(|| region_of_language(&self.lang).and_then(crown_of))
            .map(String::from)
    }

    /// The currency of an amount whose sign was read as `code` from the text
    /// `raw`: a bare "$" or "kr" is resolved by the page; "Rs" on a Pakistani
    /// page is PKR; "¥" on a Chinese page is CNY.
    pub fn resolve(&self, code: &str, raw: &str) -> Option<String> {
        let region = self.region.as_deref().unwrap_or("");
        match code {
            "USD" if bare_sign(raw, '$') => self.dollar(),
            "SEK" if !raw.has("SEK") => self.crown(),
            "INR" if region == "PK" => Some("PKR".into()),
            "INR" if region == "LK" => Some("LKR".into()),
            "INR" if region == "NP" => Some("NPR".into()),
            "JPY" if region == "CN" || self.language() == "zh" && region != "JP" => {
                Some("CNY".into())
            }
            "CNY" if region == "TW" => Some("TWD".into()),
            "VES" if region == "BO" => Some("BOB".into()),
            _ => Some(code.to_string()),
        }
    }

    /// The currency of prices printed with no sign at all: the page's data
    /// currency, else its region's currency.
    pub fn default_currency(&self) -> Option<String> {
        if let Some(c) = &self.data_currency {
            return Some(c.clone());
        }
        let by_region = self.region.as_deref().and_then(|r| {
            Some(match r {
                "DE" | "FR" | "IT" | "ES" | "PT" | "NL" | "BE" | "AT" | "FI" | "IE" | "GR"
                | "SK" | "SI" | "EE" | "LV" | "LT" | "LU" | "HR" | "MT" | "CY" => "EUR",
                "GB" | "UK" => "GBP",
                "CH" | "LI" => "CHF",
                "RU" => "RUB",
                "UA" => "UAH",
                "PL" => "PLN",
                "CZ" => "CZK",
                "HU" => "HUF",
                "RO" => "RON",
                "BG" => "BGN",
                "JP" => "JPY",
                "CN" => "CNY",
                "KR" => "KRW",
                "IN" => "INR",
                "PK" => "PKR",
                "IL" => "ILS",
                "TR" => "TRY",
                "BR" => "BRL",
                "ZA" => "ZAR",
                "BD" => "BDT",
                r => return dollar_of(r).or_else(|| crown_of(r)),
            })
        });
        by_region.map(String::from).or_else(|| {
            // A language spoken in one currency area.
            Some(
                // Not the languages of several currency areas (es, pt, fr,
                // de, zh): those need the region.
                match self.language() {
                    "it" | "nl" | "fi" | "el" | "sk" | "sl" | "et" | "lv" | "lt" => "EUR",
                    "ru" => "RUB",
                    "uk" => "UAH",
                    "pl" => "PLN",
                    "cs" => "CZK",
                    "hu" => "HUF",
                    "ro" => "RON",
                    "ja" => "JPY",
                    "ko" => "KRW",
                    "th" => "THB",
                    "he" => "ILS",
                    "tr" => "TRY",
                    "sv" => "SEK",
                    "da" => "DKK",
                    "nb" | "nn" | "no" => "NOK",
                    _ => return None,
                }
                .to_string(),
            )
        })
    }
}

/// Whether the sign in `raw` stands alone: no letters glued before it ("$5",
/// "5 $", not "US$5" or "CA$5", which name their currency).
fn bare_sign(raw: &str, sign: char) -> bool {
    raw.match_indices(sign).all(|(i, _)| {
        let before = &raw[..i];
        !before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && !before.trim_end().ends_with("US")
    }) && !raw.to_ascii_uppercase().has("USD")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locale(html: &str, url: &str) -> Locale {
        let h = crate::tree::Html::parse_document(html);
        let doc = Doc::build(&h);
        Locale::of(&doc, url)
    }

    #[test]
    fn a_bare_dollar_follows_the_page_region() {
        let l = locale(
            r#"<html lang="en-CA"><body></body></html>"#,
            "https://shop.example.com/",
        );
        assert_eq!(l.resolve("USD", "$12.99").as_deref(), Some("CAD"));
        let l = locale(
            r#"<html lang="en"><body></body></html>"#,
            "https://x.example.com/en-ca/search",
        );
        assert_eq!(l.resolve("USD", "$12.99").as_deref(), Some("CAD"));
        let l = locale(
            r#"<html><head><meta property="og:locale" content="en_AU"></head></html>"#,
            "https://x.example.com/",
        );
        assert_eq!(l.resolve("USD", "$5").as_deref(), Some("AUD"));
        let l = locale("<html><body></body></html>", "https://x.example.com.mx/");
        assert_eq!(l.resolve("USD", "$5").as_deref(), Some("MXN"));
        // A sign that names its currency is not overruled.
        assert_eq!(l.resolve("USD", "US$5").as_deref(), Some("USD"));
    }

    #[test]
    fn a_bare_dollar_follows_the_currency_of_the_page_data() {
        let l = locale(
            r#"<html lang="en"><script type="application/ld+json">{"offers":{"priceCurrency":"NZD"}}</script></html>"#,
            "https://x.example.com/",
        );
        assert_eq!(l.resolve("USD", "$5").as_deref(), Some("NZD"));
    }

    #[test]
    fn a_bare_sign_stays_unresolved_when_nothing_says() {
        let l = locale(
            r#"<html lang="es"><body></body></html>"#,
            "https://x.example.com/",
        );
        assert_eq!(l.resolve("USD", "$5"), None);
        let l = locale(r#"<html><body></body></html>"#, "https://x.example.com/");
        assert_eq!(l.resolve("SEK", "99 kr"), None);
        // An English page on a generic domain prices in US dollars.
        let l = locale(
            r#"<html lang="en"><body></body></html>"#,
            "https://x.example.com/",
        );
        assert_eq!(l.resolve("USD", "$5").as_deref(), Some("USD"));
    }

    #[test]
    fn crowns_follow_language_and_domain() {
        let l = locale(
            r#"<html lang="nb"><body></body></html>"#,
            "https://x.example.com/",
        );
        assert_eq!(l.resolve("SEK", "1 299,00 kr").as_deref(), Some("NOK"));
        let l = locale(r#"<html><body></body></html>"#, "https://x.example.dk/");
        assert_eq!(l.resolve("SEK", "kr. 299").as_deref(), Some("DKK"));
        let l = locale(
            r#"<html lang="sv-SE"><body></body></html>"#,
            "https://x.example.com/",
        );
        assert_eq!(l.resolve("SEK", "99 kr").as_deref(), Some("SEK"));
    }

    #[test]
    fn the_hreflang_of_the_page_itself_names_its_region() {
        let l = locale(
            r#"<html lang="en"><head><link rel="alternate" hreflang="en-us" href="https://x.example.com/us/p"><link rel="alternate" hreflang="en-sg" href="/sg/p"></head></html>"#,
            "https://x.example.com/sg/p",
        );
        assert_eq!(l.resolve("USD", "$5").as_deref(), Some("SGD"));
    }

    #[test]
    fn a_bare_dollar_follows_a_script_literal_or_an_attribute_naming_the_currency() {
        // A tag manager's object literal: an unquoted key, single quotes.
        let l = locale(
            r#"<html lang="es"><script>var d = { GAEcommerceData: { currencyCode: 'COP', items: [] } };</script></html>"#,
            "https://x.example.com/",
        );
        assert_eq!(l.resolve("USD", "$1.479.900").as_deref(), Some("COP"));
        let l = locale(
            r#"<html lang="es"><body><main data-currency-iso-code="CLP"><p>$12.990</p></main></body></html>"#,
            "https://x.example.com/",
        );
        assert_eq!(l.resolve("USD", "$12.990").as_deref(), Some("CLP"));
        // Words that merely contain the name are no code.
        let l = locale(
            r#"<html lang="es"><script>var currency = 'dollar'; var currencyFormat = 'MXN';</script><body><div data-currency-switch="yes"></div></body></html>"#,
            "https://x.example.com/",
        );
        assert_eq!(l.resolve("USD", "$5"), None);
    }
}
