//! `fnhost extract --list --truth ground-truth.json`: the one listing scorer
//! of the repository (every `datasets/listing-pages*` set is scored by it),
//! so a plugin author scores any extractor on their own pages with the same
//! rules as the datasets: records
//! matched one-to-one to truth items by URL (scheme and host lowercased,
//! fragment and trailing slash dropped, percent-escapes decoded), then by
//! name (case-folded, whitespace collapsed); price right when numerically
//! equal (null truth prices left out); currency right when equal; every
//! truth page's kind is `listing` unless the truth says otherwise.

use std::collections::HashSet;

use serde_json::Value;

/// The overall figures.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Score {
    pub items_f1: f64,
    pub precision: f64,
    pub recall: f64,
    pub price_accuracy: f64,
    pub currency_accuracy: f64,
    pub kind_right: usize,
    pub pages: usize,
}

fn norm_url(v: &Value) -> Option<String> {
    let s = v.as_str()?.trim();
    let u = url::Url::parse(s).ok()?;
    let decode = |t: &str| percent_decode(t);
    let path = decode(u.path()).trim_end_matches('/').to_string();
    let query = u.query().map(decode).unwrap_or_default();
    let host = u.host_str().unwrap_or_default().to_lowercase();
    let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
    Some(format!("{}://{host}{port}{path}?{query}", u.scheme()))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() + 0 && i + 2 <= bytes.len() - 1 {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn norm_name(v: &Value) -> Option<String> {
    let s = v.as_str()?;
    let folded = s.to_lowercase();
    let n = folded.split_whitespace().collect::<Vec<_>>().join(" ");
    (!n.is_empty()).then_some(n)
}

/// A decimal as (digits, scale) compared numerically: "19.9" == "19.90".
fn decimal(v: &Value) -> Option<(i128, u32)> {
    let s = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(&s)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty()
        || !int.chars().all(|c| c.is_ascii_digit())
        || !frac.chars().all(|c| c.is_ascii_digit())
        || (body.contains('.') && frac.is_empty())
    {
        return None;
    }
    let frac = frac.trim_end_matches('0');
    let digits: i128 = format!("{int}{frac}").parse().ok()?;
    Some((if neg { -digits } else { digits }, frac.len() as u32))
}

/// One-to-one pairs (truth index, record index): URL first, then name.
fn pairs(items: &[Value], records: &[Value]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut used_t, mut used_p) = (HashSet::new(), HashSet::new());
    let urls: Vec<Option<String>> = records.iter().map(|r| norm_url(&r["url"])).collect();
    for (ti, item) in items.iter().enumerate() {
        let Some(u) = norm_url(&item["url"]) else {
            continue;
        };
        if let Some(pi) =
            (0..records.len()).find(|pi| !used_p.contains(pi) && urls[*pi].as_ref() == Some(&u))
        {
            out.push((ti, pi));
            used_t.insert(ti);
            used_p.insert(pi);
        }
    }
    let names: Vec<Option<String>> = records.iter().map(|r| norm_name(&r["name"])).collect();
    for (ti, item) in items.iter().enumerate() {
        if used_t.contains(&ti) {
            continue;
        }
        let Some(n) = norm_name(&item["name"]) else {
            continue;
        };
        if let Some(pi) =
            (0..records.len()).find(|pi| !used_p.contains(pi) && names[*pi].as_ref() == Some(&n))
        {
            out.push((ti, pi));
            used_t.insert(ti);
            used_p.insert(pi);
        }
    }
    out
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn f1(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// Score `--list` predictions against a ground truth `{id: {items: [...], kind?}}`,
/// printing a line per page and the overall figures.
pub fn score(predictions: &Value, truth: &Value) -> anyhow::Result<Score> {
    let truth = truth
        .as_object()
        .ok_or_else(|| anyhow::anyhow!("the ground truth must be an object of pages"))?;
    println!(
        "{:<18} {:>5} {:>5} {:>5} {:>6} {:>6} {:>6} {:>6}  kind",
        "page", "truth", "pred", "found", "P", "R", "F1", "price"
    );
    let (mut tt, mut tp_all, mut tpred, mut price_ok, mut priced, mut cur, mut kind_ok) =
        (0, 0, 0, 0, 0, 0, 0);
    for (id, page) in truth {
        let items: Vec<Value> = page["items"].as_array().cloned().unwrap_or_default();
        let want_kind = page["kind"].as_str().unwrap_or("listing");
        let pred = &predictions[id];
        let records: Vec<Value> = pred["records"]
            .as_array()
            .map(|r| r.iter().filter(|x| x.is_object()).cloned().collect())
            .unwrap_or_default();
        let matched = pairs(&items, &records);
        let (mut ok, mut with_price) = (0, 0);
        for (ti, pi) in &matched {
            let want = decimal(&items[*ti]["price"]);
            if want.is_some() {
                with_price += 1;
                if want == decimal(&records[*pi]["price"]) {
                    ok += 1;
                }
            }
            cur += usize::from(records[*pi]["currency"] == items[*ti]["currency"]);
        }
        let kind = pred["kind"].as_str().unwrap_or("missing");
        kind_ok += usize::from(kind == want_kind);
        let (p, r) = (
            ratio(matched.len(), records.len()),
            ratio(matched.len(), items.len()),
        );
        let price = if with_price > 0 {
            format!("{:6.3}", ratio(ok, with_price))
        } else {
            format!("{:>6}", "-")
        };
        let mark = if kind == want_kind { "" } else { "  <-" };
        println!(
            "{id:<18} {:>5} {:>5} {:>5} {p:6.3} {r:6.3} {:6.3} {price}  {kind}{mark}",
            items.len(),
            records.len(),
            matched.len(),
            f1(p, r)
        );
        tt += items.len();
        tpred += records.len();
        tp_all += matched.len();
        price_ok += ok;
        priced += with_price;
    }
    let (p, r) = (ratio(tp_all, tpred), ratio(tp_all, tt));
    let s = Score {
        items_f1: f1(p, r),
        precision: p,
        recall: r,
        price_accuracy: ratio(price_ok, priced),
        currency_accuracy: ratio(cur, tp_all),
        kind_right: kind_ok,
        pages: truth.len(),
    };
    println!(
        "overall: items F1 {:.3} (P {:.3} R {:.3}), price accuracy {:.3}, currency accuracy {:.3}, kind {}/{}",
        s.items_f1, s.precision, s.recall, s.price_accuracy, s.currency_accuracy, s.kind_right, s.pages
    );
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_rules_of_the_dataset_scorers() {
        let truth = json!({ "p1": { "items": [
            { "name": "Amber Lamp", "url": "https://S.example/a/", "price": "19.90", "currency": "USD" },
            { "name": "Birch  Lamp", "url": null, "price": null, "currency": "USD" },
            { "name": "Cedar", "url": "https://s.example/c", "price": "5", "currency": "EUR" } ] } });
        let pred = json!({ "p1": { "kind": "listing", "records": [
            { "name": "x", "url": "https://s.example/a#top", "price": "19.9", "currency": "USD" },
            { "name": "birch lamp", "url": "https://s.example/b", "price": "3", "currency": "USD" },
            { "name": "Extra", "url": "https://s.example/z", "price": "1", "currency": "USD" } ] } });
        let s = score(&pred, &truth).unwrap();
        assert!((s.precision - 2.0 / 3.0).abs() < 1e-9);
        assert!((s.recall - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(s.price_accuracy, 1.0, "null truth prices are left out");
        assert_eq!(s.currency_accuracy, 1.0);
        assert_eq!(s.kind_right, 1);
    }
}
