//! Rule 6, count and sort: "top 10", "cheapest 5", "3 laptops".

use super::*;

impl Parser {
    pub(crate) fn int_at(&self, i: usize) -> Option<u32> {
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
    pub(crate) fn followed_by_noun(&self, i: usize) -> bool {
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
    pub(crate) fn read_count(&mut self) {
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
}
