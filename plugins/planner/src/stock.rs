//! Rule 7, stock ("in stock"), and unit words read with their numbers.

use super::*;

impl Parser {
    pub(crate) fn read_stock(&mut self) {
        for i in 0..self.toks.len() {
            for p in ["in stock", "in-stock", "available now", "on stock"] {
                if let Some(end) = self.phrase_at(i, p) {
                    self.in_stock = true;
                    self.use_range(i, end);
                }
            }
        }
    }
    pub(crate) fn read_units(&mut self) {
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
}
