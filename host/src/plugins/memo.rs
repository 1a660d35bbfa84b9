//! Results of plugin calls, kept by what went in.
//!
//! A plugin is a function of its input: it holds no state between calls
//! (each call gets a fresh instance) and no capability to learn anything
//! but what the call hands it. The same component given the same input
//! returns the same output, so a repeated call is answered from here:
//! the same page extracted for another session, a recorded page replayed
//! again, a query estimated twice.
//!
//! The key is a SHA-256 over the component's own SHA-256 and every byte of
//! the input, each field length-prefixed, so a changed plugin or a changed
//! page never meets an old result. Only results that passed the host's
//! checks are kept; failures (a timeout on a busy machine, a trap) are
//! never remembered. The memo is bounded by the bytes of what it holds
//! (`plugins.memo_bytes`, 0 turns it off) and lives in memory only.

use std::sync::atomic::{AtomicU64, Ordering};

use quick_cache::sync::Cache;
use quick_cache::Weighter;
use serde::{de::DeserializeOwned, Serialize};
use sha2::{Digest, Sha256};

use super::types::Page;

/// What each entry costs besides its bytes: its key, the table's slot and
/// the allocation.
const ENTRY_OVERHEAD: u64 = 96;

/// A kept result. Recorded pages are kept as they are (their text is
/// nearly all they hold); other results as their JSON text, compact and as
/// large as what it holds (a `serde_json::Value` in memory takes several
/// times its text), so the bound is a bound on memory.
#[derive(Clone)]
enum Kept {
    Page(Option<Page>),
    Json(Box<[u8]>),
}

#[derive(Clone)]
struct ByBytes;

impl Weighter<[u8; 32], Kept> for ByBytes {
    fn weight(&self, _key: &[u8; 32], value: &Kept) -> u64 {
        let bytes = match value {
            Kept::Page(None) => 0,
            Kept::Page(Some(p)) => {
                p.url.len() + p.body.len() + p.content_type.as_ref().map_or(0, String::len)
            }
            Kept::Json(json) => json.len(),
        };
        bytes as u64 + ENTRY_OVERHEAD
    }
}

/// The memo: a byte-bounded cache of checked plugin results.
pub(crate) struct Memo {
    cache: Option<Cache<[u8; 32], Kept, ByBytes>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// How often the memo answered, for benchmarks and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoStats {
    pub hits: u64,
    pub misses: u64,
}

impl Memo {
    /// A memo holding up to `bytes` of results; 0 keeps nothing.
    pub(crate) fn new(bytes: u64) -> Memo {
        // The cache sizes its table by an estimate of the entries it will
        // hold; about a KiB per result is typical of pages and extractions.
        let cache = (bytes > 0).then(|| {
            let items = (bytes / 1024).clamp(16, 1 << 20) as usize;
            Cache::with_weighter(items, bytes, ByBytes)
        });
        Memo {
            cache,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Whether results are kept at all (`plugins.memo_mib` above 0).
    pub(crate) fn is_on(&self) -> bool {
        self.cache.is_some()
    }

    /// A kept result (kept with [`Memo::put`]).
    pub(crate) fn get<T: DeserializeOwned>(&self, key: &[u8; 32]) -> Option<T> {
        self.found(match self.cache.as_ref()?.get(key) {
            Some(Kept::Json(json)) => serde_json::from_slice(&json).ok(),
            _ => None,
        })
    }

    /// A kept recorded page (kept with [`Memo::put_page`]).
    pub(crate) fn get_page(&self, key: &[u8; 32]) -> Option<Option<Page>> {
        self.found(match self.cache.as_ref()?.get(key) {
            Some(Kept::Page(page)) => Some(page),
            _ => None,
        })
    }

    fn found<T>(&self, kept: Option<T>) -> Option<T> {
        let counter = if kept.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        kept
    }

    pub(crate) fn put<T: Serialize>(&self, key: [u8; 32], value: &T) {
        if let Some(cache) = &self.cache {
            if let Ok(json) = serde_json::to_vec(value) {
                cache.insert(key, Kept::Json(json.into_boxed_slice()));
            }
        }
    }

    pub(crate) fn put_page(&self, key: [u8; 32], page: &Option<Page>) {
        if let Some(cache) = &self.cache {
            cache.insert(key, Kept::Page(page.clone()));
        }
    }

    pub(crate) fn stats(&self) -> MemoStats {
        MemoStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }
}

/// Builds a memo key: the call's name, the component's SHA-256, then each
/// input field, length-prefixed so that no two inputs share a key.
pub(crate) struct Key(Sha256);

impl Key {
    pub(crate) fn new(call: &str, plugin_sha256: &str) -> Key {
        let mut key = Key(Sha256::new());
        key.add(call.as_bytes()).add(plugin_sha256.as_bytes());
        key
    }

    pub(crate) fn add(&mut self, field: &[u8]) -> &mut Key {
        self.0.update((field.len() as u64).to_le_bytes());
        self.0.update(field);
        self
    }

    /// An optional field: absent and empty differ.
    pub(crate) fn add_opt(&mut self, field: Option<&str>) -> &mut Key {
        match field {
            None => self.add(&[0]),
            Some(s) => self.add(&[1]).add(s.as_bytes()),
        }
    }

    pub(crate) fn finish(&self) -> [u8; 32] {
        self.0.clone().finalize().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> Option<Page> {
        Some(Page {
            url: "https://a.example/".into(),
            status: 200,
            content_type: None,
            body: body.into(),
        })
    }

    #[test]
    fn fields_are_length_prefixed() {
        let a = Key::new("extract", "p").add(b"ab").add(b"c").finish();
        let b = Key::new("extract", "p").add(b"a").add(b"bc").finish();
        assert_ne!(a, b);
        let none = Key::new("extract", "p").add_opt(None).finish();
        let empty = Key::new("extract", "p").add_opt(Some("")).finish();
        assert_ne!(none, empty);
        let other_plugin = Key::new("extract", "q").add(b"ab").add(b"c").finish();
        assert_ne!(a, other_plugin);
    }

    #[test]
    fn answers_what_it_was_given_and_counts() {
        let memo = Memo::new(1 << 20);
        let key = Key::new("replay", "p").add(b"https://a.example/").finish();
        assert!(memo.get_page(&key).is_none());
        memo.put_page(key, &page("hello"));
        assert_eq!(memo.get_page(&key), Some(page("hello")));
        assert_eq!(memo.stats(), MemoStats { hits: 1, misses: 1 });
    }

    #[test]
    fn off_at_zero_bytes() {
        let memo = Memo::new(0);
        let key = Key::new("replay", "p").finish();
        memo.put_page(key, &page("hello"));
        assert!(memo.get_page(&key).is_none());
    }

    #[test]
    fn bounded_by_bytes() {
        let memo = Memo::new(64 << 10);
        let body = "x".repeat(1000);
        for i in 0..1000u32 {
            let key = Key::new("replay", "p").add(&i.to_le_bytes()).finish();
            memo.put_page(key, &page(&body));
        }
        let kept = (0..1000u32)
            .filter(|i| {
                let key = Key::new("replay", "p").add(&i.to_le_bytes()).finish();
                memo.get_page(&key).is_some()
            })
            .count();
        assert!(
            kept > 0 && kept <= 64,
            "{kept} pages of 1 KB kept in 64 KiB"
        );
    }
}
