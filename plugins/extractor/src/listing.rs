//! Listing pages: one record per product of the page's main list, merged
//! from per-item markup, embedded state and the visible cards, in that order
//! of trust.

use crate::cards::{absolute, read_card};
use crate::dom::AttrOf as _;
use crate::dom::{Doc, BUTTON, CHROME, HIDDEN, RELATED};
use crate::merging::{
    fill, full_name, merge, merge_with, path_key, same_item, shown_price, shows_amount, url_key,
};
use crate::record::{Field, Record};
use crate::text::Find as _;
use crate::{embedded, price, repeated};
use foldhash::{HashMap, HashMapExt as _};

pub struct Ctx<'a, 'd> {
    pub doc: &'a Doc<'d>,
    pub base: &'a Option<url::Url>,
    pub host: &'a str,
}

/// The records of a listing and a note on how they were found.
pub struct Listing {
    pub records: Vec<Record>,
    pub note: String,
}

/// For each group of marker elements (the links to one URL, the element
/// carrying one product's data), the card that holds it: the largest
/// ancestor of its first marker that holds no marker of another group.
fn climb_cards(doc: &Doc, markers: &[(usize, usize)], groups: usize) -> Vec<Option<usize>> {
    // markers: (element, group), sorted by element.
    let mut cards = vec![None; groups];
    for &(el, g) in markers {
        if cards[g].is_some() {
            continue;
        }
        let mut card = el;
        let mut cur = doc.els[el].parent;
        let mut steps = 0;
        while let Some(a) = cur {
            let e = &doc.els[a];
            if steps >= 10 || matches!(e.tag, "body" | "html" | "main") {
                break;
            }
            let lo = markers.partition_point(|m| m.0 < a);
            let other = markers[lo..]
                .iter()
                .take_while(|m| m.0 < e.el_end)
                .any(|m| m.1 != g);
            if other {
                break;
            }
            card = a;
            cur = e.parent;
            steps += 1;
        }
        cards[g] = Some(card);
    }
    cards
}

/// The visible cards of the given product URLs, by the links to them.
fn cards_by_url(cx: &Ctx, urls: &[String]) -> Vec<Option<usize>> {
    let mut ids: HashMap<String, usize> = HashMap::new();
    // A URL without a query also names its page with the query a card's
    // link adds (tracking: "?sp_atk=...").
    let mut bare_ids: HashMap<String, usize> = HashMap::new();
    for (i, u) in urls.iter().enumerate() {
        ids.entry(url_key(u)).or_insert(i);
        if !u.contains('?') {
            bare_ids.entry(url_key(u)).or_insert(i);
        }
    }
    let doc = cx.doc;
    let mut markers: Vec<(usize, usize)> = Vec::new();
    for (i, e) in doc.els.iter().enumerate() {
        if e.flags & (CHROME | RELATED) != 0 {
            continue;
        }
        let Some(h) = e.href() else {
            continue;
        };
        let listed = absolute(cx.base, h).and_then(|u| {
            ids.get(&url_key(&u))
                .or_else(|| bare_ids.get(&path_key(&u)))
                .copied()
        });
        if let Some(g) = listed {
            markers.push((i, g));
        }
    }
    climb_cards(doc, &markers, urls.len())
}

/// Whether the page shows a product of its own outside the cards: its best
/// visible price elsewhere, or a buy button outside them. Prices and buttons
/// of another list of cards (teasers, top sellers) are not the page's own.
fn main_product_outside(doc: &Doc, cards: &[usize]) -> bool {
    // Which elements lie inside a card, marked once (asking every card for
    // every element is quadratic on a list of thousands).
    let mut depth = vec![0i32; doc.els.len() + 1];
    for &c in cards {
        depth[c] += 1;
        depth[doc.els[c].el_end] -= 1;
    }
    let mut in_card = vec![false; doc.els.len()];
    let mut open = 0;
    for (i, d) in depth.iter().take(doc.els.len()).enumerate() {
        open += d;
        in_card[i] = open > 0;
    }
    let inside = |el: usize| in_card.get(el).copied().unwrap_or(false);
    if let Some(best) = price::page::main_price(doc) {
        if !inside(best.el)
            && !repeated::in_other_region(doc, best.el)
            && !repeated::in_card_list(doc, best.el)
        {
            return true;
        }
    }
    // A button the page keeps hidden (the form of a dialog or a template
    // that scripts fill for whichever card is picked) is no product's.
    doc.els.iter().enumerate().any(|(i, e)| {
        (e.flags & BUTTON != 0 || e.tag == "button")
            && e.flags & (CHROME | RELATED | HIDDEN) == 0
            && e.el.value().attr_of("disabled").is_none()
            && !inside(i)
            && (crate::text::is_buy_text(&doc.text_of(i, 80)) || says_buy(e))
            && !repeated::in_card_list(doc, i)
            && !in_menu(doc, i)
    })
}

/// Whether a button's title or label says it buys (an icon-only "Thêm vào
/// giỏ hàng" button).
fn says_buy(e: &crate::dom::El) -> bool {
    let v = e.el.value();
    [v.attr_of("title"), v.attr_of("aria-label")]
        .into_iter()
        .flatten()
        .any(crate::text::is_buy_text)
}

/// Whether an element is an entry of a site menu ("Comprar" and
/// "Alquilar" of a property site's header): an ancestor a menu by its role
/// or by a class word (nav, navbar, navigation, or one ending in menu or
/// dropdown).
fn in_menu(doc: &Doc, el: usize) -> bool {
    let mut at = Some(el);
    for _ in 0..10 {
        let Some(i) = at else { break };
        let e = &doc.els[i];
        let role = e.el.value().attr_of("role").unwrap_or("");
        if matches!(role, "navigation" | "menu" | "menubar" | "menuitem") {
            return true;
        }
        let named = e.hint.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
            matches!(w, "nav" | "navbar" | "navigation")
                || w.ends_with("menu")
                || w.ends_with("dropdown")
        });
        if named {
            return true;
        }
        at = e.parent;
    }
    false
}

/// Whether the records link to pages that look alike: the page's own host
/// and the same path depth, as a shop's product pages do. Two cards are too
/// few to be a list on their own; banners and promotions link elsewhere.
fn alike_product_links(cx: &Ctx, records: &[Record]) -> bool {
    let shape = |r: &Record| -> Option<(String, usize)> {
        let u = url::Url::parse(r.get(Field::Url)?).ok()?;
        let host = u
            .host_str()?
            .trim_start_matches("www.")
            .to_ascii_lowercase();
        let depth = u
            .path_segments()
            .map_or(0, |s| s.filter(|p| !p.is_empty()).count());
        Some((host, depth))
    };
    let own = cx.host.trim_start_matches("www.").to_ascii_lowercase();
    let shapes: Vec<Option<(String, usize)>> = records.iter().map(shape).collect();
    shapes
        .iter()
        .all(|s| s.as_ref().is_some_and(|(h, _)| *h == own))
        && shapes.windows(2).all(|w| w[0] == w[1])
}

/// Resolve the URLs and images of records to absolute ones; a bare slug
/// becomes the URL of a link of the page that ends with it.
fn resolve_records(cx: &Ctx, records: &mut [Record]) {
    let mut by_last: Option<HashMap<String, String>> = None;
    for r in records.iter_mut() {
        if let Some(slug) = r.take(Field::Slug) {
            if !r.has(Field::Url) {
                let map = by_last.get_or_insert_with(|| last_segments(cx));
                let last = slug
                    .trim_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .to_string();
                let u = map.get(&last).cloned().or_else(|| {
                    if slug.starts_with('/') {
                        absolute(cx.base, &slug)
                    } else {
                        None
                    }
                });
                if let Some(u) = u {
                    r.set(Field::Url, u);
                }
            }
        }
        for k in [Field::Url, Field::Image] {
            if let Some(u) = r.get(k).and_then(|h| absolute(cx.base, h)) {
                r.set(k, u);
            }
        }
    }
}

/// Same-site links of the page by the last segment of their path (without
/// an extension).
fn last_segments(cx: &Ctx) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for e in &cx.doc.els {
        if e.tag != "a" {
            continue;
        }
        let Some(u) =
            e.el.value()
                .attr_of("href")
                .and_then(|h| absolute(cx.base, h))
        else {
            continue;
        };
        let path = path_key(&u);
        let last = path.rsplit('/').next().unwrap_or("");
        let stem = last.rsplit_once('.').map(|(a, _)| a).unwrap_or(last);
        if !stem.is_empty() {
            out.entry(stem.to_string()).or_insert(u);
        }
    }
    out
}

fn card_records(cx: &Ctx, cards: &[usize]) -> Vec<Record> {
    cards
        .iter()
        .map(|&c| read_card(cx.doc, c, cx.base))
        .collect()
}

/// The currency of a list's cards whose own text names none (no price, a
/// free item, a bare sign the page does not resolve): the one most of the
/// list's prices are in, so that every row of a catalog says what money it
/// is counted in; with no price in the list, the one the page's data names
/// (`page_data`).
pub fn fill_list_currency(records: &mut [Record], page_data: Option<&str>) {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for c in records.iter().filter_map(|r| r.get(Field::Currency)) {
        match counts.iter_mut().find(|(x, _)| x == c) {
            Some((_, n)) => *n += 1,
            None => counts.push((c.to_string(), 1)),
        }
    }
    let Some(list) = counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(c, _)| c)
        .or_else(|| page_data.map(String::from))
    else {
        return;
    };
    for r in records.iter_mut() {
        if !r.has(Field::Currency) {
            r.set(Field::Currency, list.clone());
        }
    }
}

fn is_record(r: &Record) -> bool {
    r.has(Field::Price) || (r.has(Field::Name) && r.has(Field::Url))
}

/// The siblings of a list's cards that its markup does not name: the same
/// tag under the same parent, not hidden, with a link of the cards' link
/// shape (host and path depth). Only for lists of three cards or more,
/// whose cards share one link shape.
fn unlisted_cards(doc: &Doc, cards: &[usize]) -> Vec<usize> {
    if cards.len() < 3 {
        return Vec::new();
    }
    let Some(common) = repeated::link_shape(doc, cards[0]) else {
        return Vec::new();
    };
    if cards
        .iter()
        .any(|&c| repeated::link_shape(doc, c).as_ref() != Some(&common))
    {
        return Vec::new();
    }
    let mut parents: Vec<usize> = cards.iter().filter_map(|&c| doc.els[c].parent).collect();
    parents.sort_unstable();
    parents.dedup();
    if parents.len() > 4 {
        return Vec::new();
    }
    let tag = doc.els[cards[0]].tag;
    let mut extra = Vec::new();
    for p in parents {
        let mut k = p + 1;
        while k < doc.els[p].el_end {
            let e = &doc.els[k];
            if e.tag == tag
                && e.flags & HIDDEN == 0
                && !cards.contains(&k)
                && repeated::link_shape(doc, k).as_ref() == Some(&common)
            {
                extra.push(k);
            }
            k = e.el_end;
        }
    }
    // A few cards left out of a list, not a second list beside it; or the
    // rest of the list, when the markup names only its first cards (the
    // top ten of sixty).
    let first_of_list = cards.iter().max() < extra.iter().min();
    if extra.len() * 4 > cards.len() && !first_of_list {
        return Vec::new();
    }
    extra
}

/// How many records' prices the page shows as visible prices.
fn prices_shown(doc: &Doc, records: &[Record]) -> usize {
    let shown: Vec<f64> = price::page::price_candidates(doc)
        .iter()
        .filter_map(|p| p.price.value.parse().ok())
        .collect();
    records
        .iter()
        .filter_map(|r| r.get(Field::Price)?.parse::<f64>().ok())
        .filter(|v| shown.iter().any(|s| (s - v).abs() < 0.005))
        .count()
}

/// State paths written relative to the app's base ("/pl/123/name" on a site
/// served under "/no/shopping"): when the cards show the same products under
/// one longer path that ends with the state's, every state URL of that host
/// takes the prefix.
fn rebase_state_urls(records: &mut [Record], visible: &[Record]) {
    let split = |u: &str| -> Option<(String, String)> {
        let p = url::Url::parse(u).ok()?;
        Some((p.host_str()?.to_string(), p.path().to_string()))
    };
    let shown: Vec<(String, String)> = visible
        .iter()
        .filter_map(|v| v.get(Field::Url).and_then(split))
        .collect();
    let mut prefix: Option<(String, String)> = None;
    let mut agree = 0;
    for r in records.iter() {
        let Some((host, path)) = r.get(Field::Url).and_then(split) else {
            continue;
        };
        if path.len() < 8 || shown.iter().any(|(h, p)| *h == host && *p == path) {
            continue;
        }
        let Some((_, longer)) = shown
            .iter()
            .find(|(h, p)| *h == host && p.len() > path.len() && p.ends_with(&path))
        else {
            continue;
        };
        let found = (host, longer[..longer.len() - path.len()].to_string());
        match &prefix {
            None => prefix = Some(found),
            Some(p) if *p == found => {}
            Some(_) => return,
        }
        agree += 1;
    }
    let Some((host, prefix)) = prefix.filter(|_| agree >= 2) else {
        take_card_urls_by_slug(records, visible);
        return;
    };
    for r in records.iter_mut() {
        let Some(mut u) = r.get(Field::Url).and_then(|u| url::Url::parse(u).ok()) else {
            continue;
        };
        if u.host_str() == Some(host.as_str()) && !u.path().starts_with(&prefix) {
            let path = format!("{prefix}{}", u.path());
            u.set_path(&path);
            r.set(Field::Url, u.to_string());
        }
    }
}

/// State URLs made of a product's slug against the page's own folder
/// ("/apple/iphone-14-pro" on "/apple/?q=...") while the cards link
/// "/uae-en/iphone-14-pro/N533A/p/": a state record whose last path segment
/// (eight characters or more) is a whole segment of exactly one card's path
/// takes that card's URL, the page a shopper reaches; only when two records
/// or more, and half of them or more, find theirs so (the cards show the
/// state's list, not a few of a longer one) and none of them shows on the
/// page as it is.
fn take_card_urls_by_slug(records: &mut [Record], visible: &[Record]) {
    let shown: Vec<(&str, url::Url)> = visible
        .iter()
        .filter_map(|v| {
            let u = v.get(Field::Url)?;
            Some((u, url::Url::parse(u).ok()?))
        })
        .collect();
    let card_of = |r: &Record| -> Option<&str> {
        let u = url::Url::parse(r.get(Field::Url)?).ok()?;
        let slug = u.path_segments()?.filter(|s| !s.is_empty()).next_back()?;
        if slug.len() < 8 {
            return None;
        }
        let mut cards = shown.iter().filter(|(_, c)| {
            c.host_str() == u.host_str()
                && c.path_segments()
                    .is_some_and(|mut segs| segs.any(|s| s == slug))
        });
        let (first, _) = cards.next()?;
        cards.next().is_none().then_some(*first)
    };
    let found: Vec<Option<String>> = records
        .iter()
        .map(|r| card_of(r).map(String::from))
        .collect();
    let exact = records.iter().any(|r| {
        r.get(Field::Url)
            .is_some_and(|u| shown.iter().any(|(v, _)| url_key(v) == url_key(u)))
    });
    let taken = found.iter().flatten().count();
    if exact || taken < 2 || taken * 2 < records.len() {
        return;
    }
    for (r, u) in records.iter_mut().zip(found) {
        if let Some(u) = u {
            r.set(Field::Url, u);
        }
    }
}

/// A listing from per-item markup (JSON-LD ItemList of products, microdata
/// or RDFa scopes), completed from the visible cards.
pub fn from_structured(cx: &Ctx, mut records: Vec<Record>) -> Listing {
    resolve_records(cx, &mut records);
    let urls: Vec<String> = records
        .iter()
        .filter_map(|r| r.get(Field::Url).map(String::from))
        .collect();
    let by_url = cards_by_url(cx, &urls);
    let mut cards: Vec<usize> = by_url.iter().flatten().copied().collect();
    if cards.len() < 2 {
        cards = repeated::main_list(cx.doc, 2);
    }
    let visible = card_records(cx, &cards);
    let matched = merge_with(&mut records, &visible, |r, j| {
        // A markup price the card shows anywhere stays, whichever amount
        // the card's own reading took.
        let shown = r.get(Field::Price).is_some_and(|p| {
            cards
                .get(j)
                .is_some_and(|&c| shows_amount(&cx.doc.text_of(c, 4000), p))
        });
        if !shown {
            shown_price(r, &visible[j]);
        }
        full_name(r, &visible[j]);
    });
    // An item that neither links nor pictures anything, in a list whose
    // items mostly do, matched no card: a summary of the results ("521
    // apartments", an aggregate offer), not one of them.
    let linked = records.iter().filter(|r| r.has(Field::Url)).count();
    if linked >= 3 && linked * 2 >= records.len() {
        records.retain(|r| r.has(Field::Url) || r.has(Field::Image));
    }
    // Cards the markup leaves out (a paid placement, a card without an
    // image): shown in the same grid, in the same shape, leading to the same
    // kind of page. They take their place in page order.
    let unlisted = unlisted_cards(cx.doc, &cards);
    if !unlisted.is_empty() && by_url.len() == records.len() {
        let mut placed: Vec<(usize, Record)> = Vec::new();
        let mut at = 0;
        for (r, c) in records.into_iter().zip(&by_url) {
            at = c.unwrap_or(at);
            placed.push((at, r));
        }
        for c in unlisted {
            let r = read_card(cx.doc, c, cx.base);
            if r.has(Field::Url) && r.has(Field::Name) {
                placed.push((c, r));
            }
        }
        placed.sort_by_key(|(at, _)| *at);
        records = placed.into_iter().map(|(_, r)| r).collect();
    }
    Listing {
        note: format!(
            "listing of {} products from markup ({} visible cards matched)",
            records.len(),
            matched
        ),
        records,
    }
}

/// A listing of a page without per-item markup: the ItemList URLs (order and
/// identity only), embedded state and the visible cards. `None` when the
/// page shows no list of products.
pub fn from_page(cx: &Ctx, listed_urls: &[String]) -> Option<Listing> {
    let doc = cx.doc;
    // The URLs an ItemList names, absolute and deduplicated, in order.
    let mut listed: Vec<String> = Vec::new();
    for u in listed_urls {
        if let Some(a) = absolute(cx.base, u) {
            if !listed.iter().any(|x| url_key(x) == url_key(&a)) {
                listed.push(a);
            }
        }
    }
    // Embedded state: lists in JSON scripts, then products in data-*
    // attributes (each element is then part of its card).
    let mut state = embedded::lists(doc).into_iter().next().map(|f| f.records);
    let attrs = embedded::data_attributes(doc);
    let mut attr_cards: Vec<usize> = Vec::new();
    if state.is_none() && attrs.len() >= 2 {
        let markers: Vec<(usize, usize)> = attrs
            .iter()
            .enumerate()
            .map(|(g, (el, _))| (*el, g))
            .collect();
        attr_cards = climb_cards(doc, &markers, attrs.len())
            .into_iter()
            .flatten()
            .collect();
        state = Some(attrs.into_iter().map(|(_, r)| r).collect());
    }
    if let Some(s) = state.as_mut() {
        resolve_records(cx, s);
    }

    if listed.len() >= 2 {
        let found = cards_by_url(cx, &listed);
        let cards: Vec<usize> = found.iter().flatten().copied().collect();
        // An ItemList that names products the page does not show (a
        // stale or other selection), or only the first of the cards the
        // page shows (the top ten of sixty), is not the page's whole list:
        // the visible cards are, when they show the listed products.
        if let Some(visible) = from_page(cx, &[]) {
            let shown = |u: &String| {
                visible.records.iter().any(|r| {
                    r.get(Field::Url)
                        .is_some_and(|v| url_key(v) == url_key(u) || path_key(v) == path_key(u))
                })
            };
            let not_shown = cards.len() * 2 < listed.len();
            let more_shown = visible.records.len() > listed.len() && listed.iter().all(shown);
            if (not_shown && visible.records.len() >= 4) || more_shown {
                return Some(visible);
            }
        }
        if !cards.is_empty() && main_product_outside(doc, &cards) {
            return None;
        }
        let mut records: Vec<Record> = Vec::new();
        for (u, c) in listed.iter().zip(found) {
            let mut r = Record::new();
            r.set(Field::Url, u.clone());
            let card = c.map(|c| read_card(doc, c, cx.base));
            if let Some(s) = state
                .as_ref()
                .and_then(|s| s.iter().find(|x| same_item(&r, x)))
            {
                r = s.clone();
                r.set(Field::Url, u.clone());
            }
            if let Some(card) = card {
                fill(&mut r, &card);
            }
            if is_record(&r) {
                records.push(r);
            }
        }
        return Some(Listing {
            note: format!(
                "listing of {} products from the ItemList URLs and the visible cards",
                records.len()
            ),
            records,
        });
    }

    if let Some(mut records) = state {
        let by_element = attr_cards.len() == records.len();
        let mut cards = if attr_cards.is_empty() {
            let urls: Vec<String> = records
                .iter()
                .filter_map(|r| r.get(Field::Url).map(String::from))
                .collect();
            cards_by_url(cx, &urls).into_iter().flatten().collect()
        } else {
            attr_cards
        };
        if cards.len() < 2 {
            cards = repeated::main_list(doc, 2);
        }
        let visible = card_records(cx, &cards);
        rebase_state_urls(&mut records, &visible);
        let matched = if by_element {
            // Each record's element lies in its own card.
            for (r, v) in records.iter_mut().zip(&visible) {
                fill(r, v);
            }
            visible.len()
        } else {
            merge(&mut records, &visible)
        };
        // State that the page does not show is not the page's list, unless
        // the page shows no price of its own (rendered in the browser).
        let confirmed = matched >= 2.min(records.len())
            || (visible.is_empty() && price::page::main_price(doc).is_none());
        // Cards that show the state's products without linking them: the
        // page shows most of the state's prices.
        let shown = prices_shown(doc, &records);
        let shown_list = shown >= 3 && shown * 2 >= records.len();
        if shown_list || (confirmed && !main_product_outside(doc, &cards)) {
            return Some(Listing {
                note: format!(
                    "listing of {} products from embedded state ({} visible cards matched)",
                    records.len(),
                    matched
                ),
                records,
            });
        }
    }

    // Two cards are a list when nothing on the page is a product of its own
    // (a last listing page often shows only a few).
    let cards = repeated::main_list(doc, 2);
    if cards.is_empty() {
        return unpriced_listing(cx);
    }
    if main_product_outside(doc, &cards) {
        return None;
    }
    let mut records = card_records(cx, &cards);
    if records.iter().filter(|r| r.has(Field::Price)).count() < 2 {
        for (r, &c) in records.iter_mut().zip(&cards) {
            if let Some(p) = data_price_in(doc, c).filter(|_| !r.has(Field::Price)) {
                r.set(Field::Price, p);
            }
        }
    }
    let records: Vec<Record> = records
        .into_iter()
        .filter(|r| r.has(Field::Url) && (r.has(Field::Price) || r.has(Field::Name)))
        .collect();
    let records = without_other_views_of_this_list(cx.base, records);
    let records = halves_joined(records);
    // A card that leads to this very page shows the page's own product
    // among others it is sold with: one product's page.
    // (Whole addresses: an app's routes differ only after the "#".)
    let page = cx.base.as_ref().map(|b| b.as_str().trim_end_matches('/'));
    if records.iter().any(|r| {
        r.get(Field::Url).is_some_and(|u| {
            Some(u.trim_end_matches('/')) == page || same_page_under_shorter_path(cx.base, u)
        })
    }) {
        return None;
    }
    let priced = records.iter().filter(|r| r.has(Field::Price)).count();
    // A short list must lead to pages of one shape: two or three boxes of
    // a side bar (a search link, an ad, a partner) are no catalog.
    if priced < 2 || (records.len() <= 3 && !alike_product_links(cx, &records)) {
        return None;
    }
    Some(Listing {
        note: format!(
            "listing of {} product cards (repeated structure)",
            records.len()
        ),
        records,
    })
}

/// Whether `url` is this page's address without the category path before
/// it (`/p29/CLOCK/product_info.html` on `/Clocks/c1_4/p29/CLOCK/product_info.html`):
/// the same host, and the page's path ends with the link's, three segments
/// or more.
fn same_page_under_shorter_path(base: &Option<url::Url>, url: &str) -> bool {
    let (Some(base), Ok(u)) = (base, url::Url::parse(url)) else {
        return false;
    };
    let path = u.path().trim_end_matches('/');
    let segments = path.split('/').filter(|s| !s.is_empty()).count();
    u.host_str() == base.host_str()
        && segments >= 3
        && base.path().trim_end_matches('/') != path
        && base.path().trim_end_matches('/').ends_with(path)
}

/// The price a card's markup states for its product in a data attribute
/// (`data-offer-price="1598.00"` beside `data-offer-name`, as shops tag
/// their cards for analytics), for cards whose text shows none that reads
/// (digits drawn one element each): the one amount of the card's
/// `data-*price` attributes, not named for a former price.
fn data_price_in(doc: &Doc, card: usize) -> Option<String> {
    let mut found: Option<String> = None;
    for e in &doc.els[card..doc.els[card].el_end] {
        if !e.hint.has("price") {
            continue;
        }
        for (k, v) in e.el.value().attrs() {
            let Some(name) = k.strip_prefix("data-").filter(|n| n.ends_with("price")) else {
                continue;
            };
            if crate::text::has_word(name, &crate::vocabulary::LIST_WORDS) {
                continue;
            }
            let Some(p) = crate::money::parse_machine_price(v)
                .filter(|p| p.parse::<f64>().is_ok_and(|x| x > 0.0))
            else {
                continue;
            };
            match &found {
                Some(f) if f.parse::<f64>().ok() != p.parse::<f64>().ok() => return None,
                _ => found = Some(p),
            }
        }
    }
    found
}

/// Cards next to each other that lead to the same product are halves of
/// one card (a price tile and a box with the name, each marked as the
/// product's): one record, the first filled from the second, whose name it
/// takes when its own reads as a label ("Cena z kodem: NCOC12140520").
fn halves_joined(records: Vec<Record>) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::with_capacity(records.len());
    for r in records {
        // An app's routes differ only after "#!": those are whole addresses.
        let same = out.last().is_some_and(|last| {
            matches!((last.get(Field::Url), r.get(Field::Url)), (Some(a), Some(b))
                if if a.contains("#!") || b.contains("#!") { a == b } else { url_key(a) == url_key(b) })
        });
        let Some(last) = out.last_mut().filter(|_| same) else {
            out.push(r);
            continue;
        };
        let label = |r: &Record| r.get(Field::Name).is_some_and(|n| n.contains(':'));
        if label(last) && !label(&r) {
            last.take(Field::Name);
        }
        fill(last, &r);
    }
    out
}

/// The cards without those that lead back to this list under other
/// parameters (a related search, a filter, a page number: the page's own
/// path with another query), when at least two thirds of the cards lead
/// to pages elsewhere. Where products are this path with a query of their
/// own (`index.php?route=product/...`), most cards share the path and all
/// are kept; a card that leads to this very address is left to the test of
/// a product's page.
fn without_other_views_of_this_list(base: &Option<url::Url>, records: Vec<Record>) -> Vec<Record> {
    let Some(base) = base else { return records };
    let other_view = |r: &Record| {
        r.get(Field::Url)
            .and_then(|u| url::Url::parse(u).ok())
            .is_some_and(|u| {
                u.host_str() == base.host_str()
                    && u.path() == base.path()
                    && u.query() != base.query()
                    && u.query().is_some()
            })
    };
    let others = records.iter().filter(|r| other_view(r)).count();
    if others == 0 || (records.len() - others) * 3 < records.len() * 2 {
        return records;
    }
    records.into_iter().filter(|r| !other_view(r)).collect()
}

/// A list of product cards none of which shows an amount: records with a
/// name and a URL, and no price unless a card says "Free".
fn unpriced_listing(cx: &Ctx) -> Option<Listing> {
    let cards = crate::unpriced::main_list(cx.doc);
    if cards.is_empty() || main_product_outside(cx.doc, &cards) {
        return None;
    }
    let records: Vec<Record> = card_records(cx, &cards)
        .into_iter()
        .filter(|r| r.has(Field::Url) && r.has(Field::Name))
        .collect();
    (records.len() >= 2).then(|| Listing {
        note: format!(
            "listing of {} product cards that show no price (repeated structure)",
            records.len()
        ),
        records,
    })
}
