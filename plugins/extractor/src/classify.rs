//! Stage 2: what the page is. The one place that decides between a
//! listing read from markup, a listing read from the page (embedded state,
//! visible cards) and a single product.

use crate::dom::Doc;
use crate::identifiers::Ids;
use crate::record::{Field, Record};
use crate::structured::{bare_url, resolve, Markup, PageIdentity, Source};
use crate::text::Find as _;
use crate::{listing, same_product};

/// How the page is to be read.
pub enum Reading {
    /// A listing whose products the markup declares, in page order.
    MarkupList(Vec<Record>),
    /// A listing read from the page's state and cards.
    PageList(listing::Listing),
    /// One product's page (or a page with none: the product stage decides).
    Single,
}

pub fn classify(cx: &listing::Ctx, markup: &Markup, identity: &PageIdentity, ids: &Ids) -> Reading {
    let doc = cx.doc;
    let og_type = doc.meta("og:type").unwrap_or("").to_ascii_lowercase();
    // "product.group" types a collection's page (Shopify's), not a product's.
    let og_type = if og_type.has("product.group") {
        String::new()
    } else {
        og_type
    };
    let singles = markup.singles();
    let listed = markup.listed();
    let records = |idxs: &[usize]| -> Vec<&Record> {
        idxs.iter().map(|&i| &markup.candidates[i].record).collect()
    };
    // Products whose addresses all point into this page (its URL and a
    // fragment of each its own) describe the page's cards, not the page:
    // the list is read from the cards, whose links are the products' pages.
    let into_page = records(&singles)
        .iter()
        .filter(|r| {
            r.get(Field::Url)
                .is_some_and(|u| identity.points_into_page(u))
        })
        .count();
    let entries_of_page = into_page >= 3 && into_page * 5 >= singles.len() * 4;
    if entries_of_page {
        if let Some(found) = listing::from_page(cx, &markup.listed_urls) {
            return Reading::PageList(found);
        }
    }
    // Several products in the markup and none of them the page's own.
    // A heading that the names of three products or more hold ("Sejlersko"
    // in "Sejlersko Tbs Globek", ...) names their category, not one of them.
    let mut heading_named: Vec<String> = records(&singles)
        .iter()
        .filter(|r| identity.heading_names(r))
        .filter_map(|r| r.get(Field::Name).map(crate::norm_name))
        .collect();
    heading_named.sort();
    heading_named.dedup();
    let has_own = records(&singles)
        .iter()
        .any(|r| identity.url_matches(r) || (identity.heading_names(r) && heading_named.len() < 3));
    let distinct = markup.distinct_singles();
    let markup_list = !og_type.has("product")
        && !has_own
        && ((singles.is_empty() && listed.len() >= 2)
            || (distinct >= 3 && listed.len() + singles.len() >= 3));
    if markup_list {
        let idxs = if singles.len() >= 3 {
            &singles
        } else {
            &listed
        };
        let found = idxs
            .iter()
            .map(|&i| (&markup.candidates[i].record, markup.candidates[i].source))
            .collect();
        return Reading::MarkupList(distinct_records(found, cx.base));
    }
    // One or two markup items that are not the page's own and link where
    // the page's cards link (an open house of one listing, a result set's
    // summary) describe a card, not the page: the list is read from the
    // cards, when it holds their links.
    let linked = records(&singles);
    let card_like = !singles.is_empty()
        && singles.len() <= 2
        && !has_own
        && !og_type.has("product")
        && linked.iter().all(|r| r.get(Field::Url).is_some());
    // The page's own list, read at most once.
    let mut page_list: Option<Option<listing::Listing>> = None;
    if card_like {
        if let Some(found) = page_list
            .get_or_insert_with(|| listing::from_page(cx, &markup.listed_urls))
            .take()
        {
            let bare = |u: &str| {
                resolve(cx.base, u)
                    .and_then(|u| url::Url::parse(&u).ok())
                    .map(|u| bare_url(&u))
            };
            let card_urls: Vec<String> = found
                .records
                .iter()
                .filter_map(|r| r.get(Field::Url).and_then(bare))
                .collect();
            let all_cards = linked.iter().all(|r| {
                r.get(Field::Url)
                    .and_then(bare)
                    .is_some_and(|u| card_urls.contains(&u))
            });
            if found.records.len() >= 4 && all_cards {
                return Reading::PageList(found);
            }
            page_list = Some(Some(found));
        }
    }
    // An ItemList of addresses names the page's list. Beside it, markup
    // products that are not the page's own and state no price (a featured
    // item, a card's summary) do not make it one product's page: the list
    // is read from the page, when it shows one.
    let listed_page = markup.listed_urls.len() >= 2;
    let priceless = records(&singles).iter().all(|r| !r.has(Field::Price));
    // A page typed as a product's (`og:type` product) whose heading names
    // none of its markup products and whose ItemList names eight pages or
    // more is a search's or a category's, typed by its template.
    let typed_product = og_type.has("product")
        && !(markup.listed_urls.len() >= 8 && identity.heading_names_none(&records(&singles)));
    if listed_page && !singles.is_empty() && priceless && !has_own && !typed_product {
        if let Some(found) = page_list
            .get_or_insert_with(|| listing::from_page(cx, &markup.listed_urls))
            .take()
        {
            if found.records.len() >= 4 {
                return Reading::PageList(found);
            }
            page_list = Some(Some(found));
        }
    }
    // No product markup of its own: a list in the page's state or cards,
    // unless a product code labelled on the page ("SKU: ...") or product
    // price tags say it is one product's page. An ItemList of URLs names
    // the page's list whatever the page labels.
    // A product that states only a name (a site's description of itself
    // typed as a product) says nothing about the page.
    let bare = |r: &&Record| {
        ![
            Field::Url,
            Field::Price,
            Field::Sku,
            Field::Mpn,
            Field::Gtin,
            Field::Image,
        ]
        .iter()
        .any(|&f| r.has(f))
    };
    // An "og:type" of product on a page whose markup describes no product
    // is taken at its word only when the page shows no long list of
    // products and nothing of its own beside them (category pages of some
    // platforms carry the product pages' tags).
    let og_product = og_type.has("product");
    // Product markup whose every offer spans prices ("from 95990 to 269000
    // RUB"), beside a long list of cards, is what a category page says of
    // the products it lists.
    let spans = !singles.is_empty() && singles.iter().all(|&i| markup.candidates[i].spans_prices);
    if spans && !og_product {
        if let Some(found) = page_list
            .get_or_insert_with(|| listing::from_page(cx, &markup.listed_urls))
            .take()
        {
            if found.records.len() >= LONG_LIST {
                return Reading::PageList(found);
            }
            page_list = Some(Some(found));
        }
    }
    if records(&singles).iter().all(bare)
        && !has_product_price_tags(doc)
        && (listed_page || !ids.single)
    {
        if let Some(found) = page_list
            .get_or_insert_with(|| listing::from_page(cx, &markup.listed_urls))
            .take()
        {
            if !og_product || found.records.len() >= LONG_LIST {
                return Reading::PageList(found);
            }
        }
    }
    Reading::Single
}

/// Cards enough that a page is their list whatever its tags say.
const LONG_LIST: usize = 8;

fn has_product_price_tags(doc: &Doc) -> bool {
    [
        "og:price:amount",
        "product:price:amount",
        "og:price",
        "product:price",
    ]
    .iter()
    .any(|k| doc.meta(k).is_some())
}

/// The records with absolute URLs and images, each product once: the same
/// product at the same URL, or described again by another kind of markup.
/// Items of one kind of markup that name no URL are each their own (two
/// sellers' "iPhone 5s").
fn distinct_records(found: Vec<(&Record, Source)>, base: &Option<url::Url>) -> Vec<Record> {
    use crate::record::Field::{Image, Url};
    let mut out: Vec<(Record, Source)> = Vec::new();
    for (r, source) in found {
        let mut r = r.clone();
        for k in [Url, Image] {
            if let Some(u) = r.get(k).and_then(|h| resolve(base, h)) {
                r.set(k, u);
            }
        }
        let seen = out.iter().any(|(x, s)| {
            same_product(x, &r) && x.get(Url) == r.get(Url) && (r.has(Url) || *s != source)
        });
        if !seen {
            out.push((r, source));
        }
    }
    out.into_iter().map(|(r, _)| r).collect()
}
