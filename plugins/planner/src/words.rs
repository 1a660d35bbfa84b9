//! Word lists and word forms the rules share: stop words, phrase breaks,
//! generic nouns, units, number words, singular and plural.

pub(crate) const STOP_WORDS: &[&str] = &[
    "der",
    "die",
    "das",
    "ein",
    "eine",
    "le",
    "la",
    "les",
    "un",
    "une",
    "a",
    "an",
    "the",
    "me",
    "my",
    "i",
    "we",
    "you",
    "your",
    "our",
    "us",
    "some",
    "any",
    "please",
    "find",
    "show",
    "get",
    "give",
    "list",
    "search",
    "buy",
    "want",
    "need",
    "looking",
    "look",
    "let",
    "is",
    "are",
    "be",
    "that",
    "this",
    "these",
    "those",
    "it",
    "its",
    "all",
    "cheap",
    "cheaper",
    "cheapest",
    "best",
    "good",
    "great",
    "nice",
    "affordable",
    "inexpensive",
    "only",
    "just",
    "also",
    "what",
    "which",
    "can",
    "could",
    "would",
    "should",
    "will",
    "do",
    "does",
    "there",
    "here",
    "online",
    "price",
    "prices",
    "priced",
    "cost",
    "costs",
    "costing",
    "around",
    "about",
    "approximately",
    "roughly",
    "like",
    "really",
    "very",
    "most",
    "least",
    "expensive",
    "priciest",
    "lowest",
    "highest",
    "sorted",
    "sort",
    "ordered",
    "order",
    "available",
    "currently",
    "now",
    "today",
    "top",
    "first",
    "whatever",
    "something",
    "anything",
    "i'm",
    "im",
    "and/or",
    "&",
    "+",
    "-",
    "–",
    "—",
    "~",
    "=",
    "|",
    "/",
];

/// Words that end a noun phrase.
pub(crate) const BREAK_WORDS: &[&str] = &[
    "with", "without", "for", "from", "on", "at", "in", "of", "to", "near", "and", "or", "under",
    "over", "below", "above", "than", "between", "into", "via", "per", "within", "but", "not",
    "no", "nor", "by", "less", "more", "max", "min", "up", "off", "size", "color", "colour", "bei",
    "von", "für", "mit", "auf", "unter", "über", "ab", "bis", "de", "du", "des", "pour", "avec",
    "sur", "chez", "en", "sous",
];

/// Head nouns too vague to be the entity.
pub(crate) const GENERIC: &[&str] = &[
    "deal", "deals", "offer", "offers", "product", "products", "item", "items", "thing", "things",
    "stuff", "option", "options", "result", "results", "listing", "listings", "pair", "pairs",
    "set", "sets", "pack", "packs", "sale", "bargain", "bargains", "one", "ones",
];

/// Words that, after a number, make it a measure rather than a count.
pub(crate) const UNITS: &[&str] = &[
    "person", "persons", "people", "p", "man", "men", "kg", "g", "lb", "lbs", "oz", "gb", "tb",
    "mb", "inch", "inches", "in", "\"", "cm", "mm", "m", "l", "ml", "liter", "liters", "litre",
    "litres", "w", "watt", "watts", "v", "mah", "hz", "ghz", "mp", "k", "x", "seater", "seat",
    "seats", "season", "seasons", "core", "cores", "year", "years", "month", "months", "day",
    "days", "pcs", "pc", "piece", "pieces", "%", "percent", "feet", "ft", "meter", "meters",
    "metre", "metres", "pounds", "ounces", "grams", "gram", "lumen", "lumens", "mph", "rpm",
    "player", "players", "star", "stars", "bit", "bits", "port", "ports", "way", "ply", "ton",
    "tons",
];

pub(crate) const NUMBER_WORDS: &[(&str, u32)] = &[
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("fifteen", 15),
    ("twenty", 20),
    ("dozen", 12),
];

/// Nouns used only in the plural: their singular is the same word.
pub(crate) const SAME_IN_PLURAL: &[&str] = &[
    "headphones",
    "earphones",
    "earbuds",
    "pants",
    "jeans",
    "shorts",
    "glasses",
    "sunglasses",
    "scissors",
    "binoculars",
    "trousers",
    "leggings",
    "goggles",
    "series",
    "species",
    "news",
    "clothes",
    "tights",
    "pliers",
    "tongs",
    "overalls",
];

/// Singular nouns that end in "s".
pub(crate) const SAME_IN_SINGULAR: &[&str] = &[
    "gas", "bus", "lens", "chassis", "analysis", "canvas", "status", "cactus", "iris",
];

/// Make a noun singular ("tents" → "tent", "batteries" → "battery").
pub fn singular(w: &str) -> String {
    const IRREGULAR: &[(&str, &str)] = &[
        ("knives", "knife"),
        ("shelves", "shelf"),
        ("wolves", "wolf"),
        ("leaves", "leaf"),
        ("mice", "mouse"),
        ("children", "child"),
        ("men", "man"),
        ("women", "woman"),
        ("feet", "foot"),
        ("teeth", "tooth"),
        ("geese", "goose"),
        ("shoes", "shoe"),
        ("lenses", "lens"),
        ("buses", "bus"),
        ("boxes", "box"),
        ("people", "person"),
        ("dice", "die"),
        ("halves", "half"),
        ("wives", "wife"),
        ("loaves", "loaf"),
        ("scarves", "scarf"),
        ("hooves", "hoof"),
        ("canvases", "canvas"),
        ("cacti", "cactus"),
    ];
    let lw = w.to_lowercase();
    if SAME_IN_PLURAL.contains(&lw.as_str()) || SAME_IN_SINGULAR.contains(&lw.as_str()) {
        return lw;
    }
    if let Some((_, s)) = IRREGULAR.iter().find(|(p, _)| *p == lw) {
        return s.to_string();
    }
    if lw.len() > 4 && lw.ends_with("ies") && !lw.ends_with("eies") {
        return format!("{}y", &lw[..lw.len() - 3]);
    }
    for suffix in ["ches", "shes", "sses", "xes", "zzes"] {
        if lw.ends_with(suffix) {
            return lw[..lw.len() - 2].to_string();
        }
    }
    if lw.len() > 3
        && lw.ends_with('s')
        && !lw.ends_with("ss")
        && !lw.ends_with("us")
        && !lw.ends_with("is")
    {
        return lw[..lw.len() - 1].to_string();
    }
    lw
}

/// Make a singular noun plural, for sentences ("tent" → "tents").
pub(crate) fn plural(w: &str) -> String {
    if SAME_IN_PLURAL.contains(&w) {
        return w.to_string();
    }
    if let Some(stem) = w.strip_suffix('y') {
        if !stem.is_empty() && !stem.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if ["s", "x", "z", "ch", "sh"].iter().any(|s| w.ends_with(s)) {
        return format!("{w}es");
    }
    format!("{w}s")
}

pub(crate) fn is_plain_int(s: &str) -> Option<u32> {
    if !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()) {
        let n: u32 = s.parse().ok()?;
        (1..=1000).contains(&n).then_some(n)
    } else {
        None
    }
}

pub(crate) fn starts_upper(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_uppercase())
}
