//! The fields of one product card of a listing (a subtree of the page):
//! link, name, current and former price, stock, image, sku and brand.

use crate::dom::AttrOf as _;
use crate::dom::{Doc, BUTTON, HIDDEN};
use crate::money::has_currency_mark;
use crate::price;
use crate::record::{Field, Record};
use crate::text::Find as _;
use crate::text::{availability_from_short_text, is_buy_text};

/// Hint words that mark a card's name element.
fn is_name_hint(hint: &str) -> bool {
    // A token that names something else's name ("seller-name",
    // "credit-method-badge__name": the name of a payment badge) does not
    // name the product.
    hint.split_ascii_whitespace().any(|token| {
        let words = || token.split(|c: char| !c.is_ascii_alphanumeric());
        // (With the words of shops in other languages: French "libelle",
        // German and Dutch "titel", Spanish "nombre", Italian and
        // Portuguese "nome", Polish "nazwa".)
        let named = words().any(|w| {
            matches!(
                w,
                "title"
                    | "name"
                    | "productname"
                    | "producttitle"
                    | "libelle"
                    | "titel"
                    | "nombre"
                    | "nome"
                    | "nazwa"
            )
        }) || token.has("product-title")
            || token.has("product-name")
            || token.has("product_title")
            || token.has("product_name");
        named
            && !words().any(|w| {
                matches!(
                    w,
                    "badge"
                        | "seller"
                        | "store"
                        | "shop"
                        | "merchant"
                        | "vendor"
                        | "credit"
                        | "payment"
                        | "delivery"
                        | "shipping"
                        | "category"
                        | "cat"
                        | "promo"
                        | "review"
                        | "rating"
                        | "author"
                )
            })
    })
}

/// Whether a link is a route of a single-page app ("#!/content/63207",
/// "#%21/item/5"): the fragment is the address of the page it shows.
pub fn is_app_route(href: &str) -> bool {
    let h = href.trim();
    h.starts_with("#!") || h.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("#%21"))
}

fn usable_href(h: &str) -> bool {
    let l = h.trim().to_ascii_lowercase();
    !(l.is_empty()
        || (l.starts_with('#') && !is_app_route(&l))
        || l.starts_with("javascript")
        || l.starts_with("mailto:")
        || l.starts_with("tel:")
        || l.has("add-to-cart")
        || l.has("add_to_cart")
        || l.has("wishlist")
        || crate::links::is_cart_link(&l))
}

/// An absolute URL without its fragment; an app route keeps its "#!"
/// fragment, the only part that tells its pages apart.
pub fn absolute(base: &Option<url::Url>, href: &str) -> Option<String> {
    let b = base.as_ref()?;
    let mut u = b.join(href.trim()).ok()?;
    if u.scheme() != "http" && u.scheme() != "https" {
        return None;
    }
    let route = u.fragment().and_then(|f| {
        let rest = f.strip_prefix('!').or_else(|| {
            f.get(..3)
                .filter(|p| p.eq_ignore_ascii_case("%21"))
                .map(|_| &f[3..])
        })?;
        Some(format!("!{rest}"))
    });
    u.set_fragment(route.as_deref());
    Some(u.to_string())
}

/// The first usable link of a card, absolute.
pub fn card_link(doc: &Doc, card: usize, base: &Option<url::Url>) -> Option<String> {
    (card..doc.els[card].el_end).find_map(|i| {
        doc.els[i]
            .href()
            .filter(|h| usable_href(h))
            .and_then(|h| absolute(base, h))
    })
}

fn put(r: &mut Record, f: Field, v: Option<String>) {
    r.put(f, v.map(|v| crate::text::squash(&v)));
}

/// Whether a text reads as a name (not a price, stock note or button).
fn name_like(t: &str) -> bool {
    let n = t.chars().count();
    (3..=300).contains(&n)
        && !(has_currency_mark(t) && t.bytes().any(|b| b.is_ascii_digit()))
        && availability_from_short_text(t).is_none()
        && !is_buy_text(t)
}

/// The texts a card gives as its product's name besides showing it: the
/// label or title of its product link, the alt of its images (whitespace
/// collapsed). A name may hold an amount ("Turbo E-Bike ($900 OFF)").
fn name_labels(
    doc: &Doc,
    card: usize,
    url: &Option<String>,
    base: &Option<url::Url>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in &doc.els[card..doc.els[card].el_end] {
        let v = e.el.value();
        let leads_to_url = || url.is_some() && e.href().and_then(|h| absolute(base, h)) == *url;
        let attrs: &[&str] = match e.tag {
            "img" => &["alt"],
            _ if leads_to_url() => &["aria-label", "title"],
            _ => &[],
        };
        for a in attrs {
            if let Some(s) = v.attr_of(a).map(crate::text::squash) {
                if s.chars().count() >= 3 && !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        // The product link's own text when it is one title of several words
        // ("1970 camaro parts car $500"), not a bare amount.
        if e.tag == "a" && !attrs.is_empty() && e.text_end == e.text_start + 1 {
            let t = crate::text::squash(&doc.texts[e.text_start].text);
            let words = t
                .split_whitespace()
                .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
                .count();
            if words >= 3 && !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// Read a card's fields into a record.
pub fn read_card(doc: &Doc, card: usize, base: &Option<url::Url>) -> Record {
    let mut r = Record::new();
    let end = doc.els[card].el_end;
    let url = card_link(doc, card, base);
    let labels = name_labels(doc, card, &url, base);
    // A text the card also gives as a label is a name even when it holds
    // an amount.
    let name_like = |t: &str| {
        name_like(t)
            || (labels.contains(&crate::text::squash(t))
                && t.chars().count() <= 300
                && !is_buy_text(t))
    };
    let mut heading: Option<String> = None;
    let mut named: Option<String> = None;
    let mut anchor_text: Option<String> = None;
    let mut alt: Option<String> = None;
    let mut image: Option<String> = None;
    let mut sku: Option<String> = None;
    let mut brand: Option<String> = None;
    let mut buy = false;
    for i in card..end {
        let e = &doc.els[i];
        let v = e.el.value();
        if e.flags & HIDDEN != 0 && e.tag != "img" && e.tag != "meta" {
            continue;
        }
        let has_text = e.text_end > e.text_start;
        match e.tag {
            _ if anchor_text.is_none() && e.href().is_some() => {
                let same = e.href().and_then(|h| absolute(base, h)) == url;
                if same && url.is_some() {
                    anchor_text = doc.texts[e.text_start..e.text_end]
                        .iter()
                        .map(|t| t.text.as_str())
                        .find(|t| name_like(t))
                        .map(String::from)
                        .or_else(|| {
                            v.attr_of("title")
                                .filter(|t| name_like(t))
                                .map(String::from)
                        });
                }
            }
            "img" if image.is_none() => {
                let src = v
                    .attr_of("data-src")
                    .or_else(|| v.attr_of("data-lazy-src"))
                    .or_else(|| v.attr_of("data-original"))
                    .or_else(|| v.attr_of("src"))
                    .or_else(|| {
                        v.attr_of("srcset")
                            .or_else(|| v.attr_of("data-srcset"))
                            .and_then(|s| s.split_whitespace().next())
                    })
                    .filter(|s| !s.trim().is_empty() && !s.trim_start().starts_with("data:"))
                    // A vector image is an icon (a wishlist heart, a star,
                    // a badge), not the product's picture.
                    .filter(|s| !is_vector_image(s));
                image = src.and_then(|s| absolute(base, s));
                alt = v.attr_of("alt").filter(|a| name_like(a)).map(String::from);
            }
            _ => {}
        }
        if i != card && has_text {
            if named.is_none()
                && (v.attr_of("itemprop") == Some("name") || is_name_hint(&e.hint))
                && !e.hint.has("brand")
                && e.text_end - e.text_start <= 4
            {
                named = Some(doc.text_of(i, 300)).filter(|t| name_like(t));
            }
            if heading.is_none() && matches!(e.tag, "h2" | "h3" | "h4" | "h5" | "h6") {
                heading = Some(doc.text_of(i, 300)).filter(|t| name_like(t));
            }
            if brand.is_none()
                && (e.hint.has("brand") || e.hint.has("vendor") || e.hint.has("manufacturer"))
                && e.text_end - e.text_start <= 2
            {
                let t = doc.text_of(i, 100);
                brand = crate::brand::clean_brand(&t)
                    .or(Some(t))
                    .filter(|b| b.chars().count() <= 60 && !b.is_empty());
            }
        }
        if sku.is_none() {
            sku = v
                .attr_of("data-product_sku")
                .or_else(|| v.attr_of("data-product-sku"))
                .or_else(|| v.attr_of("data-sku"))
                .and_then(crate::text::clean_identifier);
            if sku.is_none() && v.attr_of("itemprop") == Some("sku") {
                sku = v
                    .attr_of("content")
                    .map(String::from)
                    .or_else(|| Some(doc.text_of(i, 60)))
                    .and_then(|s| crate::text::clean_identifier(&s));
            }
        }
        if (e.flags & BUTTON != 0 || e.tag == "a")
            && v.attr_of("disabled").is_none()
            && !v
                .attr_of("class")
                .map(|c| c.has("disabled"))
                .unwrap_or(false)
        {
            let label = doc.text_of(i, 80);
            let label = if label.is_empty() {
                v.attr_of("value")
                    .or_else(|| v.attr_of("aria-label"))
                    .unwrap_or("")
                    .to_string()
            } else {
                label
            };
            if is_buy_text(&label) {
                buy = true;
            }
        }
    }
    // Without a named element, the first text that reads as a name.
    let first_text = || {
        let e = &doc.els[card];
        doc.texts[e.text_start..e.text_end]
            .iter()
            .find(|t| t.flags & (HIDDEN | BUTTON) == 0 && name_like(&t.text))
            .map(|t| t.text.clone())
    };
    // A heading that holds the product link's text and more (a category
    // label, a type in brackets) is named by the link's text.
    let heading = match (heading, &anchor_text) {
        (Some(h), Some(a)) if h.len() > a.len() && h.contains(a.as_str()) => Some(a.clone()),
        (h, _) => h,
    };
    put(
        &mut r,
        Field::Name,
        named
            .or(heading)
            .or(anchor_text)
            .or(alt)
            .or_else(first_text),
    );
    put(&mut r, Field::Url, url);
    if let Some((p, list)) = price::card::of_card(doc, card, &labels) {
        put(&mut r, Field::Price, Some(p.value.clone()));
        if let Some(c) = &p.currency {
            put(&mut r, Field::Currency, doc.locale.resolve(c, &p.raw));
        }
        put(&mut r, Field::ListPrice, list);
    }
    // Stock: a stock note in the card, the card's own state class, or a buy
    // button.
    let e = &doc.els[card];
    let stated = (e.text_start..e.text_end).find_map(|k| {
        let t = &doc.texts[k];
        if t.flags & HIDDEN != 0 || t.text.chars().count() > 60 {
            return None;
        }
        // "Author – 12,99 € – Out of stock": each part on its own.
        t.text
            .split(['–', '—', '|', '·', '•'])
            .find_map(|part| availability_from_short_text(part.trim()))
    });
    let by_class = e
        .hint
        .split(|c: char| c.is_whitespace())
        .find_map(|w| match w {
            "outofstock" | "out-of-stock" | "sold-out" | "soldout" | "is-sold-out" => {
                Some("OutOfStock")
            }
            "instock" | "in-stock" => Some("InStock"),
            _ => None,
        });
    let avail = stated
        .or(by_class)
        .or(if buy { Some("InStock") } else { None });
    put(&mut r, Field::Availability, avail.map(String::from));
    // A figure of nothing on a card that says it is out of stock ("0 Р"
    // beside "Нет в наличии") is the shop's placeholder, not a price; a
    // card that says "Free" keeps its zero.
    if matches!(avail, Some("OutOfStock" | "SoldOut"))
        && r.get(Field::Price)
            .is_some_and(|p| p.parse::<f64>().is_ok_and(|v| v == 0.0))
        && !(e.text_start..e.text_end).any(|k| {
            let t = &doc.texts[k].text;
            t.len() <= 24 && crate::money::is_free_text(t)
        })
    {
        r.take(Field::Price);
        r.take(Field::ListPrice);
    }
    put(&mut r, Field::Image, image);
    put(&mut r, Field::Sku, sku);
    put(&mut r, Field::Brand, brand);
    r
}

/// Whether an image address names an SVG file ("/icons/wishlist.svg",
/// "star.svg?v=2").
fn is_vector_image(src: &str) -> bool {
    let path = src.split(['?', '#']).next().unwrap_or(src).trim();
    path.len() > 4
        && path
            .get(path.len() - 4..)
            .is_some_and(|end| end.eq_ignore_ascii_case(".svg"))
}
