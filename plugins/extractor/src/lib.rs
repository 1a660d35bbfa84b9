//! The generic catalog extractor: schema.org markup first, then what the
//! visible page says.
//!
//! Rule order (see docs/EXTRACTION.md):
//! 1. JSON-LD (repaired when broken), microdata and RDFa products, brought to
//!    one JSON shape and read by the same rules;
//! 2. OpenGraph / meta product tags fill what the markup left empty;
//! 3. the visible page fills the rest: the main price element, labelled
//!    identifiers, stock messages and buy buttons;
//! 4. listing pages (a category, search or brand page whose main content is
//!    many products) give one record per product of the main list, from
//!    per-item markup, embedded state and the visible cards in that order of
//!    trust, and claim partial when the page has a next page.

#[cfg(target_arch = "wasm32")]
mod component;

mod cards;
mod dom;
mod embedded;
mod links;
mod listing;
mod locale;
mod markup;
mod relevance;
mod repeated;
mod schema;
pub mod text;
mod totals;
mod visible;

#[cfg(test)]
mod class_tests;
#[cfg(test)]
mod listing_tests;
#[cfg(test)]
mod tests;

use crate::text::Find as _;
use serde_json::{Map, Value};

/// A page handed to the extractor.
pub struct Page<'a> {
    pub url: &'a str,
    pub status: u16,
    pub content_type: Option<&'a str>,
    pub body: &'a str,
}

/// What the customer asked for.
pub struct Request<'a> {
    pub entity: &'a str,
    pub guidance: Option<&'a str>,
    pub hints: &'a Value,
}

/// What a page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PageKind {
    /// The page of one main product.
    Product,
    /// A category, collection, search-result or brand page whose main
    /// content is many products.
    Listing,
    /// Neither (a home page without products, an about page, a 404 page).
    #[default]
    Other,
}

impl PageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PageKind::Product => "product",
            PageKind::Listing => "listing",
            PageKind::Other => "other",
        }
    }
}

/// What the extractor found.
#[derive(Debug, Default)]
pub struct Extraction {
    /// What the page is.
    pub kind: PageKind,
    /// One JSON object per record.
    pub records: Vec<Map<String, Value>>,
    /// True when the records are everything the page holds.
    pub complete: bool,
    /// Further catalog pages linked from this one.
    pub links: Vec<String>,
    /// The listing's next page(s), absolute, same site, in order.
    pub next_pages: Vec<String>,
    /// Short remarks on how the records were found.
    pub notes: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Source {
    JsonLd,
    Microdata,
    Rdfa,
}

impl Source {
    fn note(self) -> &'static str {
        match self {
            Source::JsonLd => "json-ld",
            Source::Microdata => "microdata",
            Source::Rdfa => "rdfa",
        }
    }
}

struct Candidate {
    record: Map<String, Value>,
    source: Source,
    in_list: bool,
}

const FIELDS: &[&str] = &[
    "name",
    "url",
    "price",
    "currency",
    "availability",
    "sku",
    "mpn",
    "gtin",
    "brand",
    "condition",
    "image",
];

fn put(r: &mut Map<String, Value>, k: &str, v: Option<String>) -> bool {
    if let Some(v) = v {
        let v = v.trim().to_string();
        if !v.is_empty() && !r.contains_key(k) {
            r.insert(k.to_string(), Value::String(v));
            return true;
        }
    }
    false
}

fn field<'a>(r: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    r.get(k).and_then(|v| v.as_str())
}

fn norm_name(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(|c| c.to_lowercase())
        .collect()
}

/// Whether two records describe the same product.
fn same_product(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    for k in ["sku", "gtin", "mpn"] {
        if let (Some(x), Some(y)) = (field(a, k), field(b, k)) {
            return x == y;
        }
    }
    match (field(a, "name"), field(b, "name")) {
        (Some(x), Some(y)) => norm_name(x) == norm_name(y),
        _ => false,
    }
}

fn resolve(base: &Option<url::Url>, href: &str) -> Option<String> {
    let b = base.as_ref()?;
    b.join(href.trim()).ok().map(|u| u.to_string())
}

/// Extract the records of a page.
pub fn extract(page: &Page, request: &Request) -> Result<Extraction, String> {
    // Host hints: a currency to use where the page prints none.
    let hinted_currency = request
        .hints
        .get("currency")
        .and_then(|v| v.as_str())
        .and_then(text::normalize_currency);
    // A JSON body (an API answer, a JSON-LD document): read it as schema.org
    // data.
    let json_body = page
        .content_type
        .map(|c| c.to_ascii_lowercase().has("json"))
        .unwrap_or(false);
    if json_body {
        let values = schema::parse_jsonld(page.body);
        let mut found = Vec::new();
        schema::collect_products(&values, &mut found);
        let base = url::Url::parse(page.url).ok();
        let records: Vec<Map<String, Value>> = found
            .iter()
            .map(|f| {
                let mut r = schema::record_from_node(&f.node);
                if let Some(u) = field(&r, "url").and_then(|h| resolve(&base, h)) {
                    r.insert("url".into(), Value::String(u));
                }
                if !r.contains_key("currency") && r.contains_key("price") {
                    put(&mut r, "currency", hinted_currency.clone());
                }
                r
            })
            .filter(|r| schema::richness(r) > 0)
            .collect();
        let notes = vec![format!("json body: {} products", records.len())];
        let kind = match records.len() {
            0 => PageKind::Other,
            1 => PageKind::Product,
            _ => PageKind::Listing,
        };
        return Ok(Extraction {
            kind,
            records,
            complete: true,
            links: Vec::new(),
            next_pages: Vec::new(),
            notes,
        });
    }
    let html = scraper::Html::parse_document(page.body);
    let mut doc = dom::Doc::build(&html);
    doc.locale = locale::Locale::of(&doc, page.url);
    let doc = doc;
    let base = url::Url::parse(page.url).ok();
    let host = base
        .as_ref()
        .and_then(|u| u.host_str().map(|h| h.to_ascii_lowercase()))
        .unwrap_or_default();
    let mut notes: Vec<String> = Vec::new();

    // 1. Structured markup.
    let mut cands: Vec<Candidate> = Vec::new();
    let mut listed_urls: Vec<String> = Vec::new();
    for block in &doc.jsonld {
        let values = schema::parse_jsonld(block);
        schema::list_urls(&values, &mut listed_urls);
        let mut found = Vec::new();
        schema::collect_products(&values, &mut found);
        for f in found {
            cands.push(Candidate {
                record: schema::record_from_node(&f.node),
                source: Source::JsonLd,
                in_list: f.in_list,
            });
        }
    }
    let (micro, rdfa, orphans) = markup::items(&html);
    for (values, source) in [(micro, Source::Microdata), (rdfa, Source::Rdfa)] {
        let mut found = Vec::new();
        schema::collect_products(&values, &mut found);
        for f in found {
            cands.push(Candidate {
                record: schema::record_from_node(&f.node),
                source,
                in_list: f.in_list,
            });
        }
    }
    cands.retain(|c| schema::richness(&c.record) > 0);
    // Offers that name no product (no name, and no url or only a site's
    // front page) and stand apart from any: one is the page's own product's
    // offer, but several are the offers of a listing's cards, which the
    // visible cards read.
    let nameless = |r: &Map<String, Value>| {
        let front_page = |u: &str| {
            resolve(&base, u)
                .and_then(|u| url::Url::parse(&u).ok())
                .is_none_or(|u| u.path().trim_matches('/').is_empty())
        };
        field(r, "name").is_none() && field(r, "url").is_none_or(front_page)
    };
    if cands
        .iter()
        .filter(|c| !c.in_list && nameless(&c.record))
        .count()
        >= 3
    {
        cands.retain(|c| c.in_list || !nameless(&c.record));
    }

    let page_url_norm = base.as_ref().map(|u| {
        let mut u = u.clone();
        u.set_fragment(None);
        u.set_query(None);
        u.to_string().trim_end_matches('/').to_string()
    });
    let url_matches = |r: &Map<String, Value>| -> bool {
        match (
            field(r, "url").and_then(|h| resolve(&base, h)),
            &page_url_norm,
        ) {
            (Some(u), Some(p)) => {
                let u = u
                    .split(['?', '#'])
                    .next()
                    .unwrap_or("")
                    .trim_end_matches('/')
                    .to_string();
                &u == p
            }
            _ => false,
        }
    };

    let h1 = doc.h1_text();
    let og_type = doc.meta("og:type").unwrap_or("").to_ascii_lowercase();
    let singles: Vec<usize> = (0..cands.len()).filter(|&i| !cands[i].in_list).collect();
    let listed: Vec<usize> = (0..cands.len()).filter(|&i| cands[i].in_list).collect();

    // Is this a listing? Several products and none of them the page's own.
    let distinct_singles = {
        let mut names: Vec<String> = Vec::new();
        for &i in &singles {
            let key = field(&cands[i].record, "url")
                .map(String::from)
                .or_else(|| field(&cands[i].record, "name").map(norm_name))
                .unwrap_or_default();
            if !names.contains(&key) {
                names.push(key);
            }
        }
        names.len()
    };
    let heading_matches = |r: &Map<String, Value>| -> bool {
        match (&h1, field(r, "name")) {
            (Some(h), Some(n)) => {
                let (h, n) = (norm_name(h), norm_name(n));
                !h.is_empty() && !n.is_empty() && (h == n || h.contains(&n) || n.contains(&h))
            }
            _ => false,
        }
    };
    let has_main = singles
        .iter()
        .any(|&i| url_matches(&cands[i].record) || heading_matches(&cands[i].record));
    let is_listing = !og_type.has("product")
        && !has_main
        && ((singles.is_empty() && listed.len() >= 2)
            || (distinct_singles >= 3 && listed.len() + singles.len() >= 3));

    let wanted = relevance::Wanted::of(request.entity, request.hints);
    let catalog = links::catalog_links(&doc, &base, page.url, &listed_urls, wanted.as_ref());
    let lcx = listing::Ctx {
        doc: &doc,
        base: &base,
        host: &host,
    };
    let listing_result = |found: listing::Listing, mut notes: Vec<String>| {
        let mut records = found.records;
        for r in &mut records {
            fill_currency(r, &doc, &hinted_currency);
        }
        listing::fill_list_currency(&mut records);
        notes.push(found.note);
        if let Some(total) = totals::stated(&doc) {
            notes.push(format!("total:{total}"));
        }
        if wanted.is_some() {
            notes.push(format!("related-links:{}", catalog.related));
        }
        let paginated = !catalog.next.is_empty();
        if paginated {
            notes.push("pagination: more pages".into());
        }
        Extraction {
            kind: PageKind::Listing,
            records,
            complete: !paginated,
            links: catalog.links.clone(),
            next_pages: catalog.next.clone(),
            notes,
        }
    };

    if is_listing {
        let idxs: Vec<usize> = if singles.len() >= 3 {
            singles.clone()
        } else {
            listed.clone()
        };
        let mut records: Vec<Map<String, Value>> = Vec::new();
        for i in idxs {
            let mut r = cands[i].record.clone();
            for k in ["url", "image"] {
                if let Some(u) = field(&r, k).and_then(|h| resolve(&base, h)) {
                    r.insert(k.into(), Value::String(u));
                }
            }
            if !records
                .iter()
                .any(|x| same_product(x, &r) && field(x, "url") == field(&r, "url"))
            {
                records.push(r);
            }
        }
        let src = cands.first().map(|c| c.source.note()).unwrap_or("markup");
        notes.push(src.to_string());
        let found = listing::from_structured(&lcx, records);
        return Ok(listing_result(found, notes));
    }

    // A listing without markup: repeated product cards with prices.
    // A page that labels one product code ("SKU: ...") is that product's page.
    let ids = visible::identifiers(&doc, page.url, page.body);
    let meta_price = [
        "og:price:amount",
        "product:price:amount",
        "og:price",
        "product:price",
    ]
    .iter()
    .any(|k| doc.meta(k).is_some());
    // An ItemList of URLs names the page's list; a product code labelled on
    // the page ("SKU: ...") otherwise says it is one product's page.
    let listed_page = listed_urls.len() >= 2;
    if singles.is_empty() && !og_type.has("product") && !meta_price && (listed_page || !ids.single)
    {
        if let Some(found) = listing::from_page(&lcx, &listed_urls) {
            return Ok(listing_result(found, notes));
        }
    }

    // 2. The main product: the markup candidate that is the page's own.
    let mut main = Map::new();
    if !singles.is_empty() {
        let score = |i: usize| -> i32 {
            let r = &cands[i].record;
            let mut s = schema::richness(r) as i32;
            if r.contains_key("price") {
                s += 3;
            }
            if url_matches(r) {
                s += 6;
            }
            if heading_matches(r) {
                s += 4;
            }
            s - i as i32 / 4
        };
        let best = *singles
            .iter()
            .max_by_key(|&&i| (score(i), -(i as i64)))
            .unwrap();
        main = cands[best].record.clone();
        notes.push(cands[best].source.note().to_string());
        // Fill from the same product in other blocks.
        for &i in &singles {
            if i == best {
                continue;
            }
            let other = &cands[i].record;
            if same_product(&main, other) || distinct_singles == 1 {
                let before = main.len();
                for k in FIELDS {
                    if let Some(v) = field(other, k) {
                        if k == &"price" && main.contains_key("price") {
                            continue;
                        }
                        put(&mut main, k, Some(v.to_string()));
                    }
                }
                if main.len() > before && cands[i].source != cands[best].source {
                    let n = cands[i].source.note().to_string();
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
            }
        }
    }

    // A markup price that the page shows struck through as a list price.
    if let Some(p) = field(&main, "price").map(String::from) {
        if let Some(found) = visible::is_list_price(&doc, &p) {
            main.insert("price".into(), Value::String(found.price.value.clone()));
            notes.push("markup price is the list price; visible sale price used".into());
        }
    }

    // Microdata properties outside any item (a lone itemprop="price").
    let orphan = |k: &str| orphans.get(k).and_then(schema::scalar);
    let mut used_orphans = false;
    if !main.contains_key("price") {
        if let Some(p) = orphan("price").and_then(|p| text::parse_machine_price(&p)) {
            used_orphans |= put(&mut main, "price", Some(p));
            put(
                &mut main,
                "currency",
                orphan("priceCurrency").and_then(|c| text::normalize_currency(&c)),
            );
        }
    }
    for (k, key) in [
        ("sku", "sku"),
        ("mpn", "mpn"),
        ("gtin", "gtin13"),
        ("brand", "brand"),
    ] {
        if !main.contains_key(k) {
            used_orphans |= put(
                &mut main,
                k,
                orphan(key).and_then(|v| text::clean_identifier(&v)),
            );
        }
    }
    if !main.contains_key("availability") {
        used_orphans |= put(
            &mut main,
            "availability",
            orphan("availability").and_then(|a| text::normalize_availability(&a)),
        );
    }
    if used_orphans {
        notes.push("microdata properties".into());
    }

    // OpenGraph and other meta product tags.
    let mut used_meta = false;
    if !main.contains_key("price") {
        let p = [
            "product:sale_price:amount",
            "og:price:amount",
            "product:price:amount",
            "og:price",
            "product:price",
        ]
        .iter()
        .find_map(|k| doc.meta(k).and_then(text::parse_machine_price));
        if p.is_some() {
            used_meta |= put(&mut main, "price", p);
            let c = [
                "product:sale_price:currency",
                "og:price:currency",
                "product:price:currency",
            ]
            .iter()
            .find_map(|k| doc.meta(k).and_then(text::normalize_currency));
            put(&mut main, "currency", c);
        }
    }
    if !main.contains_key("availability") {
        let a = ["og:availability", "product:availability"]
            .iter()
            .find_map(|k| doc.meta(k).and_then(text::normalize_availability));
        used_meta |= put(&mut main, "availability", a);
    }
    for (k, keys) in [
        (
            "sku",
            &["product:retailer_item_id", "product:sku", "og:sku"][..],
        ),
        ("brand", &["product:brand", "og:brand"][..]),
        (
            "gtin",
            &[
                "product:ean",
                "product:upc",
                "product:gtin",
                "product:isbn",
                "books:isbn",
            ][..],
        ),
        ("mpn", &["product:mfr_part_no"][..]),
    ] {
        if !main.contains_key(k) {
            used_meta |= put(
                &mut main,
                k,
                keys.iter()
                    .find_map(|m| doc.meta(m).and_then(text::clean_identifier)),
            );
        }
    }
    if !main.contains_key("condition") {
        put(
            &mut main,
            "condition",
            doc.meta("product:condition")
                .and_then(text::normalize_condition),
        );
    }
    if used_meta {
        notes.push("opengraph".into());
    }

    // 3. The visible page.
    let mut used_visible = false;

    if !main.contains_key("price") {
        if let Some(found) = visible::main_price(&doc) {
            used_visible |= put(&mut main, "price", Some(found.price.value.clone()));
            if let Some(c) = &found.price.currency {
                put(&mut main, "currency", doc.locale.resolve(c, &found.raw));
            }
        }
    }
    // The code the page itself labels as the product's wins over a
    // different internal id in the markup.
    if let (Some(strong), Some(sku)) = (&ids.strong_sku, field(&main, "sku")) {
        if strong != sku && field(&main, "gtin") != Some(strong.as_str()) {
            main.insert("sku".into(), Value::String(strong.clone()));
            notes.push("sku from the labelled product code".into());
        }
    }
    used_visible |= put(&mut main, "sku", ids.sku);
    used_visible |= put(&mut main, "mpn", ids.mpn);
    used_visible |= put(&mut main, "gtin", ids.gtin);
    // Markup that calls the product out of stock while the page offers an
    // enabled buy button (the markup often describes one variant only).
    if field(&main, "availability") == Some("OutOfStock") {
        if let Some(("InStock", why)) = visible::availability(&doc) {
            main.insert("availability".into(), Value::String("InStock".into()));
            notes.push(format!("availability from {} over the markup", why));
        }
    }
    if !main.contains_key("availability") {
        if let Some((a, why)) = visible::availability(&doc) {
            used_visible |= put(&mut main, "availability", Some(a.to_string()));
            notes.push(format!("availability from {}", why));
        }
    }
    // A product page that shows a price and says nothing about stock offers
    // the product: InStock, noted as inferred. OutOfStock is never inferred.
    if !main.contains_key("availability") && main.contains_key("price") {
        put(&mut main, "availability", Some("InStock".into()));
        notes.push("availability inferred from the price shown".into());
    }
    // Brands from markup sometimes carry their label ("... Marca: X").
    if let Some(b) = field(&main, "brand").map(String::from) {
        if let Some((head, tail)) = b.rsplit_once(':') {
            if head.split_whitespace().count() >= 2 && !tail.trim().is_empty() {
                main.insert("brand".into(), Value::String(tail.trim().to_string()));
            }
        }
    }
    if !main.contains_key("brand") {
        used_visible |= put(&mut main, "brand", visible::brand(&doc));
    }
    if !main.contains_key("name") {
        let name = h1
            .clone()
            .or_else(|| doc.meta("og:title").map(String::from))
            .or_else(|| {
                if doc.title.is_empty() {
                    None
                } else {
                    Some(doc.title.clone())
                }
            });
        put(&mut main, "name", name);
    }
    if !main.contains_key("image") {
        put(&mut main, "image", doc.meta("og:image").map(String::from));
    }
    if used_visible {
        notes.push("heuristic".into());
    }
    fill_currency(&mut main, &doc, &hinted_currency);
    if let Some(u) = field(&main, "url").and_then(|h| resolve(&base, h)) {
        main.insert("url".into(), Value::String(u));
    } else if !main.contains_key("url") {
        put(&mut main, "url", Some(page.url.to_string()));
    }
    if let Some(img) = field(&main, "image").and_then(|h| resolve(&base, h)) {
        main.insert("image".into(), Value::String(img));
    }

    let has_product =
        main.contains_key("price") || main.contains_key("sku") || main.contains_key("gtin");
    let records = if has_product { vec![main] } else { Vec::new() };
    if records.is_empty() {
        notes.push("no product found".into());
    }
    let (kind, next_pages) = if has_product {
        (PageKind::Product, Vec::new())
    } else {
        (PageKind::Other, catalog.next.clone())
    };
    if wanted.is_some() {
        notes.push(format!("related-links:{}", catalog.related));
    }
    Ok(Extraction {
        kind,
        records,
        complete: next_pages.is_empty(),
        links: catalog.links.clone(),
        next_pages,
        notes,
    })
}

/// The visible price candidates of a page with their scores (for tuning).
#[doc(hidden)]
pub fn debug_price_candidates(body: &str) -> Vec<(String, String, i32)> {
    let html = scraper::Html::parse_document(body);
    let doc = dom::Doc::build(&html);
    visible::price_candidates(&doc)
        .iter()
        .map(|c| {
            (
                c.price.value.clone(),
                format!("{} {}", c.raw, c.why),
                c.score,
            )
        })
        .collect()
}

/// Set a missing currency from the page's meta tags or its context.
fn fill_currency(r: &mut Map<String, Value>, doc: &dom::Doc, hinted: &Option<String>) {
    if r.contains_key("currency") || !r.contains_key("price") {
        return;
    }
    let c = [
        "og:price:currency",
        "product:price:currency",
        "pricecurrency",
    ]
    .iter()
    .find_map(|k| doc.meta(k).and_then(text::normalize_currency))
    .or_else(|| hinted.clone())
    .or_else(|| doc.locale.default_currency());
    put(r, "currency", c);
}
