//! Rule 3, prices: ranges, upper and lower bounds, amounts and currencies.

use super::*;

pub(crate) fn currency_symbol(c: char) -> Option<&'static str> {
    match c {
        '$' => Some("USD"),
        '€' => Some("EUR"),
        '£' => Some("GBP"),
        '¥' => Some("JPY"),
        '₹' => Some("INR"),
        _ => None,
    }
}

pub(crate) fn currency_word(w: &str) -> Option<&'static str> {
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

/// Split a word made only of amounts, currency signs, dashes and comparison
/// signs ("$10-$20", "100€", "<200", "1.299,00") into tokens; `None` for a
/// word that has letters in it (other than a currency code prefix/suffix).
pub(crate) fn split_money_word(w: &str) -> Option<Vec<(String, Kind)>> {
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
pub(crate) fn parse_amount(s: &str) -> Option<String> {
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

pub(crate) fn cmp_decimal(a: &str, b: &str) -> Ordering {
    let (ai, af) = a.split_once('.').unwrap_or((a, ""));
    let (bi, bf) = b.split_once('.').unwrap_or((b, ""));
    ai.len()
        .cmp(&bi.len())
        .then_with(|| ai.cmp(bi))
        .then_with(|| af.trim_end_matches('0').cmp(bf.trim_end_matches('0')))
}

impl Parser {
    /// An amount at `i`: optional currency, number, optional currency.
    /// Returns the amount and the index after it.
    pub(crate) fn money_at(&self, i: usize) -> Option<(Money, usize)> {
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
    pub(crate) fn read_prices(&mut self) {
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
    pub(crate) fn comparator_before(&self, i: usize) -> bool {
        i > 0
            && !self.toks[i - 1].used
            && ["between", "from", "price", "priced", "costing", "range"]
                .contains(&self.toks[i - 1].lower.as_str())
    }
    pub(crate) fn use_comparator_before(&mut self, i: usize) {
        if self.comparator_before(i) {
            self.toks[i - 1].used = true;
        }
    }
    pub(crate) fn note_currency(&mut self, c: Option<&'static str>) {
        if self.currency.is_none() {
            self.currency = c;
        }
    }
    pub(crate) fn set_bound(&mut self, m: Money, is_max: bool) {
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
    pub(crate) fn set_range(&mut self, a: Money, b: Money) {
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
}
