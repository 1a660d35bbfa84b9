//! Rule 2, test sentinels: set aside, never keywords.

use super::*;

impl Parser {
    pub(crate) fn read_sentinels(&mut self) {
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
}
