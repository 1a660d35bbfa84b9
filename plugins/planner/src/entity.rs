//! Rules 8 and 9, entity and keywords: what remains of the query.

use super::*;

impl Parser {
    pub(crate) fn read_entity_and_keywords(&mut self) {
        // Phrases: runs of content tokens (indices), split at used tokens and
        // break words.
        let mut phrases: Vec<Vec<usize>> = vec![vec![]];
        for (i, t) in self.toks.iter().enumerate() {
            if t.soft {
                continue;
            }
            let boundary =
                t.used || (t.kind == Kind::Word && BREAK_WORDS.contains(&t.lower.as_str()));
            if boundary {
                if !phrases.last().unwrap().is_empty() {
                    phrases.push(vec![]);
                }
                continue;
            }
            let content = match t.kind {
                Kind::Word => {
                    !STOP_WORDS.contains(&t.lower.as_str())
                        && t.lower.chars().any(|c| c.is_alphanumeric())
                }
                Kind::Num => true,
                _ => false,
            };
            if content {
                phrases.last_mut().unwrap().push(i);
            }
        }
        let head_of = |ph: &Vec<usize>| -> Option<usize> {
            ph.iter().rev().copied().find(|&i| {
                let t = &self.toks[i];
                t.kind == Kind::Word
                    && t.lower.chars().any(|c| c.is_alphabetic())
                    && !t.lower.starts_with(|c: char| c.is_ascii_digit())
            })
        };
        let mut head = None;
        for ph in &phrases {
            if let Some(h) = head_of(ph) {
                if !GENERIC.contains(&self.toks[h].lower.as_str()) {
                    head = Some(h);
                    break;
                }
            }
        }
        if let Some(h) = head {
            self.entity = Some(singular(&self.toks[h].lower));
        }
        let mut kws = std::mem::take(&mut self.keywords);
        for ph in &phrases {
            for &i in ph {
                if Some(i) == head {
                    continue;
                }
                let t = &self.toks[i];
                if GENERIC.contains(&t.lower.as_str()) {
                    continue;
                }
                let w = t.lower.clone();
                if !kws.contains(&w) {
                    kws.push(w);
                }
            }
        }
        self.keywords = kws;
    }

    // -- output ------------------------------------------------------------------------
    pub(crate) fn entity(&self) -> &str {
        self.entity.as_deref().unwrap_or("product")
    }
}
