//! Stage 3 for a single product's page: its record, filled in order of
//! trust — the markup product that is the page's own, microdata properties
//! outside any item, OpenGraph and other meta product tags, then what the
//! visible page shows (price, codes, stock, brand).

use crate::dom::Doc;
use crate::identifiers::Ids;
use crate::record::{Field, Record};
use crate::structured::{resolve, Markup, PageIdentity};
use crate::{availability, brand, money, price, same_product, schema, text};

/// The page's product, or `None` when the page shows none (no price and
/// no product code). `notes` says where each part came from.
pub fn read(
    doc: &Doc,
    markup: &Markup,
    identity: &PageIdentity,
    ids: Ids,
    base: &Option<url::Url>,
    page_url: &str,
    notes: &mut Vec<String>,
) -> Option<Record> {
    // An article (news, a blog post, a recipe) without product markup
    // sells nothing, whatever prices and codes its text mentions.
    if markup.article && markup.candidates.is_empty() {
        notes.push("an article's page".into());
        return None;
    }
    let mut main = from_markup(markup, identity, notes);
    // The page's markup describes its product by name.
    let described = main.has(Field::Name);
    current_over_list_price(doc, &mut main, notes);
    current_over_stated_standard(doc, &mut main, notes);
    from_orphans(markup, &mut main, notes);
    from_meta(doc, &mut main, notes);
    // A code only from the page's URL does not make a product on its own.
    let code_of_its_own = main.has(Field::Sku) || !ids.from_url;
    let stock_inferred = from_visible(doc, &mut main, ids, notes);
    // A page that calls itself an article in its OpenGraph tags, with no
    // product markup and nothing about stock (no buy button, no stock
    // text): an editorial page that mentions a price. Shops that say
    // "article" there mark their product up or offer it for sale.
    if markup.og_article && markup.candidates.is_empty() && stock_inferred {
        notes.push("an article's page".into());
        return None;
    }
    if !main.has(Field::Name) {
        let name = doc
            .h1_text()
            .or_else(|| doc.meta("og:title").map(String::from))
            .or_else(|| (!doc.title.is_empty()).then(|| doc.title.clone()));
        main.put(Field::Name, name);
    }
    main.put(Field::Image, doc.meta("og:image").map(String::from));
    match main.get(Field::Url).and_then(|h| resolve(base, h)) {
        Some(u) => main.set(Field::Url, u),
        None => {
            main.put(Field::Url, Some(page_url.to_string()));
        }
    }
    if let Some(img) = main.get(Field::Image).and_then(|h| resolve(base, h)) {
        main.set(Field::Image, img);
    }
    // A product the markup describes and whose stock the page states is
    // one even without a price or a code (one no longer sold: "No longer
    // available" where the price was).
    let is_product = main.has(Field::Price)
        || (main.has(Field::Sku) && code_of_its_own)
        || main.has(Field::Gtin)
        || (described && main.has(Field::Availability));
    is_product.then_some(main)
}

/// The markup candidate that is the page's own product, filled from the
/// same product in the page's other blocks.
fn from_markup(markup: &Markup, identity: &PageIdentity, notes: &mut Vec<String>) -> Record {
    let cands = &markup.candidates;
    let singles = markup.singles();
    let score = |i: usize| -> i32 {
        let r = &cands[i].record;
        let mut s = schema::richness(r) as i32;
        if r.has(Field::Price) {
            s += 3;
        }
        if identity.url_matches(r) {
            s += 6;
        }
        if identity.heading_matches(r) {
            s += 4;
        }
        s - i as i32 / 4
    };
    let Some(&best) = singles.iter().max_by_key(|&&i| (score(i), -(i as i64))) else {
        return Record::new();
    };
    let mut main = cands[best].record.clone();
    notes.push(cands[best].source.note().to_string());
    let one_product = markup.distinct_singles() == 1;
    for &i in &singles {
        let other = &cands[i];
        if i == best || !(one_product || same_product(&main, &other.record)) {
            continue;
        }
        let before = main.len();
        for k in Field::PRODUCT {
            if k == Field::Price && main.has(Field::Price) {
                continue;
            }
            main.put(k, other.record.get(k).map(String::from));
        }
        if main.len() > before && other.source != cands[best].source {
            let n = other.source.note().to_string();
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
    }
    main
}

/// A markup price that the page shows struck through as a list price gives
/// way to the visible sale price.
fn current_over_list_price(doc: &Doc, main: &mut Record, notes: &mut Vec<String>) {
    let Some(p) = main.get(Field::Price) else {
        return;
    };
    if let Some(found) = price::page::is_list_price(doc, p) {
        main.set(Field::Price, found.price.value);
        notes.push("markup price is the list price; visible sale price used".into());
    }
}

/// A markup price that the page's meta tags state as the standard (former)
/// amount gives way to the lower amount they state as the current one
/// (`og:price:standard_amount` 150.00 beside `product:price:amount` 120.00,
/// where the structured data still says 150.00).
fn current_over_stated_standard(doc: &Doc, main: &mut Record, notes: &mut Vec<String>) {
    let amount = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| doc.meta(k).and_then(money::parse_machine_price))
            .and_then(|p| p.parse::<f64>().ok().map(|v| (p, v)))
    };
    let Some(price) = main.get(Field::Price).and_then(|p| p.parse::<f64>().ok()) else {
        return;
    };
    let Some((_, standard)) =
        amount(&["og:price:standard_amount", "product:original_price:amount"])
    else {
        return;
    };
    let Some((current, value)) = amount(&[
        "product:sale_price:amount",
        "product:price:amount",
        "og:price:amount",
    ]) else {
        return;
    };
    if (standard - price).abs() < 0.005 && value > 0.0 && value < price {
        main.set(Field::Price, current);
        notes.push(
            "markup price is the stated standard price; the stated current price used".into(),
        );
    }
}

/// Microdata properties outside any item (a lone itemprop="price").
fn from_orphans(markup: &Markup, main: &mut Record, notes: &mut Vec<String>) {
    let orphan = |k: &str| markup.orphans.get(k).and_then(schema::scalar);
    let mut used = false;
    if !main.has(Field::Price) {
        if let Some(p) = orphan("price").and_then(|p| money::parse_machine_price(&p)) {
            used |= main.put(Field::Price, Some(p));
            main.put(
                Field::Currency,
                orphan("priceCurrency").and_then(|c| money::normalize_currency(&c)),
            );
        }
    }
    for (k, key) in [
        (Field::Sku, "sku"),
        (Field::Mpn, "mpn"),
        (Field::Gtin, "gtin13"),
        (Field::Brand, "brand"),
    ] {
        used |= main.put(k, orphan(key).and_then(|v| text::clean_identifier(&v)));
    }
    used |= main.put(
        Field::Availability,
        orphan("availability").and_then(|a| text::normalize_availability(&a)),
    );
    if used {
        notes.push("microdata properties".into());
    }
}

/// OpenGraph and other meta product tags.
fn from_meta(doc: &Doc, main: &mut Record, notes: &mut Vec<String>) {
    let first = |keys: &[&str], read: fn(&str) -> Option<String>| {
        keys.iter().find_map(|k| doc.meta(k).and_then(read))
    };
    let mut used = false;
    if !main.has(Field::Price) {
        let p = first(
            &[
                "product:sale_price:amount",
                "og:price:amount",
                "product:price:amount",
                "og:price",
                "product:price",
            ],
            money::parse_machine_price,
        );
        if p.is_some() {
            used |= main.put(Field::Price, p);
            let c = first(
                &[
                    "product:sale_price:currency",
                    "og:price:currency",
                    "product:price:currency",
                ],
                money::normalize_currency,
            );
            main.put(Field::Currency, c);
        }
    }
    used |= main.put(
        Field::Availability,
        first(
            &["og:availability", "product:availability"],
            text::normalize_availability,
        ),
    );
    let codes: [(Field, &[&str]); 4] = [
        (
            Field::Sku,
            &["product:retailer_item_id", "product:sku", "og:sku"],
        ),
        (Field::Brand, &["product:brand", "og:brand"]),
        (
            Field::Gtin,
            &[
                "product:ean",
                "product:upc",
                "product:gtin",
                "product:isbn",
                "books:isbn",
            ],
        ),
        (Field::Mpn, &["product:mfr_part_no"]),
    ];
    for (k, keys) in codes {
        if !main.has(k) {
            used |= main.put(k, first(keys, text::clean_identifier));
        }
    }
    main.put(
        Field::Condition,
        first(&["product:condition"], text::normalize_condition),
    );
    if used {
        notes.push("opengraph".into());
    }
}

/// What the visible page shows: the main price, labelled codes, stock
/// messages and buy buttons, the labelled brand. Returns whether the
/// availability was only inferred from the price shown (nothing on the
/// page speaks of stock).
fn from_visible(doc: &Doc, main: &mut Record, ids: Ids, notes: &mut Vec<String>) -> bool {
    let mut used = false;
    if !main.has(Field::Price) {
        if let Some(found) = price::page::main_price(doc) {
            used |= main.put(Field::Price, Some(found.price.value.clone()));
            if let Some(c) = &found.price.currency {
                main.put(Field::Currency, doc.locale.resolve(c, &found.raw));
            }
        }
    }
    // The code the page itself labels as the product's wins over a
    // different internal id in the markup.
    if let (Some(strong), Some(sku)) = (&ids.strong_sku, main.get(Field::Sku)) {
        if strong != sku && main.get(Field::Gtin) != Some(strong.as_str()) {
            main.set(Field::Sku, strong.clone());
            notes.push("sku from the labelled product code".into());
        }
    }
    used |= main.put(Field::Sku, ids.sku);
    used |= main.put(Field::Mpn, ids.mpn);
    used |= main.put(Field::Gtin, ids.gtin);
    // Markup that calls the product out of stock while the page offers an
    // enabled buy button (the markup often describes one variant only).
    if main.get(Field::Availability) == Some("OutOfStock") {
        if let Some(("InStock", why)) = availability::of_page(doc) {
            main.set(Field::Availability, "InStock");
            notes.push(format!("availability from {} over the markup", why));
        }
    }
    if !main.has(Field::Availability) {
        if let Some((a, why)) = availability::of_page(doc) {
            used |= main.put(Field::Availability, Some(a.to_string()));
            notes.push(format!("availability from {}", why));
        }
    }
    // A product page that shows a price and says nothing about stock offers
    // the product: InStock, noted as inferred. OutOfStock is never inferred.
    let inferred = !main.has(Field::Availability) && main.has(Field::Price);
    if inferred {
        main.put(Field::Availability, Some("InStock".into()));
        notes.push("availability inferred from the price shown".into());
    }
    // Brands from markup sometimes carry their label ("... Marca: X").
    if let Some(b) = main.get(Field::Brand).map(String::from) {
        if let Some((head, tail)) = b.rsplit_once(':') {
            if head.split_whitespace().count() >= 2 && !tail.trim().is_empty() {
                main.set(Field::Brand, tail.trim());
            }
        }
    }
    if !main.has(Field::Brand) {
        used |= main.put(Field::Brand, brand::of_page(doc));
    }
    if used {
        notes.push("heuristic".into());
    }
    inferred
}
