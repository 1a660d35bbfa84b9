//! The main list of a page without product data: sibling subtrees of the
//! same shape that each carry a link and a price (the record regions of
//! MDR/DEPTA, found in one pass over the flat element array).

use crate::dom::AttrOf as _;
use crate::dom::{Doc, BASKET, CHROME, HEADING, HIDDEN, LINK, MAIN, OPTION, RELATED};
use crate::money::has_currency_mark;
use crate::text::Find as _;
use foldhash::{HashMap, HashMapExt as _};

/// Headings of lists that are not the page's own ("You may also like").
const OTHER_LIST_PHRASES: &[&str] = &[
    "you may also like",
    "you might also like",
    "you may like",
    "you might like",
    "also like",
    "related product",
    "related items",
    "customers also",
    "customers who bought",
    "customers who viewed",
    "also bought",
    "also viewed",
    "recently viewed",
    "similar product",
    "similar items",
    "frequently bought",
    "recommended for you",
    "recommended products",
    "recommendations",
    "sponsored",
    "people also",
    "complete the look",
    "das könnte",
    "ähnliche",
    "zuletzt angesehen",
    "vous aimerez",
    "produits similaires",
    "récemment consultés",
    "te puede interesar",
    "productos relacionados",
    "potrebbe piacerti",
    "prodotti correlati",
    "best seller",
    "bestseller",
    "best-seller",
    "best selling",
    "top seller",
    "top-seller",
    "trending",
    "most popular",
    "popular products",
    "featured products",
    "featured items",
    "top rated",
    "meistverkauft",
    "meilleures ventes",
    "más vendidos",
    "più venduti",
    "mais vendidos",
    "produtos relacionados",
    "também pode gostar",
    "meest verkocht",
    "vergelijkbare producten",
    "polecane produkty",
    "podobne produkty",
    "ostatnio oglądane",
    "хіти продажів",
    "хиты продаж",
    "схожі товари",
    "похожие товары",
    "недавно просмотренные",
    "переглянуті товари",
    "рекомендуем",
    "関連商品",
    "おすすめ商品",
    "最近チェックした",
    "人気商品",
];

/// Whether a short text names a list of other products.
pub fn names_other_list(text: &str) -> bool {
    let t = text.to_lowercase();
    t.len() < 100 && OTHER_LIST_PHRASES.iter().any(|p| t.has(p))
}

/// Advertising containers, by whole words of their class or id.
fn is_ad_hint(hint: &str) -> bool {
    hint.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        matches!(
            w,
            "ad" | "ads" | "advert" | "adverts" | "advertisement" | "sponsored" | "promoted"
        )
    })
}

/// Whether an element named as an ad belongs to a list of classified ads,
/// the page's own products, rather than being an advertising slot: it is
/// one of three or more siblings named as ads ("ad-listitem"), or it holds
/// three or more children named so ("ad-list").
fn classified_ads(doc: &Doc, el: usize) -> bool {
    let alike_children = |parent: usize, tag: Option<&str>| {
        let mut alike = 0;
        let mut child = parent + 1;
        while child < doc.els[parent].el_end {
            let c = &doc.els[child];
            if tag.is_none_or(|t| c.tag == t) && is_ad_hint(&c.hint) {
                alike += 1;
                if alike >= 3 {
                    return true;
                }
            }
            child = c.el_end.max(child + 1);
        }
        false
    };
    alike_children(el, None)
        || doc.els[el]
            .parent
            .is_some_and(|p| alike_children(p, Some(doc.els[el].tag)))
}

/// Whether an element's names call it the page's main content
/// ("main-content", "maincontent", "main").
fn names_main_content(hint: &str) -> bool {
    hint.split_whitespace()
        .filter(|t| !t.starts_with("data-"))
        .any(|t| {
            matches!(
                t,
                "main" | "maincontent" | "main-content" | "main_content" | "content-main"
            )
        })
}

/// Filters of a list (layered navigation, facets, price sliders), by whole
/// words of their class or id: their prices are bounds, not products.
/// A name that also calls the element the filtered list itself
/// ("ajax_facet_grid", "filter-results") is not a filter's.
fn is_filter_hint(hint: &str) -> bool {
    let list_word = |w: &str| {
        matches!(
            w,
            "grid" | "results" | "products" | "product" | "catalog" | "listing" | "list" | "items"
        )
    };
    // A block named for a list whose data attributes speak of its filters
    // (`class="product-listing" data-zero-filter`, `class="product-list-container"
    // data-stock-filter-enabled`) is the list.
    let named_list = || {
        hint.split_whitespace()
            .filter(|t| !t.starts_with("data-"))
            .any(|t| t.split(|c: char| !c.is_ascii_alphanumeric()).any(list_word))
    };
    hint.split_whitespace().any(|token| {
        if token.starts_with("data-") && named_list() {
            return false;
        }
        let mut words = token.split(|c: char| !c.is_ascii_alphanumeric());
        let filter = words.clone().any(|w| {
            matches!(
                w,
                "filter"
                    | "filters"
                    | "facet"
                    | "facets"
                    | "layered"
                    | "refinement"
                    | "refinements"
            ) || is_price_filter_word(w)
        });
        // A list's own word ("facet_grid", "filter-results").
        filter && !words.any(list_word)
    })
}

/// A price filter's name run together, as lowercased camel case leaves it
/// ("filterPrice", "priceFilter", "priceRange", "priceSlider").
fn is_price_filter_word(w: &str) -> bool {
    w.len() > 5
        && w.has("price")
        && ["filter", "range", "slider"]
            .iter()
            .any(|f| w.starts_with(f) || w.ends_with(f))
}

/// Whether a text is a heading of `a`: the block holding it (the largest
/// ancestor of its element that does not hold `a`, or the child of `a` that
/// holds it) has few texts. The first text of a column that opens with a
/// sidebar block ("Recently viewed" and its items) is no heading of it.
fn heading_of(doc: &Doc, t: usize, a: usize) -> bool {
    let mut b = doc.texts[t].el;
    // A text of `a` itself or of an ancestor, outside any child block.
    if b <= a && a < doc.els[b].el_end {
        return true;
    }
    while let Some(p) = doc.els[b].parent {
        if p <= a && a < doc.els[p].el_end {
            break;
        }
        b = p;
    }
    let e = &doc.els[b];
    e.text_end - e.text_start <= 3
}

/// Whether cards are named as a side bar's picks ("featured-products-item",
/// as the heading "Featured products" names them), not the page's list.
/// (Only the cards: a product page's own block may be named so.)
fn named_as_picks(hint: &str) -> bool {
    hint.has("featured-product") || hint.has("featured_product")
}

/// Whether an element sits in a part of the page that holds other products
/// (recommendations, recently viewed, ads), in the filters of a list or in
/// the page chrome.
pub fn in_other_region(doc: &Doc, el: usize) -> bool {
    other_region(doc, el, true)
}

/// [`in_other_region`], a block named for the filters aside: the list that
/// the filters act on may be named for them ("filter-here").
pub fn outside_filters_in_other_region(doc: &Doc, el: usize) -> bool {
    other_region(doc, el, false)
}

/// [`in_other_region`], with or without the filters of a list.
fn other_region(doc: &Doc, el: usize, filters: bool) -> bool {
    let e = &doc.els[el];
    if e.flags & (CHROME | RELATED | HIDDEN) != 0 {
        return true;
    }
    let mut cur = Some(el);
    let mut n = 0;
    while let Some(i) = cur {
        if n > 12 {
            break;
        }
        let a = &doc.els[i];
        // A filter block sits close around its facets; a wrapper named for
        // the filterable list ("product-filter") further up is not one, nor
        // the page's main content that holds the filters and the list
        // ("main-content view-filter-navigation").
        // (The page's body classed for its ads' layout, "ads-fixed", is no
        // ad slot.)
        let page_level = matches!(a.tag, "body" | "html");
        if (is_ad_hint(&a.hint) && !page_level && !classified_ads(doc, i))
            || (filters && n <= 3 && is_filter_hint(&a.hint) && !names_main_content(&a.hint))
            || a.hint.has("recently")
            || a.hint.has("also-like")
        {
            return true;
        }
        // A heading just before the container (or its first text) that
        // names another list.
        if n <= 4 {
            let from = a.text_start.saturating_sub(2);
            let to = (a.text_start + 1).min(a.text_end).max(a.text_start);
            // The page's own title ("Best sellers" as a category) names
            // the main list, not another one; nor is an option of a sort
            // menu just before the list ("Top des ventes") its heading.
            if (from..to).any(|t| {
                doc.texts[t].flags & (HEADING | OPTION) == 0
                    && names_other_list(&doc.texts[t].text)
                    && heading_of(doc, t, i)
            }) {
                return true;
            }
        }
        cur = a.parent;
        n += 1;
    }
    false
}

/// Whether an element holds a picture.
fn pictured(doc: &Doc, el: usize) -> bool {
    (el..doc.els[el].el_end).any(|i| matches!(doc.els[i].tag, "img" | "picture"))
}

/// Per-element counts over subtrees, by prefix sums over the flat arrays.
pub(crate) struct Counts {
    links: Vec<u32>,
    prices: Vec<u32>,
}

impl Counts {
    pub(crate) fn new(doc: &Doc) -> Counts {
        let mut links = Vec::with_capacity(doc.els.len() + 1);
        links.push(0);
        for e in &doc.els {
            let is_link = e
                .href()
                .map(|h| {
                    let h = h.trim();
                    !h.is_empty()
                        && (!h.starts_with('#') || crate::cards::is_app_route(h))
                        && !h.starts_with("javascript")
                })
                .unwrap_or(false);
            links.push(links.last().unwrap() + is_link as u32);
        }
        let mut prices = Vec::with_capacity(doc.texts.len() + 1);
        prices.push(0);
        // A currency written in its own element next to the amount
        // ("11.95 <span>CHF</span>").
        let lone_mark = |k: usize| {
            doc.texts
                .get(k)
                .is_some_and(|t| t.text.trim().chars().count() <= 4 && has_currency_mark(&t.text))
        };
        for (k, t) in doc.texts.iter().enumerate() {
            let is_price = t.flags & (HIDDEN | BASKET) == 0
                && t.text.len() <= 80
                && t.text.bytes().any(|b| b.is_ascii_digit())
                && (doc.els[t.el].named & crate::dom::PRICE_NAMED != 0
                    || has_currency_mark(&t.text)
                    || (!t.text.chars().any(|c| c.is_alphabetic())
                        && (lone_mark(k + 1) || (k > 0 && lone_mark(k - 1)))));
            prices.push(prices.last().unwrap() + is_price as u32);
        }
        Counts { links, prices }
    }

    pub(crate) fn links(&self, doc: &Doc, i: usize) -> u32 {
        self.links[doc.els[i].el_end] - self.links[i]
    }

    pub(crate) fn prices(&self, doc: &Doc, i: usize) -> u32 {
        let e = &doc.els[i];
        self.prices[e.text_end] - self.prices[e.text_start]
    }
}

/// The shape of an element: its tag and first class name, digits dropped.
pub(crate) fn shape(doc: &Doc, i: usize) -> String {
    let e = &doc.els[i];
    let class =
        e.el.value()
            .attr_of("class")
            .and_then(|c| c.split_whitespace().next())
            .unwrap_or("");
    let mut s = String::with_capacity(e.tag.len() + class.len() + 1);
    s.push_str(e.tag);
    s.push('.');
    s.extend(class.chars().filter(|c| !c.is_ascii_digit()));
    s
}

/// The members of `parent`'s group of `card_shape`, with the siblings of the
/// same tag but another class that also hold a link and a price (not ads).
fn with_odd_siblings(
    doc: &Doc,
    groups: &HashMap<(usize, String), Vec<usize>>,
    parent: usize,
    card_shape: &str,
) -> Vec<usize> {
    let tag = card_shape.split('.').next().unwrap_or("");
    let mut out: Vec<usize> = groups
        .iter()
        .filter(|((p, s), _)| *p == parent && (s == card_shape || s.split('.').next() == Some(tag)))
        .flat_map(|(_, m)| m.iter().copied())
        .collect();
    // Ads among the cards are left out, unless the cards are ads
    // themselves (a list of classified ads).
    if !mostly_ads(doc, &out) {
        out.retain(|&i| i == parent || !is_ad_hint(&doc.els[i].hint));
    }
    out.sort_unstable();
    out
}

/// Whether most of the elements are named as ads: a list of classified
/// ads, where "ad" names the page's own products.
fn mostly_ads(doc: &Doc, els: &[usize]) -> bool {
    els.iter()
        .filter(|&&i| is_ad_hint(&doc.els[i].hint))
        .count()
        * 2
        > els.len()
}

/// The cards inside rows (see [`main_list`]), or `None` when the members
/// are the cards themselves.
fn cards_in_rows(
    doc: &Doc,
    counts: &Counts,
    groups: &HashMap<(usize, String), Vec<usize>>,
    rows: &[usize],
) -> Option<Vec<usize>> {
    cards_in_row_children(doc, counts, groups, rows)
        .or_else(|| cards_in_sections(doc, counts, groups, rows))
}

/// Members that are sections, each a heading ("UR Card List") and a grid
/// of its cards further down: the cards of every section, when they hold
/// all the sections' prices.
fn cards_in_sections(
    doc: &Doc,
    counts: &Counts,
    groups: &HashMap<(usize, String), Vec<usize>>,
    sections: &[usize],
) -> Option<Vec<usize>> {
    let within = |r: usize, p: usize| p > r && p < doc.els[r].el_end;
    let first = *sections.first()?;
    let (_, _, card_shape) = groups
        .iter()
        .filter(|((p, _), m)| within(first, *p) && m.len() >= 2)
        .map(|((p, s), m)| (m.len(), std::cmp::Reverse(*p), s))
        .max()?;
    let mut cards = Vec::new();
    for &r in sections {
        let mut parents: Vec<usize> = groups
            .keys()
            .filter(|(p, s)| within(r, *p) && s == card_shape)
            .map(|(p, _)| *p)
            .collect();
        parents.sort_unstable();
        parents.dedup();
        let mut sub: Vec<usize> = parents
            .iter()
            .flat_map(|&p| with_odd_siblings(doc, groups, p, card_shape))
            .collect();
        sub.sort_unstable();
        sub.dedup();
        let Some(&first_card) = sub.first() else {
            return None;
        };
        // A heading of the section before its first card, that leads
        // nowhere (a card's title leads to its product).
        let headed = (r + 1..first_card)
            .any(|i| doc.els[i].el_end <= first_card && is_plain_heading(doc, i));
        let inner: u32 = sub.iter().map(|&c| counts.prices(doc, c)).sum();
        if !headed || inner < counts.prices(doc, r) {
            return None;
        }
        cards.extend_from_slice(&sub);
    }
    (cards.len() > sections.len()).then_some(cards)
}

/// Members that are rows whose children (or the children of a row's only
/// child) are the cards (a grid written as one element per row): the cards
/// of every row, when they hold all the rows' prices.
fn cards_in_row_children(
    doc: &Doc,
    counts: &Counts,
    groups: &HashMap<(usize, String), Vec<usize>>,
    rows: &[usize],
) -> Option<Vec<usize>> {
    let first = only_child_of(doc, *rows.first()?);
    let (_, card_shape) = groups
        .iter()
        .filter(|((p, _), m)| *p == first && m.len() >= 2)
        .map(|((_, s), m)| (m.len(), s))
        .max()?;
    let mut cards = Vec::new();
    for &r in rows {
        // With a row's first or last card classed apart ("li.first"); a
        // last row may hold one priced card.
        let sub = with_odd_siblings(doc, groups, only_child_of(doc, r), card_shape);
        if sub.is_empty() {
            return None;
        }
        let inner: u32 = sub.iter().map(|&c| counts.prices(doc, c)).sum();
        if inner < counts.prices(doc, r) {
            return None;
        }
        cards.extend_from_slice(&sub);
    }
    (cards.len() > rows.len()).then_some(cards)
}

/// The element whose children a row's cards are: the row, or the wrapper
/// that is its only child (a row `div` holding one `div` of cards).
fn only_child_of(doc: &Doc, row: usize) -> usize {
    let end = doc.els[row].el_end;
    if row + 1 < end && doc.els[row + 1].el_end == end {
        row + 1
    } else {
        row
    }
}

/// Whether an element lies in one of several sibling cards of one shape
/// that each carry a link and a few prices: a list of products (a teaser
/// row, a list of top sellers), not the page's own product.
pub fn in_card_list(doc: &Doc, el: usize) -> bool {
    let counts = Counts::new(doc);
    let is_card = |i: usize| {
        let p = counts.prices(doc, i);
        counts.links(doc, i) > 0 && (1..=4).contains(&p)
    };
    let mut cur = el;
    for _ in 0..8 {
        let Some(p) = doc.els[cur].parent else { break };
        if matches!(doc.els[p].tag, "body" | "html") {
            break;
        }
        if is_card(cur) {
            let sh = shape(doc, cur);
            let mut same = 0;
            let mut k = p + 1;
            while k < doc.els[p].el_end {
                if shape(doc, k) == sh && is_card(k) {
                    same += 1;
                }
                k = doc.els[k].el_end;
            }
            if same >= 2 {
                return true;
            }
        }
        cur = p;
    }
    false
}

/// The cards of the page's main list, in page order, or nothing.
/// `min` is the fewest cards that make a list.
pub fn main_list(doc: &Doc, min: usize) -> Vec<usize> {
    if doc.els.len() < 4 {
        return Vec::new();
    }
    let counts = Counts::new(doc);
    let mut groups: HashMap<(usize, String), Vec<usize>> = HashMap::new();
    for (i, e) in doc.els.iter().enumerate() {
        let Some(p) = e.parent else { continue };
        if e.flags & HIDDEN != 0 || counts.links(doc, i) == 0 || counts.prices(doc, i) == 0 {
            continue;
        }
        groups.entry((p, shape(doc, i))).or_default().push(i);
    }
    let mut best: Option<(i64, usize, Vec<usize>)> = None;
    for ((parent, _), members) in groups.iter() {
        if members.len() < 2 {
            continue;
        }
        let n = members.len() as i64;
        // Cards hold one product: a few prices each. Members that each hold
        // many prices are sections of the page, not cards.
        let prices: u32 = members.iter().map(|&m| counts.prices(doc, m)).sum();
        let per = prices as f64 / n as f64;
        let mut score = n * 10;
        if per > 4.0 {
            score -= 30;
        }
        if doc.els[*parent].flags & MAIN != 0 {
            score += 5;
        }
        // Ties go to the earlier parent, then to the group that starts
        // earlier in the page: never to the map's order, which changes
        // from run to run.
        if best.as_ref().map(|b| {
            (
                score,
                std::cmp::Reverse(*parent),
                std::cmp::Reverse(members[0]),
            ) > (b.0, std::cmp::Reverse(b.1), std::cmp::Reverse(b.2[0]))
        }) != Some(false)
        {
            // The region, or the cards' own names. (A block named for the
            // filters that holds eight pictured cards or more is the
            // filtered list, not its facets.)
            let filtered_list = || {
                members.len() >= 8
                    && !other_region(doc, *parent, false)
                    && members.iter().filter(|&&m| pictured(doc, m)).count() * 10
                        >= members.len() * 9
            };
            if (in_other_region(doc, *parent) && !filtered_list())
                || named_as_picks(&doc.els[members[0]].hint)
            {
                continue;
            }
            best = Some((score, *parent, members.clone()));
        }
    }
    let Some((_, parent, mut members)) = best else {
        return Vec::new();
    };
    let card_shape = shape(doc, members[0]);
    // A card of the same tag whose wrapper class differs (a bare `li` among
    // `li.has-image`, the last `td` of a row classed for its border) is one of
    // them too, when it holds a link and a price like the others.
    if members.len() >= 3 {
        members = with_odd_siblings(doc, &groups, parent, &card_shape);
    }
    // A grid written as one element per row: the members are rows that each
    // hold cards of one shape, and those cards hold all the row's prices.
    let mut rows_split = false;
    if let Some(sub) = cards_in_rows(doc, &counts, &groups, &members) {
        members = sub;
        rows_split = true;
    }
    // Cards laid out in rows: the same group under the parent's siblings.
    if let (false, Some(gp)) = (rows_split, doc.els[parent].parent) {
        let row_shape = shape(doc, parent);
        let mut rows: Vec<usize> = groups
            .keys()
            .filter(|(p, s)| {
                *p != parent
                    && *s == card_shape
                    && doc.els[*p].parent == Some(gp)
                    && shape(doc, *p) == row_shape
                    && !in_other_region(doc, *p)
            })
            .map(|(p, _)| *p)
            .collect();
        if rows.is_empty() {
            rows = wrapped_rows(doc, &groups, parent, &card_shape);
        }
        if rows.is_empty() {
            rows = headed_sections(doc, &groups, parent, &card_shape);
        }
        if !rows.is_empty() {
            rows.push(parent);
            rows.sort_unstable();
            members = rows
                .iter()
                .flat_map(|&p| with_odd_siblings(doc, &groups, p, &card_shape))
                .collect();
        }
    }
    members.sort_unstable();
    if members.len() < min {
        return Vec::new();
    }
    with_priceless_siblings(doc, &counts, members)
}

/// Whether an element is a section's heading (h2 to h4) that leads
/// nowhere: a card's title leads to its product.
fn is_plain_heading(doc: &Doc, i: usize) -> bool {
    let h = &doc.els[i];
    matches!(h.tag, "h2" | "h3" | "h4")
        && h.flags & LINK == 0
        && !(i..h.el_end).any(|j| doc.els[j].tag == "a")
}

/// Rows that each wrap their cards once more (`div.row > div.cols >
/// cards`), `grid` being one row's only child: the other rows' grids.
fn wrapped_rows(
    doc: &Doc,
    groups: &HashMap<(usize, String), Vec<usize>>,
    grid: usize,
    card_shape: &str,
) -> Vec<usize> {
    let Some(row) = doc.els[grid].parent else {
        return Vec::new();
    };
    let Some(rows_parent) = doc.els[row].parent else {
        return Vec::new();
    };
    if only_child_of(doc, row) != grid {
        return Vec::new();
    }
    let (row_shape, grid_shape) = (shape(doc, row), shape(doc, grid));
    let mut found: Vec<usize> = groups
        .keys()
        .filter(|(g, s)| {
            let r = doc.els[*g].parent;
            *g != grid
                && s == card_shape
                && r.is_some_and(|r| {
                    doc.els[r].parent == Some(rows_parent)
                        && only_child_of(doc, r) == *g
                        && shape(doc, r) == row_shape
                })
                && shape(doc, *g) == grid_shape
                && !in_other_region(doc, *g)
        })
        .map(|(g, _)| *g)
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// A category shown in headed sections ("Milk", "Cheese"), each a heading
/// and a grid of the same cards two or three levels below the sections'
/// common parent: the other sections' grids, when the grids' ancestors up
/// to that parent have the same shapes and a heading that leads nowhere
/// comes before the first grid and before most of the others, after the
/// grid before it.
fn headed_sections(
    doc: &Doc,
    groups: &HashMap<(usize, String), Vec<usize>>,
    grid: usize,
    card_shape: &str,
) -> Vec<usize> {
    // An element's ancestors: [parent, grandparent, great-grandparent].
    let ups = |g: usize| -> Vec<usize> {
        std::iter::successors(doc.els[g].parent, |&a| doc.els[a].parent)
            .take(3)
            .collect()
    };
    let mine = ups(grid);
    let grid_shape = shape(doc, grid);
    for level in 2..=3 {
        let Some(&common) = mine.get(level - 1) else {
            break;
        };
        let path: Vec<String> = mine[..level - 1].iter().map(|&a| shape(doc, a)).collect();
        let mut grids: Vec<usize> = groups
            .keys()
            .filter(|(g, s)| {
                let theirs = ups(*g);
                s == card_shape
                    && theirs.get(level - 1) == Some(&common)
                    && shape(doc, *g) == grid_shape
                    && theirs[..level - 1]
                        .iter()
                        .map(|&a| shape(doc, a))
                        .eq(path.iter().cloned())
                    && !in_other_region(doc, *g)
            })
            .map(|(g, _)| *g)
            .collect();
        grids.sort_unstable();
        grids.dedup();
        if grids.len() < 2 || !grids.contains(&grid) {
            continue;
        }
        let mut after = common + 1;
        let headed: Vec<bool> = grids
            .iter()
            .map(|&g| {
                let found = (after..g).any(|i| is_plain_heading(doc, i) && doc.els[i].el_end <= g);
                after = doc.els[g].el_end;
                found
            })
            .collect();
        // (A section may hold a second grid under its one heading.)
        if headed[0] && headed.iter().filter(|&&h| h).count() * 2 >= grids.len() {
            grids.retain(|&g| g != grid);
            return grids;
        }
    }
    Vec::new()
}

/// The link of an element's subtree that a card leads to, as (host, path
/// depth): the shape product links of one shop share.
pub(crate) fn link_shape(doc: &Doc, card: usize) -> Option<(String, usize)> {
    (card..doc.els[card].el_end).find_map(|i| {
        let h = doc.els[i].href()?.trim();
        if h.is_empty()
            || (h.starts_with('#') && !crate::cards::is_app_route(h))
            || h.starts_with("javascript")
        {
            return None;
        }
        // An app route's address is its fragment ("#!/content/63207").
        let h = if crate::cards::is_app_route(h) {
            h.trim_start_matches('#')
                .trim_start_matches('!')
                .trim_start_matches("%21")
        } else {
            h
        };
        // Relative links keep their own depth; the host is then the page's.
        let (host, path) = match h.split_once("://") {
            Some((_, rest)) => rest.split_once('/').unwrap_or((rest, "")),
            None => ("", h.trim_start_matches('/')),
        };
        let path = path.split(['?', '#']).next().unwrap_or("");
        // ("../../catalog/x/" counts its own folders, not the steps up: a
        // copy of a site links every page so.)
        let depth = path
            .split('/')
            .filter(|s| !matches!(*s, "" | "." | ".."))
            .count();
        Some((host.trim_start_matches("www.").to_ascii_lowercase(), depth))
    })
}

/// The main list with its cards that show no price ("call for price", sold
/// out, not yet released): siblings of a card, of the same shape, that lead
/// to a link of the same shape as the priced cards' links. Only where most
/// cards are priced, so that a row of category tiles never joins a list.
fn with_priceless_siblings(doc: &Doc, counts: &Counts, members: Vec<usize>) -> Vec<usize> {
    if members.len() < 3 {
        return members;
    }
    let shapes: Vec<Option<(String, usize)>> =
        members.iter().map(|&m| link_shape(doc, m)).collect();
    let Some(common) = shapes.first().cloned().flatten() else {
        return members;
    };
    // A link of the common shape, or one folder up or down from it
    // (products filed in a subcategory or not).
    let near_common = |s: &(String, usize)| s.0 == common.0 && s.1.abs_diff(common.1) <= 1;
    if shapes.iter().flatten().filter(|s| near_common(s)).count() * 4 < members.len() * 3 {
        return members;
    }
    let mut parents: Vec<usize> = members.iter().filter_map(|&m| doc.els[m].parent).collect();
    parents.dedup();
    let card_shapes: Vec<String> = members.iter().map(|&m| shape(doc, m)).collect();
    let card_tags: Vec<&str> = members.iter().map(|&m| doc.els[m].tag).collect();
    // Of the cards' shape, or of their tag and classed for its state: a
    // card that says it is sold out ("li.sold_out", "Out of stock").
    let of_the_cards = |k: usize| {
        card_shapes.contains(&shape(doc, k))
            || (card_tags.contains(&doc.els[k].tag)
                && (doc.els[k].text_start..doc.els[k].text_end).any(|t| {
                    crate::text::availability_from_short_text(&doc.texts[t].text)
                        .is_some_and(|a| a != "InStock")
                }))
    };
    let ads_are_cards = mostly_ads(doc, &members);
    let mut extra: Vec<usize> = Vec::new();
    for &p in &parents {
        let mut k = p + 1;
        while k < doc.els[p].el_end {
            let e = &doc.els[k];
            if !members.contains(&k)
                && e.flags & HIDDEN == 0
                && counts.prices(doc, k) == 0
                && counts.links(doc, k) > 0
                && of_the_cards(k)
                && (ads_are_cards || !is_ad_hint(&e.hint))
                && link_shape(doc, k).is_some_and(|s| {
                    s == common || (near_common(&s) && card_shapes.contains(&shape(doc, k)))
                })
            {
                extra.push(k);
            }
            k = e.el_end;
        }
    }
    if extra.is_empty() || extra.len() > members.len() {
        return members;
    }
    let mut all = members;
    all.extend(extra);
    all.sort_unstable();
    all
}
