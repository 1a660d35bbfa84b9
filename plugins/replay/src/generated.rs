//! `big-catalog.example`: a catalog too large to keep as files, generated
//! page by page from its product number, the same bytes on every call.
//!
//! - `/` links to `/catalog/`; `robots.txt` allows everything.
//! - `/catalog/` and `/catalog/?page=N` (N = 2..=[`PAGES`]) list
//!   [`PER_PAGE`] products each, in number order, as visible cards and a
//!   JSON-LD `ItemList` of `Product`s with one `Offer` each (USD), with
//!   `rel="next"` to the following page.
//! - `/p/N.html` is product N's page (one JSON-LD `Product` with its brand).
//!
//! Product N (1..=[`PRODUCTS`]) is a lamp: see [`product`].

use super::RecordedPage;

/// The catalog's host.
pub const DOMAIN: &str = "big-catalog.example";
/// Products per listing page.
pub const PER_PAGE: u32 = 40;
/// Listing pages.
pub const PAGES: u32 = 130;
/// Products in the catalog.
pub const PRODUCTS: u32 = PER_PAGE * PAGES;

const KINDS: [&str; 5] = [
    "Desk Lamp",
    "Floor Lamp",
    "Table Lamp",
    "Wall Lamp",
    "Pendant Lamp",
];
const BRANDS: [&str; 3] = ["Lumio", "Brightway", "Halden"];

/// Product N: (name, price in cents, in stock, brand).
pub fn product(n: u32) -> (String, u32, bool, &'static str) {
    let name = format!("{} No. {n}", KINDS[(n % 5) as usize]);
    let cents = 500 + (n * 3_701) % 30_000;
    (name, cents, n % 7 != 0, BRANDS[(n % 3) as usize])
}

fn money(cents: u32) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// The page for a path and query of the catalog, if there is one.
pub fn page(path: &str, query: Option<&str>) -> Option<RecordedPage> {
    let html = |url: String, body: String| RecordedPage {
        url,
        status: 200,
        content_type: Some("text/html; charset=utf-8".into()),
        body,
    };
    match (path, query) {
        ("", None) => Some(html(
            format!("https://{DOMAIN}/"),
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Big Catalog</title></head>\
             <body><h1>Big Catalog</h1><p>Every lamp we sell.</p><a href=\"/catalog/\">All lamps</a></body></html>"
                .into(),
        )),
        ("/robots.txt", None) => Some(RecordedPage {
            url: format!("https://{DOMAIN}/robots.txt"),
            status: 200,
            content_type: Some("text/plain; charset=utf-8".into()),
            body: "User-agent: *\nAllow: /\n".into(),
        }),
        ("/catalog", None) => Some(html(format!("https://{DOMAIN}/catalog/"), listing(1))),
        ("/catalog", Some(q)) => {
            let n: u32 = q.strip_prefix("page=")?.parse().ok()?;
            if !(2..=PAGES).contains(&n) || q != format!("page={n}") {
                return None;
            }
            Some(html(format!("https://{DOMAIN}/catalog/?page={n}"), listing(n)))
        }
        (p, None) => {
            let n: u32 = p.strip_prefix("/p/")?.strip_suffix(".html")?.parse().ok()?;
            if !(1..=PRODUCTS).contains(&n) || p != format!("/p/{n}.html") {
                return None;
            }
            Some(html(format!("https://{DOMAIN}/p/{n}.html"), product_page(n)))
        }
        _ => None,
    }
}

fn listing(page: u32) -> String {
    let first = (page - 1) * PER_PAGE + 1;
    let mut items = Vec::new();
    let mut cards = String::new();
    for n in first..first + PER_PAGE {
        let (name, cents, in_stock, _) = product(n);
        let availability = if in_stock { "InStock" } else { "OutOfStock" };
        items.push(serde_json::json!({
            "@type": "ListItem",
            "position": n - first + 1,
            "item": {
                "@type": "Product",
                "name": name,
                "url": format!("/p/{n}.html"),
                "sku": format!("BC-{n:05}"),
                "offers": { "@type": "Offer", "price": money(cents), "priceCurrency": "USD",
                            "availability": format!("https://schema.org/{availability}") },
            },
        }));
        cards.push_str(&format!(
            "<li class=\"card\"><a href=\"/p/{n}.html\">{name}</a> <span class=\"price\">${}</span> <span>{}</span></li>\n",
            money(cents),
            if in_stock { "In stock" } else { "Out of stock" }
        ));
    }
    let ld = serde_json::json!({ "@context": "https://schema.org", "@type": "ItemList", "itemListElement": items });
    let next = if page < PAGES {
        format!("<link rel=\"next\" href=\"/catalog/?page={}\">", page + 1)
    } else {
        String::new()
    };
    let next_a = if page < PAGES {
        format!(
            "<a rel=\"next\" href=\"/catalog/?page={}\">Next</a>",
            page + 1
        )
    } else {
        String::new()
    };
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>All lamps, page {page} of {PAGES}</title>{next}\
         <script type=\"application/ld+json\">{ld}</script></head><body><h1>All lamps</h1>\
         <ul class=\"products\">\n{cards}</ul><nav class=\"pagination\">{next_a}</nav></body></html>"
    )
}

fn product_page(n: u32) -> String {
    let (name, cents, in_stock, brand) = product(n);
    let availability = if in_stock { "InStock" } else { "OutOfStock" };
    let ld = serde_json::json!({
        "@context": "https://schema.org", "@type": "Product", "name": name,
        "url": format!("/p/{n}.html"), "sku": format!("BC-{n:05}"),
        "brand": { "@type": "Brand", "name": brand },
        "offers": { "@type": "Offer", "price": money(cents), "priceCurrency": "USD",
                    "availability": format!("https://schema.org/{availability}") },
    });
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{name}</title>\
         <script type=\"application/ld+json\">{ld}</script></head><body><h1>{name}</h1>\
         <p>Brand: {brand}</p><p class=\"price\">${}</p></body></html>",
        money(cents)
    )
}
