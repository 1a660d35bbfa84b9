//! Rule 4, condition: new, used, refurbished.

use super::*;

impl Parser {
    pub(crate) fn read_condition(&mut self) {
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
}
