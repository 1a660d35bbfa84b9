//! An example site-specific extractor for the made-up shop
//! `example-shop.test`, whose listing pages mark every product up like this:
//!
//! ```html
//! <div class="product" data-sku="ES-1001">
//!   <a class="name" href="/products/es-1001">Trail Kettle 1.2 L</a>
//!   <span class="price" data-currency="EUR">1,024.90</span>
//!   <span class="stock">In stock</span>
//! </div>
//! ...
//! <a rel="next" href="/catalog?page=2">Next</a>
//! ```
//!
//! The parsing is a plain function, [`extract`], unit-tested natively with
//! `cargo test -p rust-extractor`. The WebAssembly face that the host calls
//! lives in `component.rs` and is compiled only for wasm32.

#[cfg(target_arch = "wasm32")]
mod component;

use scraper::{ElementRef, Html, Selector};
use serde_json::{Map, Value};

/// What the extractor found on one page.
#[derive(Debug, Default, PartialEq)]
pub struct Found {
    /// One JSON object per product.
    pub records: Vec<Map<String, Value>>,
    /// True when the records are every product of the page's catalog: no
    /// next page, and no product that had to be skipped.
    pub complete: bool,
    /// Further catalog pages (the next page of the listing).
    pub links: Vec<String>,
    /// Short remarks for the receipt.
    pub notes: Vec<String>,
}

/// Reads every `div.product[data-sku]` of an example-shop.test page.
/// Relative links are resolved against `page_url`.
pub fn extract(page_url: &str, body: &str) -> Found {
    let base = url::Url::parse(page_url).ok();
    let document = Html::parse_document(body);
    let products = selector("div.product[data-sku]");
    let next = selector("a[rel~=next][href], link[rel~=next][href]");

    let mut found = Found {
        notes: vec!["example-shop".into()],
        ..Found::default()
    };
    let mut skipped = 0;
    for product in document.select(&products) {
        match read_product(product, base.as_ref()) {
            Some(record) => found.records.push(record),
            None => skipped += 1,
        }
    }
    if skipped > 0 {
        found
            .notes
            .push(format!("skipped {skipped} products without a name"));
    }
    for link in document.select(&next) {
        if let Some(href) = link.value().attr("href") {
            found.links.push(absolute(base.as_ref(), href));
        }
    }
    found.complete = skipped == 0 && found.links.is_empty();
    found
}

/// One product's record, or `None` when it has no name.
fn read_product(product: ElementRef, base: Option<&url::Url>) -> Option<Map<String, Value>> {
    let sku = product.value().attr("data-sku")?.trim();
    let name_el = product.select(&selector(".name")).next()?;
    let name = text_of(name_el);
    if name.is_empty() || sku.is_empty() {
        return None;
    }
    let mut record = Map::new();
    record.insert("name".into(), name.into());
    record.insert("sku".into(), sku.into());

    // The product link: the name itself when it is a link, else the first
    // link inside the product.
    let href = name_el.value().attr("href").or_else(|| {
        product
            .select(&selector("a[href]"))
            .next()
            .and_then(|a| a.value().attr("href"))
    });
    if let Some(href) = href {
        record.insert("url".into(), absolute(base, href).into());
    }

    if let Some(price_el) = product.select(&selector(".price")).next() {
        if let Some(price) = decimal(&text_of(price_el)) {
            record.insert("price".into(), price.into());
        }
        if let Some(currency) = price_el
            .value()
            .attr("data-currency")
            .and_then(currency_code)
        {
            record.insert("currency".into(), currency.into());
        }
    }

    if let Some(stock) = product.select(&selector(".stock")).next() {
        if let Some(availability) = availability(&text_of(stock)) {
            record.insert("availability".into(), availability.into());
        }
    }
    Some(record)
}

/// The selectors are constants; a typo in one is a bug caught by the tests.
fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("a valid selector")
}

/// An element's text with runs of whitespace collapsed to one space.
fn text_of(element: ElementRef) -> String {
    element
        .text()
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `href` resolved against the page URL (kept as it is when either does not
/// parse).
fn absolute(base: Option<&url::Url>, href: &str) -> String {
    let href = href.trim();
    base.and_then(|b| b.join(href).ok())
        .map_or_else(|| href.to_owned(), |u| u.to_string())
}

/// The shop writes prices as plain decimals with optional thousands commas
/// ("1,024.90"). Anything else is not a price this extractor understands.
pub fn decimal(text: &str) -> Option<String> {
    let plain: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',')
        .collect();
    let (whole, fraction) = match plain.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (plain.as_str(), None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(whole) && fraction.is_none_or(digits)).then_some(plain)
}

/// An ISO 4217 code: three ASCII letters, upper-cased.
fn currency_code(code: &str) -> Option<String> {
    let code = code.trim();
    (code.len() == 3 && code.bytes().all(|b| b.is_ascii_alphabetic()))
        .then(|| code.to_ascii_uppercase())
}

/// The shop's stock wording as a schema.org availability short name.
pub fn availability(text: &str) -> Option<&'static str> {
    let text = text.to_lowercase();
    let text = text.trim();
    let value = if text.starts_with("out of stock") || text.starts_with("sold out") {
        "OutOfStock"
    } else if text.starts_with("in stock") {
        "InStock"
    } else if text.starts_with("only") && text.ends_with("left") {
        "LimitedAvailability"
    } else if text.starts_with("pre-order") || text.starts_with("preorder") {
        "PreOrder"
    } else if text.starts_with("back-order") || text.starts_with("backorder") {
        "BackOrder"
    } else {
        return None;
    };
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LISTING: &str = r#"<!doctype html>
<html><head><title>Kettles - Example Shop</title></head><body>
<div class="product" data-sku="ES-1001">
  <a class="name" href="/products/es-1001">Trail   Kettle
    1.2 L</a>
  <span class="price" data-currency="eur">1,024.90</span>
  <span class="stock">In stock</span>
</div>
<div class="product" data-sku="ES-1002">
  <h2 class="name">Camp Mug</h2>
  <a href="https://example-shop.test/products/es-1002">details</a>
  <span class="price" data-currency="EUR">7</span>
  <span class="stock">Sold out</span>
</div>
<div class="product" data-sku="ES-1003">
  <span class="price" data-currency="EUR">3.50</span>
</div>
<a rel="next" href="?page=2">Next</a>
</body></html>"#;

    #[test]
    fn reads_every_product_of_a_listing() {
        let found = extract("https://example-shop.test/catalog/kettles", LISTING);
        let records: Vec<Value> = found.records.into_iter().map(Value::Object).collect();
        assert_eq!(
            records,
            [
                json!({
                    "name": "Trail Kettle 1.2 L",
                    "sku": "ES-1001",
                    "url": "https://example-shop.test/products/es-1001",
                    "price": "1024.90",
                    "currency": "EUR",
                    "availability": "InStock",
                }),
                json!({
                    "name": "Camp Mug",
                    "sku": "ES-1002",
                    "url": "https://example-shop.test/products/es-1002",
                    "price": "7",
                    "currency": "EUR",
                    "availability": "OutOfStock",
                }),
            ]
        );
        assert_eq!(
            found.links,
            ["https://example-shop.test/catalog/kettles?page=2"]
        );
        assert!(
            !found.complete,
            "a paginated listing with a skipped product is partial"
        );
        assert_eq!(
            found.notes,
            ["example-shop", "skipped 1 products without a name"]
        );
    }

    #[test]
    fn a_last_page_without_gaps_is_complete() {
        let body = r#"<div class="product" data-sku="A"><span class="name">A</span></div>"#;
        let found = extract("https://example-shop.test/", body);
        assert!(found.complete);
        assert_eq!(found.records.len(), 1);
        assert_eq!(
            Value::Object(found.records[0].clone()),
            json!({"name": "A", "sku": "A"})
        );
    }

    #[test]
    fn a_page_without_products_gives_no_records() {
        let found = extract("https://example-shop.test/about", "<p>About us</p>");
        assert!(found.records.is_empty());
        assert!(found.complete);
    }

    #[test]
    fn prices_are_plain_decimals_or_nothing() {
        assert_eq!(decimal(" 1,299.00 ").as_deref(), Some("1299.00"));
        assert_eq!(decimal("12").as_deref(), Some("12"));
        assert_eq!(decimal("€12"), None);
        assert_eq!(decimal("12."), None);
        assert_eq!(decimal(""), None);
    }

    #[test]
    fn stock_wording_maps_to_schema_org() {
        assert_eq!(availability("In stock"), Some("InStock"));
        assert_eq!(availability("OUT OF STOCK"), Some("OutOfStock"));
        assert_eq!(availability("Only 2 left"), Some("LimitedAvailability"));
        assert_eq!(availability("Pre-order now"), Some("PreOrder"));
        assert_eq!(availability("Backorder"), Some("BackOrder"));
        assert_eq!(availability("Ask us"), None);
    }
}
