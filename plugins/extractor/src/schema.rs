//! schema.org data: JSON-LD parsing (with repair of the usual breakage) and
//! the conversion of schema.org nodes (from JSON-LD, microdata or RDFa, all
//! brought to the same JSON shape) into records.

use crate::money::{normalize_currency, parse_machine_price};
use crate::record::{Field, Record};
use crate::text::Find as _;
use crate::text::{clean_identifier, is_gtin, normalize_availability, normalize_condition};
use serde_json::{Map, Value};

/// Repair the usual breakage of JSON-LD blocks: HTML comments and CDATA
/// wrappers, JavaScript comments, raw control characters inside strings and
/// trailing commas.
pub fn repair_json(src: &str) -> String {
    let mut s = src.trim();
    for wrapper in ["<!--", "<![CDATA[", "//<![CDATA[", "/*<![CDATA[*/"] {
        if let Some(rest) = s.strip_prefix(wrapper) {
            s = rest.trim();
        }
    }
    for wrapper in ["-->", "]]>", "//]]>", "/*]]>*/"] {
        if let Some(rest) = s.strip_suffix(wrapper) {
            s = rest.trim();
        }
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut in_str = false;
    while i < chars.len() {
        let c = chars[i];
        if in_str {
            match c {
                '\\' => {
                    if i + 1 < chars.len() {
                        let n = chars[i + 1];
                        if matches!(n, '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u') {
                            out.push(c);
                            out.push(n);
                        } else {
                            // An invalid escape such as \' : keep the character.
                            out.push(n);
                        }
                        i += 2;
                        continue;
                    }
                }
                '"' => {
                    in_str = false;
                    out.push(c);
                }
                '\n' | '\r' | '\t' => out.push(' '),
                c if (c as u32) < 0x20 => {}
                _ => out.push(c),
            }
            i += 1;
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            '/' if i + 1 < chars.len() && chars[i + 1] == '/' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '/' if i + 1 < chars.len() && chars[i + 1] == '*' => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            ',' => {
                // Drop a comma followed only by whitespace and a closing bracket.
                let mut j = i + 1;
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                if j < chars.len() && (chars[j] == '}' || chars[j] == ']') {
                    i += 1;
                    continue;
                }
                out.push(c);
            }
            c if (c as u32) < 0x20 && !c.is_whitespace() => {}
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// Parse a JSON-LD block into its values (a block may hold several
/// concatenated objects). Broken blocks are repaired first.
pub fn parse_jsonld(src: &str) -> Vec<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(src.trim()) {
        return vec![v];
    }
    let fixed = repair_json(src);
    if let Ok(v) = serde_json::from_str::<Value>(&fixed) {
        return vec![v];
    }
    // Several objects one after another, possibly without commas.
    let mut out = Vec::new();
    let stream = serde_json::Deserializer::from_str(&fixed).into_iter::<Value>();
    for v in stream {
        match v {
            Ok(v) => out.push(v),
            Err(_) => break,
        }
    }
    if out.is_empty() {
        // "{...},{...}" or "{...}{...}": wrap as an array.
        let joined = fixed.replace("}{", "},{");
        if let Ok(Value::Array(a)) = serde_json::from_str::<Value>(&format!("[{}]", joined)) {
            return a;
        }
    }
    out
}

/// The schema.org type names of a node, without the vocabulary prefix.
pub fn types_of(node: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    let t = node.get("@type").or_else(|| node.get("type"));
    let mut push = |s: &str| {
        for part in s.split_whitespace() {
            let short = part.rsplit(['/', '#', ':']).next().unwrap_or(part);
            out.push(short.to_ascii_lowercase());
        }
    };
    match t {
        Some(Value::String(s)) => push(s),
        Some(Value::Array(a)) => {
            for v in a {
                if let Value::String(s) = v {
                    push(s)
                }
            }
        }
        _ => {}
    }
    out
}

pub fn is_product_type(t: &str) -> bool {
    matches!(
        t,
        "product"
            | "individualproduct"
            | "productmodel"
            | "someproducts"
            | "productgroup"
            | "vehicle"
            | "car"
            | "motorcycle"
            | "book"
            | "drug"
            | "dietarysupplement"
            | "musicalbum"
            | "movie"
            | "videogame"
            | "softwareapplication"
            | "mobileapplication"
    )
}

fn is_offer_type(t: &str) -> bool {
    matches!(t, "offer" | "aggregateoffer")
}

/// A product-like node found in the data, and whether it sits in a list.
#[derive(Debug, Clone)]
pub struct Found {
    pub node: Map<String, Value>,
    pub in_list: bool,
}

/// Collect product-like nodes: top-level nodes, @graph members, arrays, and
/// the items of ItemLists. Products nested in another product's properties
/// (related products, accessories) are not collected.
/// Whether the markup declares the page an article of some kind (news, a
/// blog post, a recipe, a forum thread): editorial pages, which mention
/// prices and codes without selling anything. A review is not one: shops
/// mark their customers' reviews up beside the product.
pub fn declares_article(values: &[Value]) -> bool {
    fn is_article(t: &str) -> bool {
        matches!(
            t,
            "article"
                | "newsarticle"
                | "reportagenewsarticle"
                | "analysisnewsarticle"
                | "opinionnewsarticle"
                | "backgroundnewsarticle"
                | "reviewnewsarticle"
                | "blogposting"
                | "liveblogposting"
                | "socialmediaposting"
                | "discussionforumposting"
                | "techarticle"
                | "scholarlyarticle"
                | "recipe"
        )
    }
    fn walk(v: &Value, depth: usize) -> bool {
        if depth > 6 {
            return false;
        }
        match v {
            Value::Array(a) => a.iter().any(|x| walk(x, depth + 1)),
            Value::Object(o) => {
                types_of(o).iter().any(|t| is_article(t)) || o.values().any(|x| walk(x, depth + 1))
            }
            _ => false,
        }
    }
    values.iter().any(|v| walk(v, 0))
}

pub fn collect_products(values: &[Value], out: &mut Vec<Found>) {
    for v in values {
        collect_value(v, false, out, 0);
    }
}

fn collect_value(v: &Value, in_list: bool, out: &mut Vec<Found>, depth: usize) {
    if depth > 8 {
        return;
    }
    match v {
        Value::Array(a) => {
            for x in a {
                collect_value(x, in_list, out, depth + 1);
            }
        }
        Value::Object(o) => {
            if let Some(g) = o.get("@graph") {
                collect_value(g, in_list, out, depth + 1);
            }
            let types = types_of(o);
            if types.iter().any(|t| is_product_type(t)) {
                out.push(Found {
                    node: o.clone(),
                    in_list,
                });
                return;
            }
            if types.iter().any(|t| is_offer_type(t)) {
                // A standalone offer with the product in itemOffered.
                if let Some(Value::Object(item)) = o.get("itemOffered") {
                    let mut node = item.clone();
                    if !node.contains_key("offers") {
                        let mut offer = o.clone();
                        offer.remove("itemOffered");
                        node.insert("offers".into(), Value::Object(offer));
                    }
                    out.push(Found { node, in_list });
                } else if !in_list && depth <= 2 {
                    out.push(Found {
                        node: o.clone(),
                        in_list,
                    });
                }
                return;
            }
            if types.iter().any(|t| t == "event" || t.ends_with("event"))
                && o.contains_key("offers")
            {
                out.push(Found {
                    node: o.clone(),
                    in_list,
                });
                return;
            }
            if types.iter().any(|t| {
                t == "itemlist"
                    || t == "offercatalog"
                    || t == "collectionpage"
                    || t == "searchresultspage"
            }) {
                for key in ["itemListElement", "mainEntity", "itemListElements"] {
                    if let Some(items) = o.get(key) {
                        collect_value(items, true, out, depth + 1);
                    }
                }
                return;
            }
            if types.iter().any(|t| t == "listitem") {
                if let Some(item) = o.get("item") {
                    collect_value(item, true, out, depth + 1);
                }
                return;
            }
            // WebPage/ItemPage mainEntity, or an untyped wrapper.
            for key in ["mainEntity", "mainEntityOfPage"] {
                if let Some(e @ Value::Object(_)) = o.get(key) {
                    collect_value(e, in_list, out, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// A scalar string from a schema.org property value (string, number, or an
/// object with a name / @value / @id / url).
pub fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                None
            } else {
                Some(t.to_string())
            }
        }
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(a) => a.iter().find_map(scalar),
        Value::Object(o) => {
            for key in ["name", "@value", "value", "url", "contentUrl", "@id"] {
                if let Some(s) = o.get(key).and_then(scalar) {
                    return Some(s);
                }
            }
            None
        }
        Value::Null => None,
    }
}

fn get<'a>(node: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    node.get(key)
        .or_else(|| node.get(&format!("schema:{}", key)))
}

fn get_str(node: &Map<String, Value>, key: &str) -> Option<String> {
    get(node, key).and_then(scalar)
}

/// The offers of a node, flattened (arrays, AggregateOffer.offers).
fn offers_of(node: &Map<String, Value>) -> Vec<Map<String, Value>> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<Map<String, Value>>, depth: usize) {
        if depth > 4 {
            return;
        }
        match v {
            Value::Array(a) => a.iter().for_each(|x| walk(x, out, depth + 1)),
            Value::Object(o) => {
                out.push(o.clone());
                if let Some(inner) = o.get("offers") {
                    walk(inner, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    if let Some(v) = get(node, "offers") {
        walk(v, &mut out, 0);
    }
    out
}

/// Whether a product's offer spans prices, the highest twice the lowest or
/// more (an AggregateOffer from 95990 to 269000): what a category page's
/// markup says of the products it lists, not one product's offers.
pub fn spans_prices(node: &Map<String, Value>) -> bool {
    let number = |o: &Map<String, Value>, key: &str| -> Option<f64> {
        match get(o, key)? {
            Value::Number(n) => n.as_f64(),
            other => scalar(other)
                .and_then(|s| parse_machine_price(&s))
                .and_then(|p| p.parse().ok()),
        }
    };
    offers_of(node)
        .iter()
        .any(|o| match (number(o, "lowPrice"), number(o, "highPrice")) {
            (Some(low), Some(high)) => low > 0.0 && high >= 2.0 * low,
            _ => false,
        })
}

fn offer_price(o: &Map<String, Value>) -> Option<(String, Option<String>)> {
    let cur = get_str(o, "priceCurrency").and_then(|c| normalize_currency(&c));
    for key in ["price", "lowPrice", "minPrice"] {
        if let Some(v) = get(o, key) {
            let p = match v {
                // Plain decimals only: no exponent form, no sign.
                Value::Number(n) => Some(n.to_string())
                    .filter(|s| s.chars().all(|c| c.is_ascii_digit() || c == '.'))
                    .map(crate::money::without_float_noise),
                other => scalar(other).and_then(|s| parse_machine_price(&s)),
            };
            if let Some(p) = p.filter(|p| !p.trim_start_matches(['0', '.']).is_empty()) {
                return Some((p, cur));
            }
        }
    }
    if let Some(spec) = get(o, "priceSpecification") {
        let specs: Vec<&Value> = match spec {
            Value::Array(a) => a.iter().collect(),
            v => vec![v],
        };
        for s in specs {
            if let Value::Object(so) = s {
                // Skip list prices and shipping specifications.
                let kind = get_str(so, "priceType").unwrap_or_default().to_lowercase();
                if kind.has("list") || kind.has("strike") || kind.has("msrp") {
                    continue;
                }
                if let Some((p, c)) = offer_price(so) {
                    return Some((p, c.or(cur.clone())));
                }
            }
        }
    }
    None
}

/// Convert a schema.org product-like node into a record.
pub fn record_from_node(node: &Map<String, Value>) -> Record {
    let mut r = Record::new();
    let types = types_of(node);
    let is_offer =
        types.iter().any(|t| is_offer_type(t)) && !types.iter().any(|t| is_product_type(t));
    r.put(
        Field::Name,
        get_str(node, "name").map(|s| crate::text::squash(&s)),
    );
    r.put(Field::Url, get_str(node, "url"));
    r.put(
        Field::Sku,
        get_str(node, "sku").and_then(|s| clean_identifier(&s)),
    );
    r.put(
        Field::Mpn,
        get_str(node, "mpn").and_then(|s| clean_identifier(&s)),
    );
    for key in ["gtin13", "gtin", "gtin12", "gtin14", "gtin8", "isbn", "ean"] {
        if let Some(g) = get_str(node, key).and_then(|s| clean_identifier(&s)) {
            if is_gtin(&g) || key == "isbn" {
                r.put(Field::Gtin, Some(g));
            }
        }
    }
    if let Some(pid) = get_str(node, "productID").or_else(|| get_str(node, "productId")) {
        let lower = pid.to_lowercase();
        if let Some(id) = clean_identifier(&pid) {
            if lower.starts_with("isbn:") || lower.starts_with("ean:") || lower.starts_with("gtin")
            {
                r.put(Field::Gtin, Some(id.clone()));
            }
            r.put(Field::Sku, Some(id));
        }
    }
    r.put(
        Field::Brand,
        get(node, "brand")
            .and_then(scalar)
            .or_else(|| get(node, "manufacturer").and_then(scalar))
            .filter(|b| !b.starts_with('/') && !b.starts_with("http")),
    );
    r.put(Field::Image, get(node, "image").and_then(scalar));
    r.put(
        Field::Condition,
        get_str(node, "itemCondition").and_then(|c| normalize_condition(&c)),
    );

    let mut offers = offers_of(node);
    if is_offer {
        offers.insert(0, node.clone());
    }
    // The main offer: the first with a price; prefer one whose availability
    // is stated.
    let mut price_set = false;
    // A product with several offers (variants, sellers) is in stock when any
    // priced offer is; offers without a price say nothing about stock.
    let priced: Vec<&Map<String, Value>> =
        offers.iter().filter(|o| offer_price(o).is_some()).collect();
    if priced.len() > 1
        && priced.iter().any(|o| {
            get_str(o, "availability")
                .and_then(|a| normalize_availability(&a))
                .as_deref()
                == Some("InStock")
        })
    {
        r.set(Field::Availability, "InStock");
    }
    for o in &offers {
        if let Some((p, c)) = offer_price(o) {
            if !price_set {
                r.put(Field::Price, Some(p));
                r.put(Field::Currency, c);
                r.put(
                    Field::Availability,
                    get_str(o, "availability").and_then(|a| normalize_availability(&a)),
                );
                r.put(
                    Field::Condition,
                    get_str(o, "itemCondition").and_then(|c| normalize_condition(&c)),
                );
                r.put(
                    Field::Sku,
                    get_str(o, "sku").and_then(|s| clean_identifier(&s)),
                );
                r.put(
                    Field::Mpn,
                    get_str(o, "mpn").and_then(|s| clean_identifier(&s)),
                );
                for key in ["gtin13", "gtin", "gtin12", "gtin14", "gtin8"] {
                    if let Some(g) = get_str(o, key).and_then(|s| clean_identifier(&s)) {
                        if is_gtin(&g) {
                            r.put(Field::Gtin, Some(g));
                        }
                    }
                }
                r.put(Field::Url, get_str(o, "url"));
                price_set = true;
            }
        }
    }
    for o in &offers {
        if offer_price(o).is_some() {
            r.put(
                Field::Availability,
                get_str(o, "availability").and_then(|a| normalize_availability(&a)),
            );
        }
        r.put(
            Field::Currency,
            get_str(o, "priceCurrency").and_then(|c| normalize_currency(&c)),
        );
    }
    // Prices placed directly on the product node.
    if !r.has(Field::Price) {
        if let Some((p, c)) = offer_price(node) {
            r.put(Field::Price, Some(p));
            r.put(Field::Currency, c);
        }
    }
    r.put(
        Field::Availability,
        get_str(node, "availability").and_then(|a| normalize_availability(&a)),
    );
    // A ProductGroup carries its offers on its variants: the first priced
    // variant gives price and stock, the group keeps its own name and ids;
    // the group is in stock when any variant is.
    if !r.has(Field::Price) {
        if let Some(Value::Array(variants)) = get(node, "hasVariant") {
            let recs: Vec<Record> = variants
                .iter()
                .take(200)
                .filter_map(|v| v.as_object())
                .map(record_from_node)
                .filter(|v| v.has(Field::Price))
                .collect();
            if let Some(first) = recs.first() {
                use Field::*;
                for k in [Price, Currency, Availability, Sku, Gtin, Mpn, Condition] {
                    r.put(k, first.get(k).map(String::from));
                }
                if recs
                    .iter()
                    .any(|v| v.get(Field::Availability) == Some("InStock"))
                {
                    r.set(Field::Availability, "InStock");
                }
            }
        }
    }
    r
}

/// How much a record says (used to pick the main product among candidates).
pub fn richness(r: &Record) -> usize {
    use Field::*;
    [Name, Price, Sku, Availability, Gtin, Mpn, Brand, Image]
        .iter()
        .filter(|k| r.has(**k))
        .count()
}

/// URLs listed by ItemLists (category pages often list only product URLs).
pub fn list_urls(values: &[Value], out: &mut Vec<String>) {
    fn walk(v: &Value, in_list: bool, out: &mut Vec<String>, depth: usize) {
        if depth > 8 || out.len() > 500 {
            return;
        }
        match v {
            Value::Array(a) => a.iter().for_each(|x| walk(x, in_list, out, depth + 1)),
            Value::Object(o) => {
                let types = types_of(o);
                if types.iter().any(|t| t == "breadcrumblist") {
                    return;
                }
                if let Some(g) = o.get("@graph") {
                    walk(g, in_list, out, depth + 1);
                }
                if types.iter().any(|t| t == "itemlist") {
                    if let Some(items) = o.get("itemListElement") {
                        walk(items, true, out, depth + 1);
                    }
                } else if in_list && types.iter().any(|t| t == "listitem") {
                    match o.get("item") {
                        Some(Value::String(s)) => out.push(s.clone()),
                        Some(Value::Object(item)) => {
                            if let Some(u) = item
                                .get("url")
                                .or_else(|| item.get("@id"))
                                .and_then(|u| u.as_str())
                            {
                                out.push(u.to_string());
                            }
                        }
                        _ => {
                            if let Some(u) = o.get("url").and_then(|u| u.as_str()) {
                                out.push(u.to_string());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    for v in values {
        walk(v, false, out, 0);
    }
}
