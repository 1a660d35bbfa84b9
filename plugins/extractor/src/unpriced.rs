//! A main list none of whose cards shows a price (prices behind a login,
//! "call for price" catalogs, sold-out collections, free app stores, music
//! tags): read only when its cards are plainly products, so that category
//! tiles, blog indexes and menus stay what they are.
//!
//! The cards are sibling subtrees of one shape, each with an image, a name
//! and a link of its own; their links share one shape (site, path depth,
//! first path segment) and that shape names a product page: a product word
//! in the path ("product", "item", "details", "album", ...), or an id in it
//! (a long number, a `?id=`), and no word of an article or a category. Or
//! each card offers a product's action (a button, or a link classed as
//! one, to buy it, keep it on a wish list, compare it or take a quick look
//! at it) and no link names an article or a category.

use crate::dom::{AttrOf as _, Doc, BUTTON, HIDDEN, MAIN};
use crate::repeated::{in_other_region, outside_filters_in_other_region, shape, Counts};
use foldhash::{HashMap, HashMapExt as _};

/// The fewest cards that make such a list: a short row of tiles is more
/// often a menu than a catalog.
const MIN_CARDS: usize = 6;

/// Path segments of product pages across shops, platforms and languages.
const PRODUCT_SEGMENTS: &[&str] = &[
    "p",
    "dp",
    "gp",
    "product",
    "products",
    "produkt",
    "produkte",
    "produit",
    "produits",
    "prodotto",
    "producto",
    "productos",
    "produto",
    "item",
    "items",
    "itm",
    "details",
    "detail",
    "app",
    "apps",
    "album",
    "track",
    "game",
    "games",
    "listing",
    "listings",
    "ad",
    "annonse",
    "annons",
    "vare",
    "artikel",
    "article-detail",
    "sku",
    "goods",
    "offer",
    "book",
    "books",
    "course",
    "courses",
    "model",
    "models",
];

/// Path segments of pages that are not a product's: articles, categories,
/// people, help.
const OTHER_SEGMENTS: &[&str] = &[
    "blog",
    "news",
    "article",
    "articles",
    "post",
    "posts",
    "story",
    "stories",
    "tag",
    "tags",
    "author",
    "authors",
    "category",
    "categories",
    "c",
    "collections",
    "cat",
    "brand",
    "brands",
    "help",
    "faq",
    "support",
    "about",
    "user",
    "users",
    "profile",
    "search",
    "account",
    "login",
    "cart",
    "wishlist",
    "forum",
    "forums",
    "discussion",
    "discussions",
    "thread",
    "threads",
    "topic",
    "topics",
    "comments",
];

/// The link a card leads to: its first usable `href`.
fn card_href<'a>(doc: &'a Doc, card: usize) -> Option<&'a str> {
    (card..doc.els[card].el_end).find_map(|i| {
        let h = doc.els[i].href()?.trim();
        (!h.is_empty() && !h.starts_with('#') && !h.starts_with("javascript")).then_some(h)
    })
}

/// (site, path depth, first segment): the shape one shop's product links
/// share. The site is the host without its first label when it has three or
/// more (artist.example.com and shop.example.com are one site).
fn link_key(href: &str) -> (String, usize, String) {
    let (host, rest) = match href.split_once("://") {
        Some((_, rest)) => rest.split_once('/').unwrap_or((rest, "")),
        None => ("", href.trim_start_matches('/')),
    };
    let host = host.to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    let site = if labels.len() >= 3 {
        labels[1..].join(".")
    } else {
        host.clone()
    };
    let path = rest.split(['?', '#']).next().unwrap_or("");
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let first = segments
        .first()
        .map_or(String::new(), |s| s.to_ascii_lowercase());
    (site, segments.len(), first)
}

/// Whether a link reads as a product page's address.
fn names_a_product(href: &str) -> bool {
    let lower = href.to_ascii_lowercase();
    let after_host = match lower.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, p)| p),
        None => lower.trim_start_matches('/'),
    };
    let (path, query) = after_host.split_once('?').unwrap_or((after_host, ""));
    let mut segments: Vec<&str> = path.split(['/', '#']).filter(|s| !s.is_empty()).collect();
    // A web archive's copy ("web/20190717140047/https://shop.example/p/1"):
    // the archived address is what names the page, not the capture's
    // timestamp.
    if segments.len() >= 2
        && segments[0] == "web"
        && segments[1].starts_with(|c: char| c.is_ascii_digit())
    {
        segments.drain(..2);
        if segments
            .first()
            .is_some_and(|s| matches!(*s, "http:" | "https:"))
        {
            segments.drain(..segments.len().min(2));
        }
    }
    if segments.iter().any(|s| OTHER_SEGMENTS.contains(s)) {
        return false;
    }
    // A picture or a document is no product page.
    if segments.last().is_some_and(|s| {
        s.rsplit_once('.').is_some_and(|(_, ext)| {
            matches!(
                ext,
                "jpg" | "jpeg" | "png" | "gif" | "webp" | "svg" | "avif" | "pdf" | "mp4" | "mp3"
            )
        })
    }) {
        return false;
    }
    let word = segments.iter().any(|s| PRODUCT_SEGMENTS.contains(s));
    let long_number = segments.iter().any(|s| {
        s.split(|c: char| !c.is_ascii_digit())
            .any(|run| run.len() >= 5)
    });
    let id_param = query.split('&').any(|kv| {
        matches!(
            kv.split('=').next(),
            Some("id" | "pid" | "product_id" | "item")
        )
    });
    word || long_number || id_param
}

/// Whether a link's path holds a segment of a page that is no product's.
fn names_other_page(href: &str) -> bool {
    let lower = href.to_ascii_lowercase();
    let path = lower.split(['?', '#']).next().unwrap_or("");
    path.split('/').any(|s| OTHER_SEGMENTS.contains(&s))
}

/// Words of a product's actions on a card: a button's text, title or
/// tooltip ("Add to wish list", "Добавить в сравнение").
const ACTION_WORDS: &[&str] = &[
    "wishlist",
    "wish list",
    "compare",
    "favorite",
    "favourite",
    "merkzettel",
    "vergleich",
    "favoris",
    "comparer",
    "preferiti",
    "confronta",
    "favoritos",
    "comparar",
    "ulubion",
    "porównaj",
    "избранно",
    "сравнени",
    "обране",
    "порівнян",
    "お気に入り",
    "比較",
    // A quick look at the product from the list.
    "quick view",
    "quickview",
    "quick shop",
    "schnellansicht",
    "vista rápida",
    "aperçu rapide",
    "быстрый просмотр",
];

/// Whether a card holds a button (or a link classed as one) for a
/// product's action: buying it, keeping it on a wish list, comparing it,
/// a quick view of it.
fn offers_product_action(doc: &Doc, card: usize) -> bool {
    (card..doc.els[card].el_end).any(|i| {
        let e = &doc.els[i];
        let link_button = e.tag == "a"
            && e.hint.split_ascii_whitespace().any(|t| {
                t.split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| w == "button" || w == "btn")
            });
        if !(e.tag == "button" || e.flags & BUTTON != 0 || link_button) || e.flags & HIDDEN != 0 {
            return false;
        }
        let v = e.el.value();
        let said = [
            v.attr_of("title"),
            v.attr_of("aria-label"),
            v.attr_of("data-tooltip"),
        ]
        .into_iter()
        .flatten()
        .map(str::to_lowercase)
        .chain(std::iter::once(doc.text_of(i, 60).to_lowercase()))
        .any(|t| ACTION_WORDS.iter().any(|w| t.contains(w)) || crate::text::is_buy_text(&t));
        said
    })
}

/// Names of elements that show a picture drawn by style or script.
static IMAGE_WORDS: crate::text::WordList = crate::text::WordList::new(&[
    "image",
    "img",
    "thumb",
    "thumbnail",
    "photo",
    "cover",
    "art",
    "artwork",
    "picture",
]);

/// Whether a card shows an image and a name (a text with letters).
fn image_and_name(doc: &Doc, card: usize) -> bool {
    let e = &doc.els[card];
    let image = (card..e.el_end).any(|i| {
        let x = &doc.els[i];
        matches!(x.tag, "img" | "picture") || crate::text::has_word(&x.hint, &IMAGE_WORDS)
    });
    let name = doc.texts[e.text_start..e.text_end].iter().any(|t| {
        t.flags & HIDDEN == 0 && t.text.chars().filter(|c| c.is_alphabetic()).count() >= 3
    });
    image && name
}

/// The cards of a main list that shows no prices, in page order, or
/// nothing.
pub fn main_list(doc: &Doc) -> Vec<usize> {
    let counts = Counts::new(doc);
    let mut groups: HashMap<(usize, String), Vec<usize>> = HashMap::new();
    for (i, e) in doc.els.iter().enumerate() {
        let Some(p) = e.parent else { continue };
        if e.flags & HIDDEN != 0 || counts.links(doc, i) == 0 || counts.prices(doc, i) > 0 {
            continue;
        }
        groups.entry((p, shape(doc, i))).or_default().push(i);
    }
    let mut best: Option<(usize, usize, Vec<usize>)> = None;
    for ((parent, _), members) in groups {
        let n = members.len();
        // Ties go to the earlier parent, then to the group that starts
        // earlier in the page, never to the map's order.
        if n < MIN_CARDS
            || best.as_ref().is_some_and(|b| {
                (n, usize::MAX - parent, usize::MAX - members[0])
                    <= (b.0, usize::MAX - b.1, usize::MAX - b.2[0])
            })
        {
            continue;
        }
        let hrefs: Vec<&str> = members.iter().filter_map(|&m| card_href(doc, m)).collect();
        let mut keys: HashMap<(String, usize, String), usize> = HashMap::new();
        for h in &hrefs {
            *keys.entry(link_key(h)).or_default() += 1;
        }
        let common = keys.values().copied().max().unwrap_or(0);
        let mut distinct = hrefs.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let shown = members.iter().filter(|&&m| image_and_name(doc, m)).count();
        let products = hrefs.iter().filter(|h| names_a_product(h)).count();
        let most = |k: usize| k * 10 >= n * 9;
        // Or cards that each offer a product's action (to the cart, the
        // wish list, the comparison), leading to no article or category.
        let acted = || {
            most(
                members
                    .iter()
                    .filter(|&&m| offers_product_action(doc, m))
                    .count(),
            ) && !hrefs.iter().any(|h| names_other_page(h))
        };
        if most(common)
            && most(distinct.len())
            && most(shown)
            && (most(products) || acted())
            // (A block named for the filters that holds eight cards or
            // more, each pictured, is the filtered list, not its facets.)
            && (!in_other_region(doc, parent)
                || (n >= 8 && !outside_filters_in_other_region(doc, parent)))
        {
            best = Some((n, parent, members));
        }
    }
    let Some((_, parent, mut members)) = best else {
        return Vec::new();
    };
    // Cards in the page's main content, or a page with no main element.
    let has_main = doc.els.iter().any(|e| e.flags & MAIN != 0);
    if has_main && doc.els[parent].flags & MAIN == 0 && doc.els[members[0]].flags & MAIN == 0 {
        return Vec::new();
    }
    members.sort_unstable();
    members
}

#[cfg(test)]
mod tests {
    use super::names_a_product;

    #[test]
    fn an_archived_link_is_read_by_its_archived_address_and_a_picture_is_no_product() {
        assert!(names_a_product("https://shop.example/p/kettle-1"));
        assert!(names_a_product(
            "https://web.archive.org/web/20190717140047/https://shop.example/p/kettle-1"
        ));
        // The capture's timestamp is no product id.
        assert!(!names_a_product(
            "https://web.archive.org/web/20190717140047/http://blog.example/about-us"
        ));
        assert!(!names_a_product(
            "https://blog.example/wp-content/uploads/2019/07/01234567.jpg"
        ));
        assert!(!names_a_product(
            "https://forum.example/forum/discussion/12345678"
        ));
    }
}
