//! Product lists in the state that shops embed in their pages: Next.js
//! `__NEXT_DATA__`, Nuxt and other `window.__STATE__ = {...}` globals,
//! Shopify product JSON and other `application/json` scripts, and JSON in
//! `data-*` attributes. Products are recognised by shape (a name and a
//! price), not by site.

use crate::dom::Doc;
use crate::money::{normalize_currency, parse_machine_price};
use crate::record::{Field, Record};
use crate::text::Find as _;
use crate::text::{clean_identifier, normalize_availability};
use serde_json::{Map, Value};

/// Words in a JSON path that mark lists of other products.
const OTHER_PATH_WORDS: &[&str] = &[
    "recommend",
    "related",
    "recent",
    "similar",
    "upsell",
    "crosssell",
    "cross_sell",
    "alsobought",
    "also_bought",
    "sponsored",
    "viewed",
    "cart",
    "wishlist",
    "bestseller",
    "trending",
];

fn first_str(o: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match o.get(*k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Object(inner)) => first_str(inner, &["name", "title", "value", "src", "url"]),
        _ => None,
    })
}

const NAME_KEYS: &[&str] = &[
    "name",
    "title",
    "productName",
    "product_name",
    "displayName",
    "display_name",
];
const PRICE_KEYS: &[&str] = &[
    "price",
    "salePrice",
    "sale_price",
    "currentPrice",
    "current_price",
    "finalPrice",
    "final_price",
    "priceValue",
    "price_amount",
    "sellingPrice",
    "minPrice",
    "prices",
    "priceRange",
    "pricing",
];
const LIST_KEYS: &[&str] = &[
    "compare_at_price",
    "compareAtPrice",
    "listPrice",
    "list_price",
    "regularPrice",
    "regular_price",
    "originalPrice",
    "original_price",
    "wasPrice",
    "was_price",
    "oldPrice",
    "old_price",
    "msrp",
];

/// Words of price keys that name another amount than what one pays now: a
/// former or suggested price, a bound, a unit or members' price.
const FORMER_PRICE_WORDS: &[&str] = &[
    "compare",
    "was",
    "old",
    "regular",
    "original",
    "list",
    "msrp",
    "strike",
    "before",
    "max",
    "high",
    "range",
    "tax",
    "unit",
    "club",
    "member",
    "point",
    "suggested",
    "recommended",
    "rrp",
    "uvp",
];

/// A price value: a number, a numeric string, or an object holding one.
fn price_value(v: &Value, depth: usize) -> Option<(String, Option<String>)> {
    if depth > 3 {
        return None;
    }
    match v {
        Value::Number(n) => {
            let s = n.to_string();
            parse_machine_price(&s).map(|p| (p, None))
        }
        Value::String(s) => {
            let t = s.trim();
            if t.is_empty() || !t.bytes().any(|b| b.is_ascii_digit()) {
                return None;
            }
            if t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                parse_machine_price(t).map(|p| (p, None))
            } else {
                crate::money::parse_price(t).map(|p| (p.value, p.currency))
            }
        }
        Value::Object(o) => {
            let cur = first_str(
                o,
                &["currency", "currencyCode", "currency_code", "priceCurrency"],
            )
            .and_then(|c| normalize_currency(&c));
            if let Some(p) = money_units(o) {
                return Some((p, cur));
            }
            for k in [
                "current",
                "sale",
                "final",
                "value",
                "amount",
                "min",
                "price",
                "minVariantPrice",
                "raw",
                "selling",
            ] {
                if let Some((p, c)) = o.get(k).and_then(|x| price_value(x, depth + 1)) {
                    return Some((p, c.or(cur)));
                }
            }
            // A price object of its own kind ("totalPriceRange": {"min": ..}):
            // inside a price, a range is read at its low end ("min" above).
            let inner_price = o.iter().find(|(k, _)| {
                let k = k.to_ascii_lowercase();
                k.contains("price")
                    && !FORMER_PRICE_WORDS
                        .iter()
                        .any(|w| *w != "range" && k.contains(w))
            });
            if let Some((p, c)) = inner_price.and_then(|(_, x)| price_value(x, depth + 1)) {
                return Some((p, c.or(cur)));
            }
            if let Some((p, c)) = o.get("regular").and_then(|x| price_value(x, depth + 1)) {
                return Some((p, c.or(cur)));
            }
            // The amount as the page prints it ("priceFormatted": "€ 1.440"),
            // never a former one ("suggestedRetailPrice").
            o.iter()
                .filter(|(k, _)| {
                    let k = k.to_ascii_lowercase();
                    ["formatted", "display", "text"]
                        .iter()
                        .any(|w| k.contains(w))
                        && !FORMER_PRICE_WORDS.iter().any(|w| k.contains(w))
                })
                .find_map(|(_, x)| price_value(x, depth + 1))
                .map(|(p, c)| (p, c.or(cur)))
        }
        // A product's prices by kind (`[{"type": "cmrPrice", ...},
        // {"type": "internetPrice", ...}, {"crossed": true, ...}]`):
        // everyone's current one, else the first.
        Value::Array(a) => a
            .iter()
            .find(|x| x.as_object().is_some_and(|o| !of_another_kind(o)))
            .or(a.first())
            .and_then(|x| price_value(x, depth + 1)),
        _ => None,
    }
}

/// Whether a price object of a list of prices is struck (`"crossed":
/// true`) or names a store card's, a members' or a former price by its
/// kind ("cmrPrice", "clubPrice", "listPrice").
fn of_another_kind(o: &Map<String, Value>) -> bool {
    if o.get("crossed").and_then(Value::as_bool) == Some(true) {
        return true;
    }
    ["type", "kind", "priceType", "label", "icons"]
        .iter()
        .any(|k| {
            o.get(*k).and_then(Value::as_str).is_some_and(|v| {
                let v = v.to_ascii_lowercase();
                ["cmr", "member", "club", "loyalty", "card", "tarjeta"]
                    .iter()
                    .chain(FORMER_PRICE_WORDS)
                    .any(|w| v.contains(w))
            })
        })
}

/// An amount written as whole units and billionths (`{"units": 62,
/// "nanos": 990000000}`, the money type of gRPC APIs).
fn money_units(o: &Map<String, Value>) -> Option<String> {
    let whole = |v: &Value| match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    let units = whole(o.get("units")?)?;
    let nanos = o.get("nanos").map_or(Some(0), whole)?;
    if units < 0 || !(0..1_000_000_000).contains(&nanos) {
        return None;
    }
    let digits = format!("{nanos:09}");
    let cents = digits.trim_end_matches('0');
    Some(format!("{units}.{cents:0<2}"))
}

/// The current price of an object, by the meaning of its keys: a key named
/// for a sale ("salePrice", "product_specialPrice", "finalPrice") over a
/// plain price key ("price", "product_price", "priceInfo"); never a former
/// price ("compare_at_price", "oldPrice") and never zero (data often writes
/// 0 for "no price").
fn current_price(o: &Map<String, Value>) -> Option<(String, Option<String>)> {
    const FORMER: &[&str] = FORMER_PRICE_WORDS;
    const SALE: &[&str] = &[
        "sale",
        "special",
        "final",
        "current",
        "offer",
        "now",
        "selling",
        "discounted",
        "promo",
    ];
    let positive = |(p, c): (String, Option<String>)| {
        (p.parse::<f64>().unwrap_or(0.0) > 0.0).then_some((p, c))
    };
    let mut plain: Option<(String, Option<String>)> = None;
    let mut sale: Option<(String, Option<String>)> = None;
    for (k, v) in o {
        let k = k.to_ascii_lowercase();
        if !k.contains("price") && !PRICE_KEYS.iter().any(|p| p.eq_ignore_ascii_case(&k)) {
            continue;
        }
        let is_sale = SALE.iter().any(|w| k.contains(w));
        if !is_sale && FORMER.iter().any(|w| k.contains(w)) {
            continue;
        }
        let Some(found) = price_value(v, 0).and_then(positive) else {
            continue;
        };
        if is_sale {
            let lower = sale.as_ref().is_none_or(|(s, _)| {
                found.0.parse::<f64>().unwrap_or(0.0) < s.parse().unwrap_or(0.0)
            });
            if lower {
                sale = Some(found);
            }
        } else if plain.is_none() || k == "price" {
            plain = Some(found);
        }
    }
    sale.or(plain).or_else(|| {
        PRICE_KEYS
            .iter()
            .find_map(|k| o.get(*k).and_then(|v| price_value(v, 0)).and_then(positive))
    })
}

/// Whether an object of a product list names and links a product that shows
/// no price.
fn priceless_item(o: &Map<String, Value>) -> bool {
    first_str(o, NAME_KEYS).is_some()
        && [
            "url",
            "href",
            "link",
            "slug",
            "handle",
            "productUrl",
            "product_url",
            "path",
            "urlKey",
            "url_key",
        ]
        .iter()
        .any(|k| o.get(*k).is_some_and(|v| v.is_string()))
}

/// Whether an object looks like a product: a name, or a link to its page,
/// and a price.
fn looks_like_product(o: &Map<String, Value>) -> bool {
    (first_str(o, NAME_KEYS).is_some() || page_link(o).is_some()) && current_price(o).is_some()
}

/// A product object's link to its own page: a site path or an http URL.
fn page_link(o: &Map<String, Value>) -> Option<String> {
    first_str(
        o,
        &["url", "href", "link", "productUrl", "product_url", "pdpUrl"],
    )
    .filter(|u| {
        (u.starts_with('/') && u.len() > 1 && !u.starts_with("//")) || u.starts_with("http")
    })
    .or_else(|| named_page_link(o))
}

/// A link under a key of another spelling ("productPageUrl",
/// "detailPageLink"): a key ending in url, link or href that is not an
/// image's or an API's, holding a site path or an http URL.
fn named_page_link(o: &Map<String, Value>) -> Option<String> {
    const NOT_PAGES: &[&str] = &[
        "image", "img", "photo", "thumb", "media", "video", "swatch", "sprite", "api", "logo",
        "icon", "asset", "review", "seller", "brand", "store",
    ];
    o.iter().find_map(|(k, v)| {
        let k = k.to_ascii_lowercase();
        let named = ["url", "link", "href"].iter().any(|w| k.ends_with(w))
            && !NOT_PAGES.iter().any(|w| k.contains(w));
        let u = v.as_str()?.trim();
        let page =
            (u.starts_with('/') && u.len() > 1 && !u.starts_with("//")) || u.starts_with("http");
        (named && page).then(|| u.to_string())
    })
}

/// Shopify's product objects give prices in cents.
fn in_cents(o: &Map<String, Value>) -> bool {
    o.contains_key("handle")
        && (o.contains_key("variants") || o.contains_key("price_min"))
        && matches!(o.get("price"), Some(Value::Number(n)) if n.is_u64())
}

fn cents(p: &str) -> String {
    let v: f64 = p.parse().unwrap_or(0.0) / 100.0;
    format!("{:.2}", v)
}

fn put(r: &mut Record, f: Field, v: Option<String>) {
    r.put(f, v.map(|v| crate::text::squash(&v)));
}

/// A record from a product-shaped object. `url` is left relative (or a
/// bare handle/slug under the key `slug`) for the caller to resolve.
pub fn record_of(o: &Map<String, Value>) -> Record {
    let mut r = Record::new();
    put(&mut r, Field::Name, first_str(o, NAME_KEYS));
    let cents_shape = in_cents(o);
    let mut currency = None;
    if let Some((p, c)) = current_price(o) {
        let p = if cents_shape { cents(&p) } else { p };
        put(&mut r, Field::Price, Some(p));
        currency = c;
    }
    for k in LIST_KEYS {
        if let Some((p, _)) = o.get(*k).and_then(|v| price_value(v, 0)) {
            let p = if cents_shape { cents(&p) } else { p };
            let higher = match (p.parse::<f64>(), r.get(Field::Price)) {
                (Ok(l), Some(c)) => l > c.parse::<f64>().unwrap_or(f64::MAX),
                _ => false,
            };
            if higher {
                put(&mut r, Field::ListPrice, Some(p));
            }
            break;
        }
    }
    put(
        &mut r,
        Field::Currency,
        currency.or_else(|| {
            first_str(
                o,
                &["currency", "priceCurrency", "currencyCode", "currency_code"],
            )
            .and_then(|c| normalize_currency(&c))
        }),
    );
    put(
        &mut r,
        Field::Url,
        first_str(
            o,
            &[
                "url",
                "href",
                "link",
                "productUrl",
                "product_url",
                "canonicalUrl",
                "pdpUrl",
                "path",
            ],
        ),
    );
    if !r.has(Field::Url) {
        put(&mut r, Field::Url, named_page_link(o));
    }
    if !r.has(Field::Url) {
        if let Some(h) = first_str(o, &["handle"]) {
            put(&mut r, Field::Slug, Some(format!("/products/{}", h)));
        } else {
            put(
                &mut r,
                Field::Slug,
                first_str(o, &["slug", "urlKey", "url_key"]),
            );
        }
    }
    put(
        &mut r,
        Field::Sku,
        first_str(o, &["sku", "SKU", "productSku", "product_sku", "itemSku"])
            .and_then(|s| clean_identifier(&s)),
    );
    if !r.has(Field::Sku) {
        if let Some(Value::Array(vs)) = o.get("variants") {
            if let Some(Value::Object(v)) = vs.first() {
                put(
                    &mut r,
                    Field::Sku,
                    first_str(v, &["sku"]).and_then(|s| clean_identifier(&s)),
                );
            }
        }
    }
    let image = first_str(
        o,
        &[
            "image",
            "imageUrl",
            "image_url",
            "img",
            "thumbnail",
            "featured_image",
            "featuredImage",
        ],
    )
    .or_else(|| match o.get("images") {
        Some(Value::Array(a)) => a.first().and_then(|x| match x {
            Value::String(s) => Some(s.clone()),
            Value::Object(io) => first_str(io, &["src", "url"]),
            _ => None,
        }),
        _ => None,
    });
    put(
        &mut r,
        Field::Image,
        image.filter(|i| !i.starts_with("data:")),
    );
    put(
        &mut r,
        Field::Brand,
        first_str(o, &["brand", "vendor", "manufacturer", "brandName"]),
    );
    let avail = first_str(
        o,
        &[
            "availability",
            "stockStatus",
            "stock_status",
            "inventoryStatus",
        ],
    )
    .and_then(|a| normalize_availability(&a))
    .or_else(|| {
        [
            "inStock",
            "in_stock",
            "available",
            "isAvailable",
            "is_in_stock",
        ]
        .iter()
        .find_map(|k| o.get(*k).and_then(|v| v.as_bool()))
        .map(|b| if b { "InStock" } else { "OutOfStock" }.to_string())
    })
    .or_else(|| {
        ["soldOut", "sold_out", "isSoldOut", "outOfStock"]
            .iter()
            .find_map(|k| o.get(*k).and_then(|v| v.as_bool()))
            .map(|b| if b { "OutOfStock" } else { "InStock" }.to_string())
    });
    put(&mut r, Field::Availability, avail);
    r
}

/// A list of products found in the data: its JSON path and its records.
#[derive(Debug)]
pub struct Found {
    pub path: String,
    pub records: Vec<Record>,
}

/// Arrays of at least two product-shaped objects in a JSON value.
fn product_arrays(
    v: &Value,
    path: &mut String,
    out: &mut Vec<Found>,
    depth: usize,
    budget: &mut usize,
) {
    if depth > 24 || *budget == 0 {
        return;
    }
    *budget -= 1;
    match v {
        Value::Array(a) => {
            let objs: Vec<&Map<String, Value>> = a.iter().filter_map(|x| x.as_object()).collect();
            let products: Vec<&Map<String, Value>> = objs
                .iter()
                .copied()
                .filter(|o| looks_like_product(o))
                .collect();
            if products.len() >= 2 && products.len() * 2 >= objs.len() {
                // Members without a price (sold out, call for price) are
                // products of the same list when they name and link one.
                out.push(Found {
                    path: path.clone(),
                    records: objs
                        .iter()
                        .filter(|o| looks_like_product(o) || priceless_item(o))
                        .map(|o| record_of(o))
                        .collect(),
                });
                return;
            }
            // Lists of wrappers ({"node": {...}}, {"product": {...}}).
            let inner: Vec<&Map<String, Value>> = objs
                .iter()
                .filter_map(|o| {
                    ["node", "product", "item", "data"]
                        .iter()
                        .find_map(|k| o.get(*k).and_then(|x| x.as_object()))
                })
                .filter(|o| looks_like_product(o))
                .collect();
            if inner.len() >= 2 && inner.len() * 2 >= objs.len() {
                out.push(Found {
                    path: path.clone(),
                    records: inner.iter().map(|o| record_of(o)).collect(),
                });
                return;
            }
            for x in a.iter().take(500) {
                product_arrays(x, path, out, depth + 1, budget);
            }
        }
        Value::Object(o) => {
            // A normalized cache (Apollo, Relay, Redux entities): products
            // as the values of an object keyed by type and id.
            let products: Vec<&Map<String, Value>> = o
                .values()
                .filter_map(|x| x.as_object())
                .filter(|x| looks_like_product(x))
                .collect();
            let keyed = o.keys().filter(|k| k.contains(':')).count();
            if products.len() >= 2 && (keyed * 2 >= o.len() || products.len() * 2 >= o.len()) {
                out.push(Found {
                    path: path.clone(),
                    records: products.iter().map(|x| record_of(x)).collect(),
                });
                return;
            }
            for (k, x) in o {
                if !matches!(x, Value::Array(_) | Value::Object(_)) {
                    continue;
                }
                let len = path.len();
                path.push('/');
                path.push_str(k);
                product_arrays(x, path, out, depth + 1, budget);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn is_other_path(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    OTHER_PATH_WORDS.iter().any(|w| p.has(w))
}

/// The JSON values assigned to globals in the inline scripts
/// (`window.__NUXT__ = {...}`, `window.__APOLLO_STATE__={...}`,
/// `window["__STATE__"] = [...]`, `self.__SHOP_STATE__ = {...}`): any name,
/// as long as the value is plain JSON.
fn state_globals(scripts: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut from = 0;
    let mut seen = 0;
    while let Some(at) = scripts[from..].find_str("window").map(|i| from + i) {
        from = at + 6;
        seen += 1;
        if seen > 400 || out.len() >= 8 {
            break;
        }
        let rest = &scripts[from..];
        // `.name` or `["name"]`
        let name_len = if let Some(r) = rest.strip_prefix('.') {
            1 + r
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(r.len())
        } else if rest.starts_with("[\"") || rest.starts_with("['") {
            match rest[2..].find(']') {
                Some(e) => e + 3,
                None => continue,
            }
        } else {
            continue;
        };
        if name_len < 2 {
            continue;
        }
        let rest = rest[name_len..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        if rest.starts_with('=') {
            continue;
        }
        let rest = rest.trim_start();
        if !rest.starts_with('{') && !rest.starts_with('[') {
            continue;
        }
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        if let Some(Ok(v)) = stream.next() {
            if matches!(&v, Value::Object(o) if !o.is_empty())
                || matches!(&v, Value::Array(a) if !a.is_empty())
            {
                out.push(v);
            }
        }
    }
    out
}

/// Product lists in the page's embedded state, best first: lists outside
/// recommendation-like paths, then the longest.
pub fn lists(doc: &Doc) -> Vec<Found> {
    let mut values: Vec<(String, Value)> = Vec::new();
    for (id, text) in doc.json_scripts() {
        if text.len() > 8_000_000 {
            continue;
        }
        if let Ok(v) = serde_json::from_str::<Value>(text.trim()) {
            values.push((id.unwrap_or("script").to_string(), v));
        }
    }
    for v in state_globals(doc.scripts()) {
        values.push(("state".into(), v));
    }
    let mut out = Vec::new();
    for (name, v) in &values {
        let mut path = name.clone();
        let mut budget = 200_000;
        product_arrays(v, &mut path, &mut out, 0, &mut budget);
    }
    // One product object per script (Shopify `data-product-json` on each
    // card) makes a list too.
    let singles: Vec<Record> = values
        .iter()
        .filter_map(|(_, v)| v.as_object())
        .map(|o| o.get("product").and_then(|p| p.as_object()).unwrap_or(o))
        .filter(|o| looks_like_product(o))
        .map(record_of)
        .collect();
    if singles.len() >= 2 {
        out.push(Found {
            path: "scripts".into(),
            records: singles,
        });
    }
    out.retain(|f| !is_other_path(&f.path));
    out.sort_by_key(|f| std::cmp::Reverse(f.records.len()));
    out
}

/// Products in `data-*` attributes holding JSON (`data-product='{...}'`)
/// or an object literal in single quotes, with the element that carries
/// each, in page order.
pub fn data_attributes(doc: &Doc) -> Vec<(usize, Record)> {
    let mut out = Vec::new();
    for (i, e) in doc.els.iter().enumerate() {
        for (k, v) in e.el.value().attrs() {
            if !k.starts_with("data-") {
                continue;
            }
            let t = v.trim_start();
            if !t.starts_with('{') || t.len() > 100_000 {
                continue;
            }
            // JSON, or a script's object literal in single quotes
            // (`{'id':'96529','name':'GA-2100','price':20126}`).
            let parsed = serde_json::from_str::<Value>(v).ok().or_else(|| {
                (v.contains('\'') && !v.contains('"'))
                    .then(|| serde_json::from_str::<Value>(&v.replace('\'', "\"")).ok())
                    .flatten()
            });
            if let Some(Value::Object(o)) = parsed {
                let o = o
                    .get("product")
                    .and_then(|p| p.as_object())
                    .cloned()
                    .unwrap_or(o);
                if looks_like_product(&o) {
                    out.push((i, record_of(&o)));
                    break;
                }
            }
        }
    }
    out
}
