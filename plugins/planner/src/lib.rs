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

mod brand;
mod condition;
mod count;
mod entity;
mod prices;
mod sentinels;
mod sources;
mod stock;
mod words;

use prices::*;
use sources::*;
use words::*;

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

/// The parse itself: the query's words, what each rule consumed, and the
/// intent they add up to. Each rule's methods are in the module named for it.
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
