//! Links to further catalog pages: next pages first, then categories and
//! product pages of the same site. Absolute, deduplicated, bounded.

use crate::dom::AttrOf as _;
use crate::dom::Doc;
use crate::text::{Find as _, Words};
use foldhash::{HashMap, HashMapExt as _, HashSet, HashSetExt as _};

pub const MAX_LINKS: usize = 100;

const NEXT_WORDS: &[&str] = &[
    "next",
    "next page",
    "›",
    "»",
    ">",
    "→",
    "weiter",
    "nächste",
    "nächste seite",
    "suivant",
    "page suivante",
    "siguiente",
    "successivo",
    "successiva",
    "avanti",
    "próxima",
    "próximo",
    "seguinte",
    "volgende",
    "следующая",
    "далее",
    "następna",
    "další",
    "ďalšia",
    "nästa",
    "neste",
    "næste",
    "seuraava",
    "sonraki",
    "következő",
    "înainte",
    "urmatoarea",
    "次へ",
    "下一頁",
    "下一页",
    "다음",
];

static SKIP_WORDS: Words = Words::new(&[
    "login",
    "logout",
    "signin",
    "sign-in",
    "register",
    "account",
    "basket",
    "checkout",
    "wishlist",
    "privacy",
    "terms",
    "cookie",
    "help",
    "contact",
    "faq",
    "javascript:",
    "mailto:",
    "tel:",
    "/cdn-cgi/",
    "facebook.com",
    "twitter.com",
    "instagram.com",
    "pinterest.",
    "youtube.com",
    "linkedin.com",
]);

/// Query keys that number a page (compared without case).
const PAGE_KEYS: &[&str] = &[
    "page",
    "p",
    "pg",
    "paged",
    "pageno",
    "pagenum",
    "pagenumber",
    "page_number",
    "pageindex",
    "currentpage",
    "pagina",
    "seite",
];

fn page_number(url: &url::Url) -> Option<u32> {
    // The query's pairs as `Url::query_pairs` reads them, decoded only when
    // they hold a '%' or '+' (most pairs do not, and a page links hundreds
    // of URLs).
    let query = url.query().unwrap_or("");
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let encoded = pair.bytes().any(|b| b == b'%' || b == b'+');
        let (k, v) = if encoded {
            let Some((k, v)) = url::form_urlencoded::parse(pair.as_bytes()).next() else {
                continue;
            };
            (k, v)
        } else {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k.into(), v.into())
        };
        if PAGE_KEYS.iter().any(|p| k.eq_ignore_ascii_case(p)) {
            if let Ok(n) = v.parse() {
                return Some(n);
            }
        }
    }
    let mut prev = None;
    for seg in url.path_segments()? {
        // Not "p": "/p/123" is a product URL on many shops.
        if matches!(prev, Some("page" | "seite" | "pagina")) {
            if let Ok(n) = seg.parse() {
                return Some(n);
            }
        }
        prev = Some(seg);
    }
    None
}

#[cfg(test)]
#[test]
fn page_numbers_are_read_as_the_decoded_query_says() {
    let by_pairs = |url: &url::Url| {
        url.query_pairs().find_map(|(k, v)| {
            PAGE_KEYS
                .contains(&k.to_ascii_lowercase().as_str())
                .then(|| v.parse::<u32>().ok())
                .flatten()
        })
    };
    for u in [
        "https://s.example/c?page=3",
        "https://s.example/c?PAGE=4&x=1",
        "https://s.example/c?x=1&&p=2",
        "https://s.example/c?%70age=5",
        "https://s.example/c?page=%36",
        "https://s.example/c?page=+7",
        "https://s.example/c?page",
        "https://s.example/c?page=x&pg=9",
        "https://s.example/c?=3&seite=2",
        "https://s.example/c?page=1=2",
        "https://s.example/c",
    ] {
        let url = url::Url::parse(u).unwrap();
        let path_free = url::Url::parse(&u.replace("/c?", "/?")).unwrap();
        assert_eq!(page_number(&path_free), by_pairs(&path_free), "{u}");
        assert_eq!(page_number(&url), by_pairs(&url), "{u}");
    }
}

/// Labels of buttons and links that load the next part of a list.
const MORE_WORDS: &[&str] = &[
    "load more",
    "show more",
    "view more",
    "see more",
    "more products",
    "more results",
    "mehr laden",
    "mehr anzeigen",
    "weitere laden",
    "weitere artikel",
    "voir plus",
    "afficher plus",
    "charger plus",
    "cargar más",
    "ver más",
    "mostrar más",
    "carica altri",
    "mostra altri",
    "carregar mais",
    "ver mais",
    "meer laden",
    "toon meer",
];

/// Further catalog pages of a page.
pub struct CatalogLinks {
    /// Next pages first, then the links related to what is wanted, then
    /// the rest (each part: ItemList URLs, then other same-site links).
    pub links: Vec<String>,
    /// How many of `links` come before the unrelated ones.
    pub related: usize,
    /// The list's next page(s): rel=next, next/load-more links, then the
    /// numbered pages after the current one in page order.
    pub next: Vec<String>,
}

/// Whether a lowercased link leads to the shopping cart: a word of it is
/// "cart" or ends so ("add-to-cart", "addtocart", "minicart", "cart.php"),
/// not one that starts so (French "carte-graphique", "cartridges").
pub(crate) fn is_cart_link(lower: &str) -> bool {
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.ends_with("cart") || w == "carts")
}

/// A link's target that may be a catalog link, resolved.
struct Target {
    url: url::Url,
    /// `url` as text.
    text: String,
    /// The page of a list it names, if any.
    number: Option<u32>,
}

/// The target `h` (trimmed) resolved against the page, unless it is no
/// catalog link: empty or a fragment, a login, cart or the like
/// (`SKIP_WORDS`), another site or scheme, a file (an image, a stylesheet),
/// or the page itself.
fn resolve(base: &url::Url, host: &str, page_url: &str, h: &str) -> Option<Target> {
    if h.is_empty() || h.starts_with('#') {
        return None;
    }
    let lower = h.to_ascii_lowercase();
    if SKIP_WORDS.any_in(&lower) || is_cart_link(&lower) {
        return None;
    }
    let mut u = base.join(h).ok()?;
    if u.scheme() != "http" && u.scheme() != "https" {
        return None;
    }
    if u.host_str().unwrap_or("").trim_start_matches("www.") != host {
        return None;
    }
    u.set_fragment(None);
    let path = u.path().to_ascii_lowercase();
    if [
        ".jpg", ".jpeg", ".png", ".gif", ".pdf", ".css", ".js", ".svg", ".webp", ".xml",
    ]
    .iter()
    .any(|x| path.ends_with(x))
    {
        return None;
    }
    let text = u.to_string();
    if text == page_url || text.trim_end_matches('/') == page_url.trim_end_matches('/') {
        return None;
    }
    let number = page_number(&u);
    Some(Target {
        url: u,
        text,
        number,
    })
}

/// Catalog links of a page and its next pages. `listed` are URLs the
/// page's markup lists (ItemList entries): they come right after the
/// next-page links.
pub fn catalog_links(
    doc: &Doc,
    base: &Option<url::Url>,
    page_url: &str,
    listed: &[String],
    wanted: Option<&crate::relevance::Wanted>,
) -> CatalogLinks {
    let Some(base) = base else {
        return CatalogLinks {
            links: Vec::new(),
            related: 0,
            next: Vec::new(),
        };
    };
    let here = page_number(base).unwrap_or(1);
    let mut related = 0;
    // The lists below hold indexes into `targets`: a page links most of its
    // targets more than once, and an index is neither copied nor hashed as
    // text at every link.
    let mut next: Vec<usize> = Vec::new();
    // Numbered pages after this one, with their number.
    let mut numbered: Vec<(u32, usize)> = Vec::new();
    // Other links, with whether they relate to what is wanted.
    let mut other: Vec<(usize, bool)> = Vec::new();
    // Membership of `next` and `other`, which keep the order: a page may
    // link thousands of URLs, too many to search the lists for each.
    let mut next_seen = HashSet::new();
    let mut other_seen = HashSet::new();
    let host = base
        .host_str()
        .unwrap_or("")
        .trim_start_matches("www.")
        .to_string();
    let mut resolved: HashMap<&str, Option<usize>> = HashMap::new();
    // Every distinct target once: spellings that resolve to the same URL
    // share one index, so an index stands for its URL's text.
    let mut targets: Vec<Target> = Vec::new();
    let mut by_text: HashMap<String, usize> = HashMap::new();
    for (i, e) in doc.els.iter().enumerate() {
        let v = e.el.value();
        let href = match e.tag {
            "a" | "link" => v.attr_of("href"),
            // "Load more" buttons name their target in a data attribute.
            "button" => v
                .attr_of("data-href")
                .or_else(|| v.attr_of("data-url"))
                .or_else(|| v.attr_of("data-next-url"))
                .or_else(|| v.attr_of("data-next")),
            _ => None,
        };
        let Some(href) = href else { continue };
        let rel = v.attr_of("rel").unwrap_or("").to_ascii_lowercase();
        if e.tag == "link" && !rel.split_whitespace().any(|r| r == "next") {
            continue;
        }
        // What a target resolves to depends on it alone: resolved once per
        // spelling (a page links most of its targets more than once).
        let h = href.trim();
        let at = match resolved.get(h) {
            Some(&at) => at,
            None => {
                let at = resolve(base, &host, page_url, h).map(|link| {
                    if let Some(&at) = by_text.get(link.text.as_str()) {
                        return at;
                    }
                    by_text.insert(link.text.clone(), targets.len());
                    targets.push(link);
                    targets.len() - 1
                });
                resolved.insert(h, at);
                at
            }
        };
        let Some(at) = at else { continue };
        let Target { url: u, number, .. } = &targets[at];
        let number = *number;
        // Next-page labels are short: one or two texts.
        let label = if matches!(e.tag, "a" | "button") && e.text_end - e.text_start <= 2 {
            doc.text_of(i, 40).to_lowercase()
        } else {
            String::new()
        };
        let aria = v.attr_of("aria-label").unwrap_or("").to_ascii_lowercase();
        let later = number.map(|n| n > here).unwrap_or(false);
        let more = later && MORE_WORDS.iter().any(|w| label.has(w) || aria.has(w));
        let is_next = rel.split_whitespace().any(|r| r == "next")
            || NEXT_WORDS
                .iter()
                .any(|w| label == *w || label.trim_end_matches(['›', '»', '>', ' ']) == *w)
            || aria.has("next")
            || e.hint.has("next") && e.hint.has("pag")
            || more
            || number.map(|n| n == here + 1).unwrap_or(false);
        // A numbered page link: its label is its number, or it sits in a
        // pagination block.
        let numbered_link = later
            && e.tag == "a"
            && (label.trim().parse::<u32>().ok() == number || doc.ancestor_hints(i, 4).has("pag"));
        if is_next {
            if next_seen.insert(at) {
                next.push(at);
            }
        } else if numbered_link {
            if next_seen.insert(at) {
                numbered.push((number.unwrap_or(u32::MAX), at));
            }
        } else if other.len() < MAX_LINKS * 3 && other_seen.insert(at) {
            let related = wanted.is_none_or(|w| {
                w.named_in(u.path())
                    || v.attr_of("title").is_some_and(|t| w.named_in(t))
                    || w.named_in(&doc.text_of(i, 120))
            });
            other.push((at, related));
        }
    }
    numbered.sort_by_key(|(n, _)| *n);
    next.extend(numbered.into_iter().map(|(_, at)| at));
    let mut next: Vec<String> = next
        .into_iter()
        .map(|at| targets[at].text.clone())
        .collect();
    let mut listed_links: Vec<(String, bool)> = Vec::new();
    for l in listed {
        if let Ok(mut u) = base.join(l.trim()) {
            u.set_fragment(None);
            let same_site = u.host_str().unwrap_or("").trim_start_matches("www.") == host;
            if same_site && (u.scheme() == "http" || u.scheme() == "https") {
                let related = wanted.is_none_or(|w| w.named_in(u.path()));
                listed_links.push((u.to_string(), related));
            }
        }
    }
    let mut out = next.clone();
    let mut seen: HashSet<&str> = next.iter().map(String::as_str).collect();
    // Related links first, then the rest; each part keeps the page's order.
    for want_related in [true, false] {
        let listed = listed_links.iter().map(|(s, r)| (s.as_str(), *r));
        let others = other.iter().map(|&(at, r)| (targets[at].text.as_str(), r));
        for (s, related) in listed.chain(others) {
            if related == want_related && out.len() < MAX_LINKS && seen.insert(s) {
                out.push(s.to_owned());
            }
        }
        if want_related {
            related = out.len();
        }
    }
    next.truncate(MAX_LINKS);
    CatalogLinks {
        links: out,
        related,
        next,
    }
}
