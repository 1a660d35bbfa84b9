//! Discover (preview switch `discover`): a site's catalogs, found for $0
//! (SPEC §2.7, §4.2).
//!
//! `POST /discover {url}` reads the site's robots.txt, the sitemaps it names
//! (or `/sitemap.xml`), the page at `url` and the catalog pages it links to,
//! one fetch at a time, through the same source as runs (the target wall and
//! robots.txt for live keys, the recordings for test keys). Each page read is
//! classified by the extractor plugin (what the page is, how many products
//! it shows, whether it continues on more pages); the answer lists the
//! listings first, most products first, then the sitemaps, then product
//! pages, each tie broken by URL, so the same site gives the same list.
//! Nothing is written: no ledger entry, no event, no receipt.

use std::collections::{BTreeMap, HashSet};

use axum::extract::State;
use axum::Json;
use url::Url;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::accounts::Mode;
use crate::auth::Caller;
use crate::http::{ApiError, Body};
use crate::plugins::{ExtractRequest, Page, PageKind};
use crate::sessions::sources::{normalize, sitemap_urls, PageSource, Robots};
use crate::state::AppState;
use crate::wire;
use crate::wire::KeyScope;

/// The most candidates one answer lists.
pub const MAX_CANDIDATES: usize = 50;
/// The most pages read and classified per call (robots.txt and sitemaps aside).
pub const MAX_PAGES: usize = 25;
/// The most sitemap documents read per call (an index and its children).
pub const MAX_SITEMAPS: usize = 5;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(discover))
}

/// One candidate of the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Candidate {
    url: String,
    kind: &'static str,
    products: usize,
    signals: Vec<String>,
}

impl Candidate {
    /// Listings first (most products first), then sitemaps, then products.
    fn rank(&self) -> (u8, std::cmp::Reverse<usize>, String) {
        let kind = match self.kind {
            "listing" => 0,
            "sitemap" => 1,
            _ => 2,
        };
        (kind, std::cmp::Reverse(self.products), self.url.clone())
    }
}

/// Finds a site's catalog pages: listings, sitemaps and product pages.
#[utoipa::path(post, path = "/discover", operation_id = "discover", tag = "discover",
    description = "Scope: sessions:write. Preview (switch `discover`). Costs $0 and writes nothing. Reads robots.txt, the sitemaps it names (or /sitemap.xml), the page at `url` and the catalog pages it links to (at most 25 pages, one at a time, robots.txt obeyed; test keys read the recordings), classifies each with the extractor, and answers at most 50 candidates, best first: listings (most products first), then sitemaps, then product pages, ties by URL. `signals` say why: `home`, `nav-link`, `sitemap`, `sitemap:category`, `sitemap:index`, `robots.txt`, `jsonld:ItemList`, `structured-data`, `embedded-state`, `repeated-cards`, `pagination`, `products-on-page:N`.",
    request_body(content = wire::DiscoverRequest, example = json!({ "url": "https://outdoor-gear.example/" })),
    responses((status = 200, description = "The candidates, best first", body = wire::DiscoverList)))]
async fn discover(
    State(state): State<AppState>,
    caller: Caller,
    body: Body,
) -> Result<Json<wire::DiscoverList>, ApiError> {
    caller.require(KeyScope::SessionsWrite)?;
    let wire::DiscoverRequest { url } = wire::DiscoverRequest::parse(&body)?;
    let start = Url::parse(&url).map_err(|e| ApiError::invalid("url", e.to_string()))?;
    if caller.mode() == Mode::Live {
        state
            .config
            .target_policy()
            .check(&start, crate::targets::Purpose::Page)
            .await
            .map_err(|e| ApiError::invalid("url", e.to_string()))?;
    }
    let pages = PageSource {
        fetcher: &state.fetcher,
        plugins: &state.plugins,
        mode: caller.mode(),
    };
    let found = explore(pages, &start).await;
    let data = found
        .into_iter()
        .map(|c| wire::DiscoverCandidate {
            url: c.url,
            kind: c.kind.to_string(),
            signals: c.signals,
        })
        .collect();
    Ok(Json(wire::DiscoverList {
        object: "list",
        data,
    }))
}

/// Reads the site and returns its candidates, best first.
async fn explore(pages: PageSource<'_>, start: &Url) -> Vec<Candidate> {
    let host = start.host_str().unwrap_or_default().to_string();
    let same_site = |u: &str| Url::parse(u).is_ok_and(|u| u.host_str() == Some(host.as_str()));
    let robots = pages.robots(start).await;
    let mut candidates: BTreeMap<String, Candidate> = BTreeMap::new();

    // Sitemaps: those robots.txt names, else the conventional location.
    let (named, mut sitemap_queue): (bool, Vec<String>) = if robots.sitemaps.is_empty() {
        let fallback = start.join("/sitemap.xml").map(|u| u.to_string());
        (false, fallback.into_iter().collect())
    } else {
        (true, robots.sitemaps.clone())
    };
    let mut from_sitemaps: Vec<(String, bool)> = Vec::new();
    let mut sitemaps_read = 0;
    while let Some(sitemap) = (!sitemap_queue.is_empty()).then(|| sitemap_queue.remove(0)) {
        if sitemaps_read >= MAX_SITEMAPS || !same_site(&sitemap) || !allowed(&robots, &sitemap) {
            continue;
        }
        sitemaps_read += 1;
        let Ok(Some(page)) = pages.read(&sitemap).await else {
            continue;
        };
        if page.status != 200 || !page.body.contains("<loc>") {
            continue;
        }
        let index = page.body.contains("<sitemapindex");
        let mut signals = vec![if named { "robots.txt" } else { "sitemap" }.to_string()];
        if index {
            signals.push("sitemap:index".into());
        }
        candidates.insert(
            sitemap.clone(),
            Candidate {
                url: sitemap.clone(),
                kind: "sitemap",
                products: 0,
                signals,
            },
        );
        let categories = names_categories(&sitemap);
        for loc in sitemap_urls(&page.body) {
            if index {
                sitemap_queue.push(loc);
            } else {
                from_sitemaps.push((loc, categories));
            }
        }
    }

    // Pages to classify: the page asked about, the catalog pages it links
    // to (its navigation), then the sitemaps' pages, category sitemaps first.
    let mut queue: Vec<(String, &'static str)> = vec![(start.to_string(), "home")];
    let mut queued: HashSet<String> = HashSet::new();
    from_sitemaps.sort_by_key(|(_, categories)| !categories);
    let mut read = 0;
    let mut i = 0;
    let mut sitemaps_queued = false;
    while read < MAX_PAGES {
        if i == queue.len() && !sitemaps_queued {
            // The navigation is exhausted: the sitemaps' pages follow.
            sitemaps_queued = true;
            for (loc, categories) in &from_sitemaps {
                queue.push((
                    loc.clone(),
                    if *categories {
                        "sitemap:category"
                    } else {
                        "sitemap"
                    },
                ));
            }
        }
        let Some((url, via)) = queue.get(i).cloned() else {
            break;
        };
        i += 1;
        let Ok(parsed) = Url::parse(&url) else {
            continue;
        };
        if !queued.insert(normalize(&parsed)) || !same_site(&url) || !allowed(&robots, &url) {
            continue;
        }
        let Ok(Some(page)) = pages.read(&url).await else {
            continue;
        };
        read += 1;
        if page.status != 200 {
            continue;
        }
        let plugin_page = Page {
            url: page.url.clone(),
            status: page.status,
            content_type: page.content_type.clone(),
            body: page.body,
        };
        let Ok(x) = pages
            .plugins
            .extract(plugin_page, ExtractRequest::new("product"))
            .await
        else {
            continue;
        };
        if via == "home" {
            for link in x.links.iter().chain(&x.next_pages) {
                queue.push((link.clone(), "nav-link"));
            }
        }
        let kind = match x.kind {
            PageKind::Listing if !x.records.is_empty() => "listing",
            PageKind::Product if !x.records.is_empty() => "product",
            _ => continue,
        };
        let mut signals = vec![via.to_string()];
        signals.extend(x.notes.iter().filter_map(|n| structure_signal(n)));
        if kind == "listing" {
            if !x.next_pages.is_empty() {
                signals.push("pagination".into());
            }
            signals.push(format!("products-on-page:{}", x.records.len()));
        }
        signals.dedup();
        let products = if kind == "listing" {
            x.records.len()
        } else {
            0
        };
        candidates.entry(url.clone()).or_insert(Candidate {
            url,
            kind,
            products,
            signals,
        });
    }
    let mut out: Vec<Candidate> = candidates.into_values().collect();
    out.sort_by_key(Candidate::rank);
    out.truncate(MAX_CANDIDATES);
    out
}

fn allowed(robots: &Robots, url: &str) -> bool {
    Url::parse(url).is_ok_and(|u| {
        let path = match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_string(),
        };
        robots.allows(&path)
    })
}

/// Does a sitemap's own name say it lists categories or collections?
fn names_categories(sitemap: &str) -> bool {
    let s = sitemap.to_ascii_lowercase();
    ["categor", "collection", "department", "listing"]
        .iter()
        .any(|w| s.contains(w))
}

/// The signal an extractor note gives about how the page's list was read.
fn structure_signal(note: &str) -> Option<String> {
    let signal = if note.contains("ItemList") {
        "jsonld:ItemList"
    } else if note.contains("embedded state") {
        "embedded-state"
    } else if note.contains("from markup") {
        "structured-data"
    } else if note.contains("repeated structure") {
        "repeated-cards"
    } else if note == "json-ld" {
        "jsonld:Product"
    } else {
        return None;
    };
    Some(signal.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(url: &str, kind: &'static str, products: usize) -> Candidate {
        Candidate {
            url: url.into(),
            kind,
            products,
            signals: vec![],
        }
    }

    #[test]
    fn listings_with_more_products_come_first_then_sitemaps_then_products() {
        let mut v = vec![
            c("https://s/p/1", "product", 0),
            c("https://s/sitemap.xml", "sitemap", 0),
            c("https://s/b", "listing", 3),
            c("https://s/a", "listing", 3),
            c("https://s/c", "listing", 40),
        ];
        v.sort_by_key(Candidate::rank);
        let urls: Vec<&str> = v.iter().map(|c| c.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://s/c",
                "https://s/a",
                "https://s/b",
                "https://s/sitemap.xml",
                "https://s/p/1"
            ]
        );
    }

    #[test]
    fn notes_name_how_a_list_was_read() {
        assert_eq!(
            structure_signal("listing of 3 products from the ItemList URLs and the visible cards")
                .as_deref(),
            Some("jsonld:ItemList")
        );
        assert_eq!(
            structure_signal("listing of 24 product cards (repeated structure)").as_deref(),
            Some("repeated-cards")
        );
        assert_eq!(structure_signal("heuristic"), None);
        assert!(names_categories("https://s/sitemap-categories.xml"));
        assert!(!names_categories("https://s/sitemap-products.xml"));
    }
}
