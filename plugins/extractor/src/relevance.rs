//! Which of a page's links can lead to what the run wants: a link relates
//! to the wanted entity when its anchor text, title or URL path names the
//! entity (any of its forms: plural, synonyms) or a keyword or brand of the
//! query. Related links come first in `links`, and the note
//! `related-links:<n>` tells the host how many there are, so a run reads
//! the category of tents before (or instead of) the camp stove beside it.

use fnhost_synonyms::{singular, GROUPS as SYNONYMS};
use serde_json::Value;

/// What a run wants, as the words a link to it would use.
#[derive(Debug, Clone)]
pub struct Wanted {
    /// Each a sequence of words, singular.
    forms: Vec<Vec<String>>,
}

impl Wanted {
    /// From the request's entity and the host's hints (`keywords`,
    /// `brand`). `None`: any product is wanted, every link may lead to one.
    pub fn of(entity: &str, hints: &Value) -> Option<Wanted> {
        let entity = entity.trim().to_lowercase();
        if entity.is_empty() || matches!(entity.as_str(), "product" | "products" | "item" | "items")
        {
            return None;
        }
        let mut names: Vec<String> = vec![entity.clone()];
        let stem = singular_phrase(&entity);
        for group in SYNONYMS {
            if group.iter().any(|g| singular_phrase(g) == stem) {
                names.extend(group.iter().map(|g| g.to_string()));
            }
        }
        for key in ["keywords"] {
            if let Some(list) = hints.get(key).and_then(Value::as_array) {
                names.extend(list.iter().filter_map(Value::as_str).map(str::to_lowercase));
            }
        }
        if let Some(brand) = hints.get("brand").and_then(Value::as_str) {
            names.push(brand.to_lowercase());
        }
        let mut forms: Vec<Vec<String>> = names
            .iter()
            .map(|n| {
                words(n)
                    .into_iter()
                    .map(|w| singular(&w))
                    .collect::<Vec<_>>()
            })
            .filter(|f: &Vec<String>| !f.is_empty() && f.iter().any(|w| w.len() >= 2))
            .collect();
        forms.sort();
        forms.dedup();
        Some(Wanted { forms })
    }

    /// Does this text (anchor, title or URL path) name what is wanted?
    pub fn named_in(&self, text: &str) -> bool {
        let ws: Vec<String> = words(text).iter().map(|w| singular(w)).collect();
        self.forms
            .iter()
            .any(|form| ws.windows(form.len()).any(|win| win == form.as_slice()))
    }
}

/// Lower-case words of a text or a URL path (split at anything not a
/// letter or digit; "t-shirt" stays one word).
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .flat_map(|w| {
            // "tents-and-shelters" → its parts, "t-shirt" kept whole too.
            let mut out: Vec<String> = w
                .split('-')
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect();
            if w.contains('-') && w.len() <= 12 {
                out.push(w.to_string());
            }
            out
        })
        .filter(|w| !w.is_empty())
        .collect()
}

fn singular_phrase(text: &str) -> String {
    words(text)
        .iter()
        .map(|w| singular(w))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forms_of_an_entity_match_anchors_and_paths() {
        let w = Wanted::of("tent", &json!({})).unwrap();
        assert!(w.named_in("Tents"));
        assert!(w.named_in("/tents/"));
        assert!(w.named_in("Tents & Shelters"));
        assert!(w.named_in("/c/shelters-and-tarps"));
        assert!(!w.named_in("Flarebox Camp Stove"));
        assert!(!w.named_in("/stoves/flarebox-stove.html"));
        assert!(!w.named_in("Attention"), "a word that merely starts alike");
        let s = Wanted::of("sneakers", &json!({})).unwrap();
        assert!(s.named_in("Running Shoes"));
        assert!(s.named_in("Trainers"));
        assert!(Wanted::of("product", &json!({})).is_none());
        let k = Wanted::of("lamp", &json!({ "keywords": ["brass"], "brand": "Lumen" })).unwrap();
        assert!(k.named_in("/brands/lumen/"));
        assert!(k.named_in("Brass fittings"));
    }
}
