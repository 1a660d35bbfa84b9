//! Rule 1, sources: URLs kept exactly, bare domains made `https://` URLs.

use super::*;

pub(crate) const KNOWN_TLDS: &[&str] = &[
    "com", "net", "org", "io", "co", "uk", "de", "fr", "es", "it", "nl", "be", "at", "ch", "se",
    "no", "dk", "fi", "pl", "cz", "pt", "ie", "eu", "us", "ca", "au", "nz", "jp", "cn", "in", "br",
    "mx", "ru", "kr", "shop", "store", "example", "test", "info", "biz", "app", "dev", "online",
    "site", "tech",
];

/// Words after which any domain-shaped word is read as a source.
pub(crate) const SOURCE_PREPS: &[&str] = &[
    "from", "on", "at", "via", "site", "website", "store", "shop", "bei", "auf", "von", "sur",
    "chez",
];

pub(crate) const LEADING_PUNCT: &[char] = &['(', '[', '{', '"', '\'', '“', '‘', '«', '<'];

pub(crate) const TRAILING_PUNCT: &[char] = &[
    '.', ',', ';', ':', '!', '?', ')', ']', '}', '"', '\'', '”', '’', '»', '>',
];

pub(crate) fn strip_edges(w: &str) -> &str {
    // `<` and `>` are comparators when they precede an amount.
    let w = w.trim_start_matches(|c: char| LEADING_PUNCT.contains(&c) && c != '<');
    w.trim_end_matches(|c: char| TRAILING_PUNCT.contains(&c))
}

/// A URL as written, minus sentence punctuation around it.
pub(crate) fn clean_url(w: &str) -> String {
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

pub(crate) fn is_url(w: &str) -> bool {
    let l = w
        .trim_start_matches(|c: char| LEADING_PUNCT.contains(&c))
        .to_ascii_lowercase();
    (l.starts_with("http://") && l.len() > 7) || (l.starts_with("https://") && l.len() > 8)
}

/// `shop.example` or `shop.example/path`: the host (lowercase) and the rest.
pub(crate) fn domain_shape(w: &str, after_prep: bool) -> Option<(String, String)> {
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

impl Parser {
    pub(crate) fn add_source(&mut self, kind: &'static str, value: String) {
        let s = Source { kind, value };
        if !self.sources.contains(&s) {
            self.sources.push(s);
        }
    }
    pub(crate) fn add_domain(&mut self, host: String, path: String, written: &str) {
        if path.is_empty() || path == "/" {
            self.add_source("domain", host);
        } else {
            let _ = written;
            self.add_source("url", format!("https://{host}{path}"));
        }
    }
}
