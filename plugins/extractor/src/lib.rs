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

// Built natively too, for its tests; the allocator of the component only.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod alloc;
#[cfg(target_arch = "wasm32")]
mod component;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: alloc::Classes = alloc::Classes::new();

mod availability;
mod brand;
mod cards;
mod classify;
mod dom;
mod embedded;
mod identifiers;
mod links;
mod listing;
mod locale;
mod markup;
mod merging;
pub mod money;
pub mod parse;
mod price;
mod product;
pub mod record;
mod relevance;
mod repeated;
mod schema;
mod structured;
pub mod text;
mod totals;
pub mod tree;
mod unpriced;
mod vocabulary;

#[cfg(test)]
mod card_tests;
#[cfg(test)]
mod class_tests;
#[cfg(test)]
mod list_class_tests;
#[cfg(test)]
mod listing_tests;
#[cfg(test)]
mod more_class_tests;
#[cfg(test)]
mod page_tests;
#[cfg(test)]
mod parse_tests;
#[cfg(test)]
mod product_class_tests;
#[cfg(test)]
mod tests;

/// A reproducible stream of pseudo-random numbers (xorshift64) for the
/// tests that compare a fast path with its reference on generated input.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

use crate::classify::Reading;
use crate::record::{Field, Record};
use crate::structured::{resolve, Markup, PageIdentity};
use crate::text::Find as _;
use serde_json::Value;

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
    /// The records, in page order.
    pub records: Vec<Record>,
    /// True when the records are everything the page holds.
    pub complete: bool,
    /// Further catalog pages linked from this one.
    pub links: Vec<String>,
    /// The listing's next page(s), absolute, same site, in order.
    pub next_pages: Vec<String>,
    /// Short remarks on how the records were found.
    pub notes: Vec<String>,
}

fn norm_name(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(|c| c.to_lowercase())
        .collect()
}

/// Whether two records describe the same product.
fn same_product(a: &Record, b: &Record) -> bool {
    for k in [Field::Sku, Field::Gtin, Field::Mpn] {
        if let (Some(x), Some(y)) = (a.get(k), b.get(k)) {
            return x == y;
        }
    }
    match (a.get(Field::Name), b.get(Field::Name)) {
        (Some(x), Some(y)) => norm_name(x) == norm_name(y),
        _ => false,
    }
}

/// Extract the records of a page: its markup (stage 1), what the page is
/// (stage 2), then the listing's cards or the product's fields (stage 3),
/// with the currency each price is counted in (stage 4).
pub fn extract(page: &Page, request: &Request) -> Result<Extraction, String> {
    // Host hints: a currency to use where the page prints none.
    let hinted_currency = request
        .hints
        .get("currency")
        .and_then(|v| v.as_str())
        .and_then(money::normalize_currency);
    let is_json = page
        .content_type
        .is_some_and(|c| c.to_ascii_lowercase().has("json"));
    if is_json {
        return Ok(json_body(page, &hinted_currency));
    }
    let html = parse::document(page.body);
    let mut doc = dom::Doc::build(&html);
    doc.locale = locale::Locale::of(&doc, page.url);
    let doc = doc;
    let base = url::Url::parse(page.url).ok();
    let host = base
        .as_ref()
        .and_then(|u| u.host_str().map(|h| h.to_ascii_lowercase()))
        .unwrap_or_default();
    let mut notes: Vec<String> = Vec::new();

    let markup = Markup::read(&doc, &html, &base);
    let identity = PageIdentity::of(&doc, &base);
    let wanted = relevance::Wanted::of(request.entity, request.hints);
    let catalog = links::catalog_links(&doc, &base, page.url, &markup.listed_urls, wanted.as_ref());
    let cx = listing::Ctx {
        doc: &doc,
        base: &base,
        host: &host,
    };
    let ids = identifiers::of_page(&doc, page.url, page.body);
    let (mut kind, mut records) = match classify::classify(&cx, &markup, &identity, &ids) {
        Reading::MarkupList(records) => {
            let src = markup.candidates.first().map(|c| c.source.note());
            notes.push(src.unwrap_or("markup").to_string());
            let found = listing::from_structured(&cx, records);
            notes.push(found.note);
            (PageKind::Listing, found.records)
        }
        Reading::PageList(found) => {
            notes.push(found.note);
            (PageKind::Listing, found.records)
        }
        Reading::Single => {
            let main = product::read(&doc, &markup, &identity, ids, &base, page.url, &mut notes);
            match main {
                Some(r) => (PageKind::Product, vec![r]),
                None => {
                    notes.push("no product found".into());
                    (PageKind::Other, Vec::new())
                }
            }
        }
    };
    // An article (news, a blog post, a recipe) without product markup lists
    // its teasers, comments or further reading, not products, unless most
    // of its cards show a price with its currency (a buying guide's offers,
    // not a recipe's quantities). Here `og:type` article is enough: every
    // list of a shop that says so showed prices.
    let priced = records
        .iter()
        .filter(|r| r.has(Field::Price) && r.has(Field::Currency))
        .count();
    if kind == PageKind::Listing
        && (markup.article || markup.og_article)
        && markup.candidates.is_empty()
        && priced * 2 < records.len().max(1)
    {
        notes.push("an article's page: its list shows no prices".into());
        kind = PageKind::Other;
        records.clear();
    }
    for r in &mut records {
        fill_currency(r, &doc, &hinted_currency);
    }
    let mut next_pages = Vec::new();
    match kind {
        PageKind::Listing => {
            listing::fill_list_currency(&mut records, doc.locale.data_currency.as_deref());
            if let Some(total) = totals::stated(&doc) {
                notes.push(format!("total:{total}"));
            }
            next_pages = catalog.next.clone();
        }
        // A page with no product may still lead to the next page of a list.
        PageKind::Other => next_pages = catalog.next.clone(),
        PageKind::Product => {}
    }
    if wanted.is_some() {
        notes.push(format!("related-links:{}", catalog.related));
    }
    let paginated = kind == PageKind::Listing && !next_pages.is_empty();
    if paginated {
        notes.push("pagination: more pages".into());
    }
    // A component's instance serves one call and its memory goes with it
    // (PLUGINS.md): the page's tree, walk and markup are left as they are
    // instead of being freed node by node.
    #[cfg(target_arch = "wasm32")]
    {
        std::mem::forget((doc, markup));
        std::mem::forget(html);
    }
    Ok(Extraction {
        kind,
        records,
        complete: next_pages.is_empty(),
        links: catalog.links,
        next_pages,
        notes,
    })
}

/// A JSON body (an API answer, a JSON-LD document), read as schema.org
/// data.
fn json_body(page: &Page, hinted_currency: &Option<String>) -> Extraction {
    let values = schema::parse_jsonld(page.body);
    let mut found = Vec::new();
    schema::collect_products(&values, &mut found);
    let base = url::Url::parse(page.url).ok();
    let records: Vec<Record> = found
        .iter()
        .map(|f| {
            let mut r = schema::record_from_node(&f.node);
            if let Some(u) = r.get(Field::Url).and_then(|h| resolve(&base, h)) {
                r.set(Field::Url, u);
            }
            if !r.has(Field::Currency) && r.has(Field::Price) {
                r.put(Field::Currency, hinted_currency.clone());
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
    Extraction {
        kind,
        records,
        complete: true,
        links: Vec::new(),
        next_pages: Vec::new(),
        notes,
    }
}

/// The visible price candidates of a page with their scores (for tuning).
#[doc(hidden)]
pub fn debug_price_candidates(body: &str) -> Vec<(String, String, i32)> {
    let html = parse::document(body);
    let doc = dom::Doc::build(&html);
    price::page::price_candidates(&doc)
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
fn fill_currency(r: &mut Record, doc: &dom::Doc, hinted: &Option<String>) {
    // A currency is a price's: without one it says nothing (markup that
    // names a currency beside an empty price).
    if !r.has(Field::Price) {
        r.take(Field::Currency);
        return;
    }
    if r.has(Field::Currency) {
        return;
    }
    let c = [
        "og:price:currency",
        "product:price:currency",
        "pricecurrency",
    ]
    .iter()
    .find_map(|k| doc.meta(k).and_then(money::normalize_currency))
    .or_else(|| hinted.clone())
    .or_else(|| shown_currency(doc, r.get(Field::Price)?))
    .or_else(|| doc.locale.default_currency());
    r.put(Field::Currency, c);
}

/// The currency the page shows beside the amount of the record's price
/// ("253.0 грн" where the markup gives 253 and no valid code).
fn shown_currency(doc: &dom::Doc, price: &str) -> Option<String> {
    let value = price.parse::<f64>().ok()?;
    let shown = price::page::price_candidates(doc)
        .iter()
        .filter(|c| c.price.value.parse::<f64>().is_ok_and(|v| v == value))
        .max_by_key(|c| c.score)?;
    // A bare "$" or "kr" as the page resolves it (or leaves it).
    doc.locale
        .resolve(shown.price.currency.as_deref()?, &shown.raw)
}
