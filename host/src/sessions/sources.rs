//! Finding sources: the seeds a query names, robots.txt, sitemaps and the
//! crawl frontier.

use std::collections::{HashSet, VecDeque};

use url::Url;

use crate::accounts::Mode;
pub use crate::fetch::robots::Robots;
use crate::fetch::{FetchError, Fetched, Fetcher};
use crate::plugins::Plugins;

/// Where pages come from: the network for live keys (behind the target
/// wall), the recordings (the replay plugin) for test keys.
#[derive(Clone, Copy)]
pub struct PageSource<'a> {
    pub fetcher: &'a Fetcher,
    pub plugins: &'a Plugins,
    pub mode: Mode,
}

impl PageSource<'_> {
    /// A page (`None`: not recorded).
    pub async fn read(&self, url: &str) -> Result<Option<Fetched>, FetchError> {
        match self.mode {
            Mode::Live => self.fetcher.fetch(url).await.map(Some),
            Mode::Test => match self.plugins.replay(url).await {
                Ok(page) => Ok(page.map(crate::fetch::from_replay)),
                Err(e) => Err(FetchError::Failed(format!("replay failed: {e}"))),
            },
        }
    }

    /// robots.txt of a site (missing or unreadable: everything allowed):
    /// live, the fetcher's, shared by every run of the node; in test mode,
    /// the recording's.
    pub async fn robots(&self, site: &Url) -> Robots {
        if self.mode == Mode::Live {
            return self.fetcher.robots(site).await;
        }
        let Ok(robots_url) = site.join("/robots.txt") else {
            return Robots::default();
        };
        match self.read(robots_url.as_str()).await {
            Ok(Some(page)) if page.status == 200 => Robots::parse(&page.body),
            _ => Robots::default(),
        }
    }
}

/// Does a URL's path name the entity (its words, a plural `s`/`es`)? How
/// sitemap entries, which come without anchor text, are judged related.
pub fn path_names(entity: &str, url: &str) -> bool {
    let entity = entity.trim().to_lowercase();
    if entity.is_empty() || matches!(entity.as_str(), "product" | "products") {
        return true;
    }
    let stem = entity
        .strip_suffix("es")
        .filter(|s| s.ends_with(['s', 'x', 'h']))
        .or_else(|| entity.strip_suffix('s'))
        .unwrap_or(&entity)
        .to_string();
    let path = Url::parse(url)
        .map(|u| u.path().to_lowercase())
        .unwrap_or_default();
    let stem_words: Vec<&str> = stem.split_whitespace().collect();
    let words: Vec<&str> = path
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let same = |w: &str, s: &str| w == s || w == format!("{s}s") || w == format!("{s}es");
    words
        .windows(stem_words.len().max(1))
        .any(|win| win.iter().zip(&stem_words).all(|(w, s)| same(w, s)))
}

/// The `<loc>` URLs of a sitemap or sitemap index.
pub fn sitemap_urls(xml: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<loc>") {
        rest = &rest[start + 5..];
        let Some(end) = rest.find("</loc>") else {
            break;
        };
        let loc = rest[..end].trim().replace("&amp;", "&");
        let loc = loc
            .trim_start_matches("<![CDATA[")
            .trim_end_matches("]]>")
            .trim()
            .to_string();
        if !loc.is_empty() {
            out.push(loc);
        }
        rest = &rest[end..];
    }
    out
}

/// Pages to visit, each once, within the seeds' sites. Three queues, taken
/// in order: the pages that continue a listing (so a catalog is walked page
/// by page) and product pages needed to check a row; the pages found by
/// following links, breadth first; and the pages a sitemap lists, read only
/// when the links run out (a sitemap often lists every product page, which
/// the listings already show).
#[derive(Debug, Default)]
pub struct Frontier {
    front: VecDeque<(String, u32)>,
    queue: VecDeque<(String, u32)>,
    fallback: VecDeque<(String, u32)>,
    /// Pages unrelated to the query: read only when the run has found
    /// nothing it wants and nothing better is left.
    unrelated: VecDeque<(String, u32)>,
    /// Why each queued page was queued.
    why: std::collections::HashMap<String, Priority>,
    seen: HashSet<String>,
    visited: HashSet<String>,
    sites: HashSet<String>,
}

/// The key a page is visited under: no fragment.
pub fn normalize(url: &Url) -> String {
    let mut u = url.clone();
    u.set_fragment(None);
    u.to_string()
}

/// Which queue a page joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// A listing's next page, or a product page a row needs.
    Next,
    /// A link followed from a page.
    Link,
    /// A sitemap entry.
    Sitemap,
    /// A link or sitemap entry that does not name what the query wants.
    Unrelated,
}

impl Priority {
    /// How the run came to a page, as its events say (`via`).
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Next => "next_page",
            Priority::Link => "related_link",
            Priority::Sitemap => "sitemap",
            Priority::Unrelated => "unrelated_link",
        }
    }
}

impl Frontier {
    /// Allow pages of this URL's site (host and port).
    pub fn add_site(&mut self, url: &Url) {
        if let Some(h) = url.host_str() {
            self.sites
                .insert(format!("{h}:{}", url.port_or_known_default().unwrap_or(0)));
        }
    }

    pub fn in_sites(&self, url: &Url) -> bool {
        url.host_str().is_some_and(|h| {
            self.sites
                .contains(&format!("{h}:{}", url.port_or_known_default().unwrap_or(0)))
        })
    }

    /// Queue a page at `depth` unless seen or off-site. Returns whether queued.
    pub fn push(&mut self, url: &str, depth: u32) -> bool {
        self.push_as(url, depth, Priority::Link)
    }

    /// Queue a page in the queue of `priority`. A page already queued moves
    /// to the front when asked for as `Next`, and out of the unrelated queue
    /// when a related link or sitemap entry names it; a visited page never
    /// comes back.
    pub fn push_as(&mut self, url: &str, depth: u32, priority: Priority) -> bool {
        let Ok(parsed) = Url::parse(url) else {
            return false;
        };
        if !matches!(parsed.scheme(), "http" | "https") || !self.in_sites(&parsed) {
            return false;
        }
        let key = normalize(&parsed);
        if self.visited.contains(&key) {
            return false;
        }
        if !self.seen.insert(key.clone()) {
            let moves_up = priority == Priority::Next
                || (priority != Priority::Unrelated
                    && self.why.get(&key) == Some(&Priority::Unrelated));
            if !moves_up {
                return false;
            }
        }
        self.why.insert(key.clone(), priority);
        match priority {
            Priority::Next => self.front.push_back((key, depth)),
            Priority::Link => self.queue.push_back((key, depth)),
            Priority::Sitemap => self.fallback.push_back((key, depth)),
            Priority::Unrelated => self.unrelated.push_back((key, depth)),
        }
        true
    }

    /// Why a page was queued (a seed: `None`).
    pub fn why(&self, url: &str) -> Option<Priority> {
        self.why.get(url).copied()
    }

    /// The next page to visit, with unrelated pages only when
    /// `take_unrelated` and nothing else is left.
    pub fn pop_next(&mut self, take_unrelated: bool) -> Option<(String, u32)> {
        if let Some(next) = self.pop() {
            return Some(next);
        }
        while take_unrelated {
            let next = self.unrelated.pop_front()?;
            if self.visited.insert(next.0.clone()) {
                return Some(next);
            }
        }
        None
    }

    /// Unrelated pages queued and never read.
    pub fn unrelated_left(&self) -> Vec<String> {
        self.unrelated
            .iter()
            .filter(|(u, _)| {
                !self.visited.contains(u) && self.why.get(u) == Some(&Priority::Unrelated)
            })
            .map(|(u, _)| u.clone())
            .collect()
    }

    /// Mark a URL as visited without queueing it (robots.txt, sitemaps).
    pub fn mark_seen(&mut self, url: &str) {
        if let Ok(u) = Url::parse(url) {
            let key = normalize(&u);
            self.seen.insert(key.clone());
            self.visited.insert(key);
        }
    }

    /// The next page to visit, which counts as visited from now on.
    pub fn pop(&mut self) -> Option<(String, u32)> {
        loop {
            let next = self
                .front
                .pop_front()
                .or_else(|| self.queue.pop_front())
                .or_else(|| self.fallback.pop_front())?;
            if self.visited.insert(next.0.clone()) {
                return Some(next);
            }
        }
    }

    /// Nothing left but (perhaps) unrelated pages.
    pub fn is_empty(&self) -> bool {
        self.front.is_empty() && self.queue.is_empty() && self.fallback.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemap_locations() {
        let xml = "<urlset><url><loc> https://s.example/a?x=1&amp;y=2 </loc></url><url><loc><![CDATA[https://s.example/b]]></loc></url></urlset>";
        assert_eq!(
            sitemap_urls(xml),
            vec!["https://s.example/a?x=1&y=2", "https://s.example/b"]
        );
    }

    #[test]
    fn frontier_visits_each_page_once_within_its_sites() {
        let mut f = Frontier::default();
        f.add_site(&Url::parse("https://s.example/").unwrap());
        assert!(f.push("https://s.example/a#top", 0));
        assert!(!f.push("https://s.example/a", 1));
        assert!(!f.push("https://elsewhere.example/a", 0));
        assert!(!f.push("mailto:x@s.example", 0));
        assert_eq!(f.pop(), Some(("https://s.example/a".into(), 0)));
        assert!(f.is_empty());
    }

    #[test]
    fn a_page_waiting_as_unrelated_moves_up_when_a_related_link_names_it() {
        let mut f = Frontier::default();
        f.add_site(&Url::parse("https://s.example/").unwrap());
        assert!(f.push_as("https://s.example/shelters/", 1, Priority::Unrelated));
        assert!(f.push_as("https://s.example/cooking/", 1, Priority::Unrelated));
        assert!(!f.push_as("https://s.example/cooking/", 1, Priority::Unrelated));
        assert!(f.push_as("https://s.example/shelters/", 1, Priority::Link));
        assert_eq!(f.why("https://s.example/shelters/"), Some(Priority::Link));
        assert_eq!(
            f.unrelated_left(),
            vec!["https://s.example/cooking/".to_string()]
        );
        assert_eq!(
            f.pop_next(false),
            Some(("https://s.example/shelters/".into(), 1))
        );
        assert_eq!(f.pop_next(false), None);
    }
}
