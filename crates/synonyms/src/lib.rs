//! Names of the same kind of product, and the singular of a word.
//!
//! A query for one name reaches a category named by another (the
//! extractor's link relevance), and a row named by another meets the
//! query's entity (the host's check of a row), so that "shelters" finds the
//! tents and "trainers" the sneakers.

/// Each group names one kind of product, singular.
pub const GROUPS: &[&[&str]] = &[
    &["tent", "shelter"],
    &["sneaker", "trainer", "running shoe", "shoe"],
    &["laptop", "notebook"],
    &[
        "phone",
        "smartphone",
        "mobile phone",
        "cell phone",
        "mobile",
    ],
    &["tv", "television"],
    &["sofa", "couch", "settee"],
    &["headphone", "headset", "earphone", "earbud"],
    &["bike", "bicycle", "cycle"],
    &["jacket", "coat", "parka"],
    &["lamp", "light", "lighting"],
    &["stove", "cooker", "burner"],
    &["backpack", "rucksack", "daypack", "pack"],
    &["t-shirt", "tee", "tshirt"],
    &["trouser", "pant", "jean"],
    &["fridge", "refrigerator"],
    &["watch", "smartwatch"],
    &["monitor", "display", "screen"],
    &["speaker", "soundbar"],
    &["book", "novel"],
];

/// The names of the groups that hold `name` (compared in the singular,
/// word by word), `name` among them; empty when no group holds it.
pub fn names_like(name: &str) -> Vec<&'static str> {
    let wanted = singular_phrase(name);
    GROUPS
        .iter()
        .filter(|group| group.iter().any(|g| singular_phrase(g) == wanted))
        .flat_map(|group| group.iter().copied())
        .collect()
}

/// A word without its plural ending (English-first, deliberately simple).
pub fn singular(word: &str) -> String {
    let w = word;
    if let Some(stem) = w.strip_suffix("ies") {
        if stem.len() >= 2 {
            return format!("{stem}y");
        }
    }
    for suffix in ["ches", "shes", "sses", "xes"] {
        if w.ends_with(suffix) {
            return w[..w.len() - 2].to_string();
        }
    }
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
        return w[..w.len() - 1].to_string();
    }
    w.to_string()
}

/// The lower-case words of a text in the singular, split at anything that
/// is not a letter or a digit.
pub fn singular_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(singular)
        .collect()
}

fn singular_phrase(text: &str) -> String {
    singular_words(text).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_finds_its_group_in_any_number() {
        assert_eq!(names_like("shelters"), vec!["tent", "shelter"]);
        assert!(names_like("Trainers").contains(&"running shoe"));
        assert!(names_like("T-Shirts").contains(&"tee"));
        assert!(names_like("kettle").is_empty());
    }

    #[test]
    fn plurals_become_singular() {
        assert_eq!(singular("batteries"), "battery");
        assert_eq!(singular("watches"), "watch");
        assert_eq!(singular("boxes"), "box");
        assert_eq!(singular("tents"), "tent");
        assert_eq!(singular("glass"), "glass");
        assert_eq!(singular("cactus"), "cactus");
        assert_eq!(singular("bus"), "bus");
    }
}
