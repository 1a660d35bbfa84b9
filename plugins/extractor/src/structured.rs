//! Stage 1: the products the page's structured markup declares (JSON-LD,
//! repaired when broken; microdata; RDFa), brought to one record shape.

use crate::record::{Field, Record};
use crate::{dom::Doc, markup, norm_name, schema};
use serde_json::{Map, Value};

/// Where a markup record came from.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Source {
    JsonLd,
    Microdata,
    Rdfa,
}

impl Source {
    pub fn note(self) -> &'static str {
        match self {
            Source::JsonLd => "json-ld",
            Source::Microdata => "microdata",
            Source::Rdfa => "rdfa",
        }
    }
}

/// A product the markup declares.
pub struct Candidate {
    pub record: Record,
    pub source: Source,
    /// Declared as an element of a list (an ItemList, an OfferCatalog).
    pub in_list: bool,
    /// Its offer spans prices, the highest twice the lowest or more (see
    /// `schema::spans_prices`).
    pub spans_prices: bool,
}

/// What the markup of a page says.
pub struct Markup {
    pub candidates: Vec<Candidate>,
    /// The product URLs ItemLists name, in order.
    pub listed_urls: Vec<String>,
    /// Microdata properties outside any item (a lone itemprop="price").
    pub orphans: Map<String, Value>,
    /// The markup or the meta tags declare the page an article (see
    /// `schema::declares_article`).
    pub article: bool,
    /// `og:type` is "article": a weaker sign, which some shops give their
    /// product pages too.
    pub og_article: bool,
}

/// A URL without query, fragment or trailing slash.
pub fn bare_url(u: &url::Url) -> String {
    let mut u = u.clone();
    u.set_fragment(None);
    u.set_query(None);
    u.to_string().trim_end_matches('/').to_string()
}

pub fn resolve(base: &Option<url::Url>, href: &str) -> Option<String> {
    let b = base.as_ref()?;
    b.join(href.trim()).ok().map(|u| u.to_string())
}

impl Markup {
    pub fn read(doc: &Doc, html: &crate::tree::Html, base: &Option<url::Url>) -> Markup {
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut listed_urls: Vec<String> = Vec::new();
        let mut article =
            doc.meta("article:published_time").is_some() || doc.meta("article:author").is_some();
        for block in &doc.jsonld {
            let values = schema::parse_jsonld(block);
            article = article || schema::declares_article(&values);
            schema::list_urls(&values, &mut listed_urls);
            let mut found = Vec::new();
            schema::collect_products(&values, &mut found);
            candidates.extend(found.into_iter().map(|f| Candidate {
                record: schema::record_from_node(&f.node),
                source: Source::JsonLd,
                in_list: f.in_list,
                spans_prices: schema::spans_prices(&f.node),
            }));
        }
        let (micro, rdfa, orphans) = markup::items(html);
        for (values, source) in [(micro, Source::Microdata), (rdfa, Source::Rdfa)] {
            article = article || schema::declares_article(&values);
            let mut found = Vec::new();
            schema::collect_products(&values, &mut found);
            candidates.extend(found.into_iter().map(|f| Candidate {
                record: schema::record_from_node(&f.node),
                source,
                in_list: f.in_list,
                spans_prices: schema::spans_prices(&f.node),
            }));
        }
        candidates.retain(|c| schema::richness(&c.record) > 0);
        // Offers that name no product (no name, and no url or only a site's
        // front page) and stand apart from any: one is the page's own
        // product's offer, but several are the offers of a listing's cards,
        // which the visible cards read.
        let nameless = |r: &Record| {
            let front_page = |u: &str| {
                resolve(base, u)
                    .and_then(|u| url::Url::parse(&u).ok())
                    .is_none_or(|u| u.path().trim_matches('/').is_empty())
            };
            !r.has(Field::Name) && r.get(Field::Url).is_none_or(front_page)
        };
        let apart = candidates
            .iter()
            .filter(|c| !c.in_list && nameless(&c.record))
            .count();
        if apart >= 3 {
            candidates.retain(|c| c.in_list || !nameless(&c.record));
        }
        Markup {
            candidates,
            listed_urls,
            orphans,
            article,
            og_article: doc
                .meta("og:type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("article")),
        }
    }

    /// The candidates declared on their own (not as list elements).
    pub fn singles(&self) -> Vec<usize> {
        (0..self.candidates.len())
            .filter(|&i| !self.candidates[i].in_list)
            .collect()
    }

    pub fn listed(&self) -> Vec<usize> {
        (0..self.candidates.len())
            .filter(|&i| self.candidates[i].in_list)
            .collect()
    }

    /// How many different products the single candidates describe.
    pub fn distinct_singles(&self) -> usize {
        let mut keys: Vec<String> = Vec::new();
        for i in self.singles() {
            let r = &self.candidates[i].record;
            let key = r
                .get(Field::Url)
                .map(String::from)
                .or_else(|| r.get(Field::Name).map(norm_name))
                .unwrap_or_default();
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys.len()
    }
}

/// What ties a markup record to the page it is on: its URL is the page's,
/// or its name is the page's heading.
pub struct PageIdentity {
    base: Option<url::Url>,
    page_url: Option<String>,
    h1: Option<String>,
}

impl PageIdentity {
    pub fn of(doc: &Doc, base: &Option<url::Url>) -> PageIdentity {
        PageIdentity {
            base: base.clone(),
            page_url: base.as_ref().map(bare_url),
            h1: doc.h1_text(),
        }
    }

    pub fn url_matches(&self, r: &Record) -> bool {
        let Some(page) = &self.page_url else {
            return false;
        };
        r.get(Field::Url)
            .and_then(|h| resolve(&self.base, h))
            .and_then(|u| url::Url::parse(&u).ok())
            .is_some_and(|u| &bare_url(&u) == page)
    }

    /// Whether a URL is this page's with a fragment of its own ("#item-12"),
    /// not an app route ("#!/...").
    pub fn points_into_page(&self, href: &str) -> bool {
        let Some(page) = &self.page_url else {
            return false;
        };
        resolve(&self.base, href)
            .and_then(|u| url::Url::parse(&u).ok())
            .is_some_and(|u| {
                &bare_url(&u) == page
                    && u.fragment()
                        .is_some_and(|f| !f.is_empty() && !f.starts_with('!'))
            })
    }

    /// Whether the page has a heading and it names none of `records` (a
    /// search's query or a category above markup of one of its cards).
    pub fn heading_names_none(&self, records: &[&Record]) -> bool {
        self.h1.as_deref().is_some_and(|h| !norm_name(h).is_empty())
            && !records.iter().any(|r| self.heading_names(r))
    }

    /// Whether the heading names this product: as `heading_matches`, but a
    /// heading of one word inside a longer name is a search's or a
    /// category's ("laptop" in "Apple MacBook Air laptop, M1 Chip").
    pub fn heading_names(&self, r: &Record) -> bool {
        self.heading_and_name(r).is_some_and(|(h, n)| {
            h == n || h.contains(&n) || (n.contains(&h) && h.split_whitespace().nth(1).is_some())
        })
    }

    pub fn heading_matches(&self, r: &Record) -> bool {
        self.heading_and_name(r)
            .is_some_and(|(h, n)| h == n || h.contains(&n) || n.contains(&h))
    }

    /// The page's heading and the record's name, normalized, when both say
    /// something.
    fn heading_and_name(&self, r: &Record) -> Option<(String, String)> {
        let (h, n) = (
            norm_name(self.h1.as_deref()?),
            norm_name(r.get(Field::Name)?),
        );
        (!h.is_empty() && !n.is_empty()).then_some((h, n))
    }
}
