//! Microdata and RDFa, converted to the same JSON shape as JSON-LD so that
//! one set of rules turns them into records.

use crate::dom::AttrOf as _;
use crate::text::Find as _;
use crate::tree::{ElementRef, Html, Node};
use serde_json::{Map, Value};

fn prop_value(el: &ElementRef) -> Value {
    let e = el.value();
    if let Some(c) = e.attr_of("content") {
        return Value::String(c.trim().to_string());
    }
    let attr = match e.name() {
        "a" | "link" | "area" => e.attr_of("href"),
        "img" | "audio" | "video" | "source" | "embed" | "track" => e.attr_of("src"),
        "object" => e.attr_of("data"),
        "data" | "meter" | "input" => e.attr_of("value"),
        "time" => e.attr_of("datetime"),
        _ => None,
    };
    if let Some(a) = attr {
        return Value::String(a.trim().to_string());
    }
    // Some sites put the value in a value/data attribute.
    Value::String(crate::text::squash(&el.text().collect::<String>()))
}

fn insert(map: &mut Map<String, Value>, key: &str, v: Value) {
    let key = key.rsplit(['/', '#']).next().unwrap_or(key);
    let key = key.rsplit(':').next().unwrap_or(key);
    if key.is_empty() {
        return;
    }
    let key = good_relations(key).unwrap_or(key);
    match map.get_mut(key) {
        None => {
            map.insert(key.to_string(), v);
        }
        Some(Value::Array(a)) => a.push(v),
        Some(old) => {
            let prev = old.take();
            *old = Value::Array(vec![prev, v]);
        }
    }
}

/// The schema.org name of a GoodRelations property (`gr:hasCurrencyValue`
/// in the RDFa of shops of the 2010s is an offer's `price`).
fn good_relations(key: &str) -> Option<&'static str> {
    Some(match key {
        "hasCurrencyValue" => "price",
        "hasMinCurrencyValue" => "minPrice",
        "hasCurrency" => "priceCurrency",
        "hasPriceSpecification" => "priceSpecification",
        "hasStockKeepingUnit" => "sku",
        "hasMPN" => "mpn",
        "hasEAN_UCC-13" => "gtin13",
        "hasGTIN-14" => "gtin14",
        "hasBrand" => "brand",
        "hasInventoryLevel" => "inventoryLevel",
        _ => return None,
    })
}

/// The schema.org type of a GoodRelations class (`gr:Offering` is an
/// `Offer`, `gr:SomeItems` a `Product`).
fn good_relations_type(t: &str) -> Option<&'static str> {
    let name = t.rsplit([':', '/', '#']).next()?;
    t.contains("gr:")
        .then_some(())
        .or_else(|| t.contains("goodrelations").then_some(()))?;
    Some(match name {
        "Offering" => "Offer",
        "ProductOrService" | "ProductOrServiceModel" | "SomeItems" | "Individual" => "Product",
        "UnitPriceSpecification" | "PriceSpecification" => "UnitPriceSpecification",
        _ => return None,
    })
}

/// The item of a microdata (`itemscope`) or RDFa (`typeof`) scope.
fn item_of(scope: ElementRef, rdfa: bool, depth: usize) -> Map<String, Value> {
    let mut map = Map::new();
    let ty = if rdfa {
        scope.value().attr_of("typeof")
    } else {
        scope.value().attr_of("itemtype")
    };
    if let Some(t) = ty {
        let t = t.trim();
        let t = good_relations_type(t).unwrap_or(t);
        map.insert("@type".into(), Value::String(t.to_string()));
    }
    if depth > 6 {
        return map;
    }
    walk_props(scope, rdfa, depth, &mut map, 0, None);
    map
}

fn is_scope(el: &ElementRef, rdfa: bool) -> bool {
    if rdfa {
        el.value().attr_of("typeof").is_some()
    } else {
        el.value().attr_of("itemscope").is_some()
    }
}

fn prop_names<'b>(el: &'b ElementRef, rdfa: bool) -> Vec<&'b str> {
    let attr = if rdfa {
        el.value().attr_of("property")
    } else {
        el.value().attr_of("itemprop")
    };
    attr.map(|a| a.split_whitespace().collect())
        .unwrap_or_default()
}

/// `rel`: in RDFa, the link an ancestor names (`rel="gr:hasPriceSpecification"`)
/// to the resource a nested `typeof` describes, which has no property of its
/// own (chaining).
fn walk_props<'a>(
    parent: ElementRef<'a>,
    rdfa: bool,
    depth: usize,
    map: &mut Map<String, Value>,
    level: usize,
    rel: Option<&'a str>,
) {
    if level > 300 {
        return;
    }
    for child in parent.children() {
        if !matches!(child.value(), Node::Element(_)) {
            continue;
        }
        let Some(c) = ElementRef::wrap(child) else {
            continue;
        };
        let name = c.value().name();
        if matches!(name, "script" | "style" | "template") {
            continue;
        }
        let mut names = prop_names(&c, rdfa);
        // A vocabulary's link ("gr:…", a full IRI), not a link type
        // ("nofollow").
        let own_rel = if rdfa {
            c.value().attr_of("rel").filter(|r| r.contains(':'))
        } else {
            None
        };
        if is_scope(&c, rdfa) {
            if names.is_empty() {
                if let Some(r) = rel {
                    names = r.split_whitespace().collect();
                }
            }
            if !names.is_empty() {
                let item = Value::Object(item_of(c, rdfa, depth + 1));
                for n in names {
                    insert(map, n, item.clone());
                }
            }
            continue;
        }
        if !names.is_empty() {
            let mut v = prop_value(&c);
            // A price written as page text ("€ 1.299,-") is read as such,
            // not as a machine value.
            if c.value().attr_of("content").is_none()
                && names
                    .iter()
                    .any(|n| n.ends_with("price") || n.ends_with("Price"))
                && !matches!(c.value().name(), "meta" | "data" | "input")
            {
                if let Value::String(text) = &v {
                    if let Some(p) = crate::money::parse_price(text) {
                        v = Value::String(p.value);
                    }
                }
            }
            for n in &names {
                insert(map, n, v.clone());
            }
            // A property element may still hold other properties inside.
        }
        walk_props(c, rdfa, depth, map, level + 1, own_rel.or(rel));
    }
}

/// Top-level microdata and RDFa items of the page, as JSON values.
pub fn items(html: &Html) -> (Vec<Value>, Vec<Value>, Map<String, Value>) {
    let mut micro = Vec::new();
    let mut rdfa = Vec::new();
    let mut orphans = Map::new();
    let root = html.root_element();
    // The document element may be the RDFa item itself (`<html
    // typeof="gr:Offering">`). (Microdata there is read as orphan
    // properties, which the product stage takes.)
    let root_item = root
        .value()
        .attr_of("typeof")
        .is_some_and(|t| t.has("Product") || t.has("Offer"));
    if root_item {
        rdfa.push(Value::Object(item_of(root, true, 0)));
    }
    top_level(
        root,
        &mut micro,
        &mut rdfa,
        &mut orphans,
        false,
        root_item,
        0,
    );
    (micro, rdfa, orphans)
}

fn top_level(
    el: ElementRef,
    micro: &mut Vec<Value>,
    rdfa: &mut Vec<Value>,
    orphans: &mut Map<String, Value>,
    in_micro: bool,
    in_rdfa: bool,
    depth: usize,
) {
    if depth > 400 {
        return;
    }
    for child in el.children() {
        if !matches!(child.value(), Node::Element(_)) {
            continue;
        }
        let Some(c) = ElementRef::wrap(child) else {
            continue;
        };
        let e = c.value();
        if matches!(e.name(), "script" | "style" | "template" | "noscript") {
            continue;
        }
        // The three attributes read here, in one pass over the element's
        // attributes (the first of each name, as `attr` gives it); most
        // elements have none of them.
        let (mut itemscope, mut itemprop, mut type_of) = (false, None, None);
        for (k, v) in e.attrs() {
            match k {
                "itemscope" => itemscope = true,
                "itemprop" if itemprop.is_none() => itemprop = Some(v),
                "typeof" if type_of.is_none() => type_of = Some(v),
                _ => {}
            }
        }
        let mut now_micro = in_micro;
        let mut now_rdfa = in_rdfa;
        if itemscope {
            if itemprop.is_none() || !in_micro {
                micro.push(Value::Object(item_of(c, false, 0)));
            }
            now_micro = true;
        } else if !in_micro {
            if let Some(p) = itemprop {
                for n in p.split_whitespace() {
                    if !orphans.contains_key(n) {
                        orphans.insert(n.to_string(), prop_value(&c));
                    }
                }
            }
        }
        if let Some(t) = type_of {
            let t = t.to_string();
            if (e.attr_of("property").is_none() || !in_rdfa) && (t.has("Product") || t.has("Offer"))
            {
                rdfa.push(Value::Object(item_of(c, true, 0)));
            }
            now_rdfa = true;
        }
        top_level(c, micro, rdfa, orphans, now_micro, now_rdfa, depth + 1);
    }
}
