//! One pass over the parsed HTML: every element with its heuristic hints and
//! flags, and every visible text in document order.

use crate::text::{Find as _, Words};
use crate::tree::{Element, ElementRef, Html, Node};
use crate::vocabulary::{CART_HINT_WORDS, STOCK_HINT_WORDS};

pub const HIDDEN: u16 = 1;
pub const STRIKE: u16 = 2;
pub const BUTTON: u16 = 4;
pub const LINK: u16 = 8;
pub const OPTION: u16 = 16;
pub const CHROME: u16 = 32; // header, nav, footer, aside
pub const RELATED: u16 = 64; // carousels of other products
pub const HEADING: u16 = 128; // inside h1
pub const SUP: u16 = 256; // inside sup / a fraction-like element
pub const MAIN: u16 = 512; // inside main / article / section
pub const BASKET: u16 = 1024; // inside the shopper's basket widget (a mini cart)

pub struct El<'a> {
    pub el: ElementRef<'a>,
    /// The local name (html5ever lowercases HTML tag names).
    pub tag: &'a str,
    pub parent: Option<usize>,
    /// Lowercased class, id, itemprop and data-attribute names.
    pub hint: String,
    /// Which of "price", "amount" and "cost" the hint holds (`PRICE_NAMED`
    /// and the like), and whether it holds a stock word, a cart word or
    /// "sku" (`STOCK_NAMED`, `CART_NAMED`, `SKU_NAMED`): found in the pass
    /// that reads the hint's other words.
    pub named: u8,
    pub flags: u16,
    pub text_start: usize,
    pub text_end: usize,
    /// One past the last element of this element's subtree (pre-order).
    pub el_end: usize,
}

impl<'a> El<'a> {
    /// Where the element leads when it works as a link: an anchor's `href`,
    /// or an `href` that another element carries for a script to follow (a
    /// masked link: `<span class="link" href="/angebot/31047/">`).
    pub fn href(&self) -> Option<&'a str> {
        href_of(self.tag, self.el.value())
    }
}

/// [`El::href`] of an element by its tag, for the walk that builds the
/// `El`s (its `LINK` flag) and for every reader of links.
fn href_of<'a>(tag: &str, e: &'a Element) -> Option<&'a str> {
    match tag {
        "a" | "span" | "div" | "li" | "td" | "p" => e.attr_of("href"),
        _ => None,
    }
}

pub struct Text {
    pub text: String,
    pub el: usize,
    pub flags: u16,
}

pub struct Doc<'a> {
    pub els: Vec<El<'a>>,
    pub texts: Vec<Text>,
    pub jsonld: Vec<String>,
    /// Inline scripts other than JSON-LD (data layers), read on demand.
    script_els: Vec<ElementRef<'a>>,
    scripts: std::cell::OnceCell<String>,
    /// The visible price candidates, computed once on first use.
    pub prices: std::cell::OnceCell<Vec<crate::price::PriceFound>>,
    /// Meta tags: (property or name or itemprop, content), keys lowercased.
    pub metas: Vec<(String, String)>,
    pub lang: String,
    pub title: String,
    /// Where the page sells (set by the caller once the page URL is known).
    pub locale: crate::locale::Locale,
}

/// The words looked for in every element's hint, all in one pass over it
/// (see [`Words`]): the words that set flags, the words of blocks of other
/// products, an inline `display:none`, and the names `El::named` and
/// `is_hidden` read.
static HINT_WORDS: Words = Words::new(&HINT_WORD_LIST);

const HINT_WORD_LIST: [&str; 45] = concat(&[
    &[
        // Flags (bits 0-5).
        "line-through",
        "strike",
        "product",
        "fraction",
        "cent",
        "decimal",
        // Blocks of other products (bits 6-23).
        "related",
        "recommend",
        "similar",
        "carousel",
        "upsell",
        "up-sell",
        "crosssell",
        "cross-sell",
        "also-bought",
        "also_bought",
        "alsobought",
        "sponsored",
        "recently-viewed",
        "recentlyviewed",
        "others-",
        "sims-",
        "p13n",
        "suggest",
        // Hidden by its style (bit 24; see `hint_of`).
        "display-none",
        // Named like an amount (bits 25-27; see `El::named`).
        "price",
        "amount",
        "cost",
        // What a hidden element's hint or class holds (bits 28-31): read token
        // by token in `is_hidden` only when found here.
        "hid",
        "d-none",
        "invisible",
        "modal",
    ],
    // Named like a stock state (bits 32-39) and like a cart (bits 40-43).
    STOCK_HINT_WORDS,
    CART_HINT_WORDS,
    // Named like a product code (bit 44).
    &["sku"],
]);

/// The parts one after the other, `N` words in all.
const fn concat<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 0;
    let mut p = 0;
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[n] = parts[p][i];
            n += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(n == N);
    out
}

const LINE_THROUGH: u64 = 1;
const STRIKE_WORD: u64 = 1 << 1;
const PRODUCT_WORD: u64 = 1 << 2;
const FRACTION_WORDS: u64 = 0b111 << 3;
const RELATED_WORDS: u64 = ((1 << 18) - 1) << 6;
const DISPLAY_NONE: u64 = 1 << 24;
const NAMED_WORDS: u64 = 0b111 << 25;
const HIDDEN_WORDS: u64 = 0b111 << 28;
const MODAL_WORD: u64 = 1 << 31;
const STOCK_WORDS: u64 = ((1 << STOCK_HINT_WORDS.len()) - 1) << 32;
const CART_WORDS: u64 = ((1 << CART_HINT_WORDS.len()) - 1) << (32 + STOCK_HINT_WORDS.len());
const SKU_WORD: u64 = 1 << (32 + STOCK_HINT_WORDS.len() + CART_HINT_WORDS.len());
/// The hint holds "price".
pub const PRICE_NAMED: u8 = 1;
/// The hint holds "amount" (bit 2 of `El::named`: "cost").
pub const AMOUNT_NAMED: u8 = 1 << 1;
/// The hint holds a word of `vocabulary::STOCK_HINT_WORDS`.
pub const STOCK_NAMED: u8 = 1 << 3;
/// The hint holds a word of `vocabulary::CART_HINT_WORDS`.
pub const CART_NAMED: u8 = 1 << 4;
/// The hint holds "sku".
pub const SKU_NAMED: u8 = 1 << 5;

/// The attributes `is_hidden` asks about, read in the pass that sizes the
/// hint (each as `attr_of` finds it: the first of that name, in no
/// namespace).
#[derive(Default)]
struct Facts<'a> {
    hidden: bool,
    input_type: Option<&'a str>,
    role: Option<&'a str>,
    aria_hidden: Option<&'a str>,
    class: Option<&'a str>,
}

/// Whether an element's hint names the basket widget of the page's header
/// ("elementor-menu-cart", "minicart", WooCommerce's "cart-contents"): its
/// amounts are the basket's total, no product's price.
fn is_basket_widget(hint: &str) -> bool {
    hint.split_ascii_whitespace()
        .filter(|t| !t.starts_with("data-"))
        .any(|t| {
            [
                "minicart",
                "mini-cart",
                "mini_cart",
                "menu-cart",
                "header-cart",
                "headercart",
                "cart-contents",
                "shopping_cart_content",
            ]
            .iter()
            .any(|w| t.has(w))
        })
}

fn hint_of(el: &Element) -> (String, Facts<'_>) {
    // Sized first: one allocation per element instead of one per doubling.
    let mut facts = Facts::default();
    let mut size = 0;
    for a in &el.attrs {
        let (k, v): (&str, &str) = (&a.name.local, &a.value);
        if a.name.prefix.is_none() && a.name.ns.is_empty() {
            let slot = match k {
                "hidden" => {
                    facts.hidden = true;
                    None
                }
                "type" => Some(&mut facts.input_type),
                "role" => Some(&mut facts.role),
                "aria-hidden" => Some(&mut facts.aria_hidden),
                "class" => Some(&mut facts.class),
                _ => None,
            };
            if let Some(slot @ None) = slot {
                *slot = Some(v);
            }
        }
        size += match k {
            "class" | "id" | "itemprop" | "data-testid" | "data-test" | "data-qa"
            | "data-component" | "aria-label" => v.len() + 1,
            "style" => 30,
            _ if k.starts_with("data-") => k.len() + 9,
            _ => 0,
        };
    }
    if size == 0 {
        return (String::new(), facts);
    }
    let mut h = String::with_capacity(size);
    for (k, v) in el.attrs() {
        match k {
            "class" | "id" | "itemprop" | "data-testid" | "data-test" | "data-qa"
            | "data-component" | "aria-label" => {
                push_lowercase(&mut h, v);
                h.push(' ');
            }
            "style" => {
                let mut lower = String::with_capacity(v.len());
                push_lowercase(&mut lower, v);
                if lower.has("line-through") {
                    h.push_str(" line-through ");
                }
                if lower.replace(' ', "").has("display:none") {
                    h.push_str(" display-none ");
                }
            }
            _ if k.starts_with("data-") => {
                h.push_str(k);
                h.push(' ');
                if v.len() < 20 && k.has("strike") && v == "true" {
                    h.push_str(" strike ");
                }
            }
            _ => {}
        }
    }
    (h, facts)
}

/// Whether the words that name an element say it holds other products:
/// its class, id and the like, and the names of its data attributes but
/// for those that hold a number. Such a name says what the number counts:
/// the results block of a search that stores how many suggestions it has
/// (`data-nb-suggestions="0"`) is no block of suggestions, while a
/// widget's `data-sponsored-recs="[...]"` is what it holds.
fn related_by_name(el: &Element) -> bool {
    el.attrs().any(|(k, v)| {
        let named = matches!(
            k,
            "class"
                | "id"
                | "itemprop"
                | "data-testid"
                | "data-test"
                | "data-qa"
                | "data-component"
                | "aria-label"
        );
        let counted = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
        let text = if named {
            v
        } else if k.starts_with("data-") && !counted {
            k
        } else {
            return false;
        };
        let mut lower = String::with_capacity(text.len());
        push_lowercase(&mut lower, text);
        HINT_WORDS.found_in(&lower) & RELATED_WORDS != 0
    })
}

/// The currency an icon's class names ("w-ruble", "fa-rub", "icon-euro",
/// "currency-inr"): a word of a class that is a currency's name or code.
fn currency_icon(hint: &str) -> Option<&'static str> {
    hint.split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(|w| {
            Some(match w {
                "ruble" | "rouble" | "rub" | "rur" => "RUB",
                "euro" | "eur" => "EUR",
                "dollar" | "usd" => "USD",
                "gbp" | "sterling" => "GBP",
                "rupee" | "inr" => "INR",
                "yen" | "jpy" => "JPY",
                "hryvnia" | "uah" => "UAH",
                "tenge" | "kzt" => "KZT",
                "zloty" | "pln" => "PLN",
                "shekel" | "ils" => "ILS",
                _ => return None,
            })
        })
}

/// `s.trim().is_empty()`, without `trim`'s Unicode test for the ASCII
/// white space that fills most texts between tags.
fn is_blank(s: &str) -> bool {
    match s.bytes().position(|b| !b.is_ascii_whitespace()) {
        None => true,
        // An ASCII letter or mark (the vertical tab is Unicode's white
        // space, not ASCII's).
        Some(i) if s.as_bytes()[i].is_ascii() && s.as_bytes()[i] != 0x0B => false,
        Some(i) => s[i..].trim().is_empty(),
    }
}

#[cfg(test)]
#[test]
fn is_blank_is_trim_is_empty() {
    for s in [
        "",
        " ",
        "\n\t  ",
        "\u{0B}",
        " \u{0B} x",
        "\u{A0}",
        "\u{3000}\u{2009}",
        " é",
        "\n\u{A0}€",
        "x",
        "\r\n  1",
    ] {
        assert_eq!(is_blank(s), s.trim().is_empty(), "{s:?}");
    }
}

/// `out.push_str(&v.to_lowercase())` without the copy when `v` is ASCII
/// (class lists and ids almost always are).
fn push_lowercase(out: &mut String, v: &str) {
    if v.is_ascii() {
        let start = out.len();
        out.push_str(v);
        out[start..].make_ascii_lowercase();
    } else {
        out.push_str(&v.to_lowercase());
    }
}

/// Whether an element is hidden; `found`: the `HINT_WORDS` its hint holds.
fn is_hidden(tag: &str, facts: &Facts, hint: &str, found: u64) -> bool {
    if facts.hidden || found & DISPLAY_NONE != 0 {
        return true;
    }
    if tag == "input"
        && facts
            .input_type
            .is_some_and(|t| t.eq_ignore_ascii_case("hidden"))
    {
        return true;
    }
    // A dialog that waits to be opened (a Bootstrap `modal`, a `role=dialog`
    // hidden from view) shows nothing on the page.
    // The hint holds the class lowercased: a class without "modal" in it
    // is not read token by token, nor a hint without any hidden word.
    let dialog = (facts.role == Some("dialog") && facts.aria_hidden == Some("true"))
        || (found & MODAL_WORD != 0
            && facts
                .class
                .is_some_and(|c| c.split_whitespace().any(|t| t == "modal")));
    dialog
        || (found & HIDDEN_WORDS != 0
            && hint.split_whitespace().any(|c| {
                matches!(
                    c,
                    "hidden"
                        | "hide"
                        | "d-none"
                        | "is-hidden"
                        | "a-hidden"
                        | "aok-hidden"
                        | "invisible"
                )
            }))
}

impl<'a> Doc<'a> {
    pub fn build(html: &'a Html) -> Doc<'a> {
        let mut doc = Doc {
            els: Vec::new(),
            texts: Vec::new(),
            jsonld: Vec::new(),
            script_els: Vec::new(),
            scripts: std::cell::OnceCell::new(),
            prices: std::cell::OnceCell::new(),
            metas: Vec::new(),
            lang: String::new(),
            title: String::new(),
            locale: crate::locale::Locale::default(),
        };
        let root = html.root_element();
        doc.walk(root, None, 0, 0);
        doc
    }

    fn walk(&mut self, el: ElementRef<'a>, parent: Option<usize>, inherited: u16, depth: usize) {
        let e = el.value();
        let tag: &'a str = el.value().name();
        match tag {
            "script" => {
                let ty = e.attr_of("type").unwrap_or("").to_ascii_lowercase();
                if ty.has("ld+json") {
                    self.jsonld.push(el.text().collect::<String>());
                } else if !ty.has("template") && !ty.has("html") {
                    self.script_els.push(el);
                }
                return;
            }
            "style" | "noscript" | "template" | "svg" | "iframe" | "object" => return,
            "meta" => {
                let key = e
                    .attr_of("property")
                    .or_else(|| e.attr_of("name"))
                    .or_else(|| e.attr_of("itemprop"));
                if let (Some(k), Some(c)) = (key, e.attr_of("content")) {
                    self.metas
                        .push((k.trim().to_ascii_lowercase(), c.trim().to_string()));
                }
            }
            "html" => {
                if let Some(l) = e.attr_of("lang").or_else(|| e.attr_of("xml:lang")) {
                    self.lang = l.trim().to_ascii_lowercase();
                }
            }
            "title" => {
                if self.title.is_empty() {
                    self.title = crate::text::squash(&el.text().collect::<String>());
                }
                return;
            }
            _ => {}
        }
        let (hint, facts) = hint_of(e);
        let found = HINT_WORDS.found_in(&hint);
        let mut flags = inherited;
        if is_hidden(tag, &facts, &hint, found) {
            flags |= HIDDEN;
        }
        if matches!(tag, "del" | "s" | "strike") || found & (LINE_THROUGH | STRIKE_WORD) != 0 {
            flags |= STRIKE;
        }
        if tag == "button"
            || (tag == "input" && matches!(e.attr_of("type"), Some("submit") | Some("button")))
        {
            flags |= BUTTON;
        }
        if tag == "a" || href_of(tag, e).is_some() {
            flags |= LINK;
        }
        if matches!(tag, "option" | "select") {
            flags |= OPTION;
        }
        // Page chrome: navigation, and headers/footers of the page (not the
        // header of a product block inside main/article/section).
        let chrome = match tag {
            "nav" | "aside" => true,
            "header" | "footer" => flags & MAIN == 0 && found & PRODUCT_WORD == 0,
            _ => false,
        };
        if chrome {
            flags |= CHROME;
        }
        if matches!(tag, "main" | "article" | "section") {
            flags |= MAIN;
        }
        if tag == "h1" {
            flags |= HEADING;
        }
        if tag == "sup" || found & FRACTION_WORDS != 0 {
            flags |= SUP;
        }
        if depth > 2 && found & RELATED_WORDS != 0 && related_by_name(e) {
            flags |= RELATED;
        }
        if found & CART_WORDS != 0 && is_basket_widget(&hint) {
            flags |= BASKET;
        }
        let idx = self.els.len();
        self.els.push(El {
            el,
            tag,
            parent,
            hint,
            named: ((found & NAMED_WORDS) >> 25) as u8
                | if found & STOCK_WORDS != 0 {
                    STOCK_NAMED
                } else {
                    0
                }
                | if found & CART_WORDS != 0 {
                    CART_NAMED
                } else {
                    0
                }
                | if found & SKU_WORD != 0 { SKU_NAMED } else { 0 },
            flags,
            text_start: self.texts.len(),
            el_end: 0,
            text_end: 0,
        });
        if depth < 400 {
            for child in el.children() {
                match child.value() {
                    Node::Element(_) => {
                        if let Some(c) = ElementRef::wrap(child) {
                            self.walk(c, Some(idx), flags, depth + 1);
                        }
                    }
                    Node::Text(t) => {
                        let s: &str = t;
                        if is_blank(s) {
                            continue;
                        }
                        let text = crate::text::squash(s);
                        self.texts.push(Text {
                            text,
                            el: idx,
                            flags,
                        });
                    }
                    _ => {}
                }
            }
        }
        // A currency drawn by an icon font (`<span class="w-ruble">e</span>`,
        // `<i class="fa fa-rub"></i>`): its glyph, or nothing, stands for
        // the currency, which the element's text then names.
        let own = &self.texts[self.els[idx].text_start..];
        let icon_like = own.len() <= 1
            && own.iter().all(|t| t.text.chars().count() <= 2)
            && self.els.len() == idx + 1;
        if icon_like && !self.els[idx].hint.is_empty() {
            if let Some(code) = currency_icon(&self.els[idx].hint) {
                let text = Text {
                    text: code.to_string(),
                    el: idx,
                    flags,
                };
                match self.texts.get_mut(self.els[idx].text_start) {
                    Some(t) => *t = text,
                    None => self.texts.push(text),
                }
            }
        }
        self.els[idx].text_end = self.texts.len();
        self.els[idx].el_end = self.els.len();
    }

    /// The visible text of an element, with split prices joined
    /// ("12" + sup "99" gives "12.99").
    pub fn text_of(&self, idx: usize, max: usize) -> String {
        let e = &self.els[idx];
        let mut out = String::new();
        let mut prev_digit = false;
        for t in &self.texts[e.text_start..e.text_end] {
            // Struck-through parts of a price block (a former price) are not
            // part of the element's current price.
            if t.flags & STRIKE != 0 && e.flags & STRIKE == 0 {
                continue;
            }
            let s = t.text.as_str();
            if out.len() + s.len() > max {
                break;
            }
            let first = s.chars().next().unwrap_or(' ');
            let is_frac = (t.flags & SUP) != 0
                && (e.flags & SUP) == 0
                && s.len() == 2
                && s.chars().all(|c| c.is_ascii_digit());
            if out.is_empty() {
            } else if let (true, Some((figure, sign))) =
                (is_frac, crate::money::sign_after_figure(&out))
            {
                // "79€" then "95": the sign stood for the decimal point.
                let mut joined = format!("{figure}.{s}");
                joined.push(sign);
                out = joined;
                prev_digit = false;
                continue;
            } else if is_frac && prev_digit {
                out.push('.');
            } else if (prev_digit && (first == '.' || first == ','))
                || ((out.ends_with('.') || out.ends_with(',')) && first.is_ascii_digit())
            {
            } else {
                out.push(' ');
            }
            out.push_str(s);
            prev_digit = s
                .chars()
                .last()
                .map(|c| c.is_ascii_digit())
                .unwrap_or(false);
        }
        out
    }

    /// The hints of an element and of its ancestors up to `levels` named
    /// ones: wrappers without a name (`<tm-price>`, a bare `<span>`) are
    /// passed, not counted.
    pub fn named_ancestor_hints(&self, idx: usize, levels: usize) -> String {
        let mut out = String::new();
        let mut named = 0;
        for i in std::iter::successors(Some(idx), |&i| self.els[i].parent) {
            if named > levels {
                break;
            }
            let hint = &self.els[i].hint;
            if !hint.trim().is_empty() {
                out.push_str(hint);
                out.push(' ');
                named += 1;
            }
        }
        out
    }

    /// The hints of an element and its ancestors, up to `levels` up.
    pub fn ancestor_hints(&self, idx: usize, levels: usize) -> String {
        let mut out = String::new();
        let mut cur = Some(idx);
        let mut n = 0;
        while let Some(i) = cur {
            if n > levels {
                break;
            }
            out.push_str(&self.els[i].hint);
            out.push(' ');
            cur = self.els[i].parent;
            n += 1;
        }
        out
    }

    /// The text of the inline scripts (bounded in size), joined on first use.
    pub fn scripts(&self) -> &str {
        self.scripts.get_or_init(|| {
            let mut out = String::new();
            for el in &self.script_els {
                if out.len() > 4_000_000 {
                    break;
                }
                for t in el.text() {
                    out.push_str(t);
                }
                out.push('\n');
            }
            out
        })
    }

    /// Inline scripts typed as JSON (application/json and the like, not
    /// JSON-LD): their id and text. Embedded shop state lives there.
    pub fn json_scripts(&self) -> Vec<(Option<&'a str>, String)> {
        self.script_els
            .iter()
            .filter(|el| {
                let v = el.value();
                v.attr_of("type")
                    .map(|t| t.to_ascii_lowercase().has("json"))
                    .unwrap_or(false)
                    || v.attr_of("id") == Some("__NEXT_DATA__")
            })
            .map(|el| (el.value().attr_of("id"), el.text().collect::<String>()))
            .collect()
    }

    pub fn meta(&self, key: &str) -> Option<&str> {
        self.metas
            .iter()
            .find(|(k, v)| k == key && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// Index of the first text inside the page's main heading (h1).
    /// The element of the page's main heading: the first visible h1 outside
    /// header/nav/footer (a logo is often an h1), else the first visible h1.
    fn h1_element(&self) -> Option<usize> {
        let visible = |e: &El| e.tag == "h1" && e.flags & HIDDEN == 0 && e.text_end > e.text_start;
        self.els
            .iter()
            .position(|e| visible(e) && e.flags & CHROME == 0)
            .or_else(|| self.els.iter().position(visible))
    }

    /// Index of the first text of the main heading; without an h1, the first
    /// text that repeats the page's title (og:title or <title>).
    pub fn h1_text_index(&self) -> Option<usize> {
        if let Some(i) = self.h1_element() {
            return Some(self.els[i].text_start);
        }
        let title = self
            .meta("og:title")
            .map(String::from)
            .unwrap_or_else(|| self.title.clone());
        let title = crate::text::squash(&title).to_lowercase();
        if title.chars().count() < 8 {
            return None;
        }
        self.texts.iter().position(|t| {
            let n = t.text.chars().count();
            t.flags & (HIDDEN | CHROME | LINK | OPTION) == 0
                && (8..=300).contains(&n)
                && title.has(&t.text.to_lowercase())
        })
    }

    pub fn h1_text(&self) -> Option<String> {
        let i = self.h1_element()?;
        let t = self.text_of(i, 400);
        if t.is_empty() {
            None
        } else {
            Some(t)
        }
    }
}

/// An attribute of an element: the first of that local name in no
/// namespace.
pub trait AttrOf<'a> {
    fn attr_of(self, name: &str) -> Option<&'a str>;
}

impl<'a> AttrOf<'a> for &'a Element {
    #[inline]
    fn attr_of(self, name: &str) -> Option<&'a str> {
        self.attrs
            .iter()
            .find(|a| a.name.prefix.is_none() && a.name.ns.is_empty() && &*a.name.local == name)
            .map(|a| &*a.value)
    }
}

impl<'a> AttrOf<'a> for ElementRef<'a> {
    #[inline]
    fn attr_of(self, name: &str) -> Option<&'a str> {
        self.value().attr_of(name)
    }
}
