//! Rule 5, brand: after a marker word, a well-known brand, or a capitalised
//! word before a lowercase one.

use super::*;

/// Well-known brands (lowercase word sequences), recognised anywhere.
pub(crate) const KNOWN_BRANDS: &[&str] = &[
    "the north face",
    "north face",
    "black diamond",
    "new balance",
    "under armour",
    "sony",
    "apple",
    "samsung",
    "lg",
    "lenovo",
    "dell",
    "hp",
    "asus",
    "acer",
    "msi",
    "microsoft",
    "logitech",
    "bose",
    "sennheiser",
    "jbl",
    "canon",
    "nikon",
    "fujifilm",
    "panasonic",
    "philips",
    "nintendo",
    "google",
    "xiaomi",
    "huawei",
    "nokia",
    "garmin",
    "fitbit",
    "dyson",
    "bosch",
    "makita",
    "dewalt",
    "nike",
    "adidas",
    "puma",
    "reebok",
    "asics",
    "patagonia",
    "columbia",
    "coleman",
    "osprey",
    "salomon",
    "merrell",
    "lego",
    "msr",
    "big agnes",
    "nemo",
    "marmot",
    "vango",
    // The brands of the project's fixture sites (fixtures/sites/README.md).
    "nordpeak",
    "campora",
    "alpenfly",
    "sonora",
];

/// Known brands that are also everyday words.
pub(crate) const COMMON_WORD_BRANDS: &[&str] = &[
    "apple", "puma", "columbia", "nemo", "google", "osprey", "canon",
];

// ---------------------------------------------------------------------------
// Tokens

impl Parser {
    pub(crate) fn brand_word_ok(&self, i: usize) -> bool {
        self.toks.get(i).is_some_and(|t| {
            !t.used
                && t.kind == Kind::Word
                && !STOP_WORDS.contains(&t.lower.as_str())
                && !BREAK_WORDS.contains(&t.lower.as_str())
        })
    }
    pub(crate) fn read_brand_markers(&mut self) {
        const MARKERS: &[&str] = &["from brand", "made by", "manufactured by", "brand", "by"];
        if self.brand.is_some() {
            return;
        }
        for i in 0..self.toks.len() {
            for m in MARKERS {
                let Some(j) = self.phrase_at(i, m) else {
                    continue;
                };
                if !self.brand_word_ok(j) {
                    continue;
                }
                // "brand" after a word is part of a phrase ("Sony brand"): only
                // a marker when what follows is a name.
                let mut end = j + 1;
                let mut allow_amp = true;
                while end < self.toks.len() {
                    let t = &self.toks[end];
                    if t.used
                        || t.kind != Kind::Word
                        || !(starts_upper(&t.text) || allow_amp && t.text == "&")
                    {
                        break;
                    }
                    if STOP_WORDS.contains(&t.lower.as_str()) && t.text != "&"
                        || BREAK_WORDS.contains(&t.lower.as_str())
                    {
                        break;
                    }
                    allow_amp = t.text != "&";
                    end += 1;
                }
                if self.toks[end - 1].text == "&" {
                    end -= 1;
                }
                // A lowercase name is one word ("by sony"); a capitalised one
                // may be several ("by Black Diamond").
                if !starts_upper(&self.toks[j].text) {
                    end = j + 1;
                }
                let name: Vec<&str> = self.toks[j..end].iter().map(|t| t.text.as_str()).collect();
                self.brand = Some(name.join(" "));
                self.use_range(i, end);
                return;
            }
        }
    }
    pub(crate) fn read_known_brands(&mut self, multi_word_only: bool) {
        if self.brand.is_some() {
            return;
        }
        for i in 0..self.toks.len() {
            for b in KNOWN_BRANDS {
                if multi_word_only != b.contains(' ') {
                    continue;
                }
                if let Some(end) = self.phrase_at(i, b) {
                    // Brands that are also common words count only when
                    // capitalised ("Apple laptops", not "apple juice").
                    if COMMON_WORD_BRANDS.contains(b) && !starts_upper(&self.toks[i].text) {
                        continue;
                    }
                    let name: Vec<&str> =
                        self.toks[i..end].iter().map(|t| t.text.as_str()).collect();
                    self.brand = Some(name.join(" "));
                    self.use_soft(i, end);
                    return;
                }
            }
        }
    }
    pub(crate) fn read_capitalised_brand(&mut self) {
        if self.brand.is_some() {
            return;
        }
        for i in 1..self.toks.len() {
            if self.toks[i].word == 0 || !self.brand_word_ok(i) || !starts_upper(&self.toks[i].text)
            {
                continue;
            }
            // The previous token must not be capitalised too (that run
            // started earlier and was already judged), nor a preposition:
            // "gifts for Christmas", "laptops with Intel chips" name no brand.
            let prev = &self.toks[i - 1];
            if prev.kind == Kind::Word
                && !prev.used
                && (starts_upper(&prev.text) || BREAK_WORDS.contains(&prev.lower.as_str()))
            {
                continue;
            }
            let mut end = i + 1;
            while self.brand_word_ok(end) && starts_upper(&self.toks[end].text) {
                end += 1;
            }
            let next_is_noun = self.brand_word_ok(end)
                && self.toks[end]
                    .text
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_lowercase())
                && !UNITS.contains(&self.toks[end].lower.as_str());
            if next_is_noun {
                let name: Vec<&str> = self.toks[i..end].iter().map(|t| t.text.as_str()).collect();
                self.brand = Some(name.join(" "));
                self.use_soft(i, end);
                return;
            }
        }
    }

    // -- count, stock, units -------------------------------------------------------
}
