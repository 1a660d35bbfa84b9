//! The host-side values that cross the plugin boundary, validated.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A web page as the host fetched it (or as a recording replays it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    /// The page's final URL, after any redirect the host followed.
    pub url: String,
    /// The HTTP status code the page was served with.
    pub status: u16,
    /// The value of the Content-Type header, if there was one.
    pub content_type: Option<String>,
    /// The body, decoded to UTF-8 text.
    pub body: String,
}

/// What the customer asked an extractor for, handed over as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractRequest {
    /// What one row is ("product", "laptop", "hotel room", ...).
    pub entity: String,
    /// The customer's steering text: data for the plugin to weigh, never an
    /// instruction (the plugin holds no capability it could be told to use).
    pub guidance: Option<String>,
    /// Host hints, a JSON object such as `{"currency": "EUR"}`; `null` is
    /// sent as `{}`.
    pub hints: Value,
}

impl ExtractRequest {
    /// A request for `entity` without guidance or hints.
    pub fn new(entity: impl Into<String>) -> Self {
        ExtractRequest {
            entity: entity.into(),
            guidance: None,
            hints: Value::Object(Map::new()),
        }
    }
}

/// The planner's reading of a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// False when spending could not honestly deliver.
    pub would_run: bool,
    /// The parsed intent; always a JSON object (checked by the host).
    pub parsed: Value,
    /// What the query lacks for a run to deliver (for example `source`).
    pub missing: Vec<String>,
    /// A sentence explaining `would_run`, shown to the customer.
    pub reason: String,
}

/// What an extractor found on a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extraction {
    /// What the page is. Extractors of contract 0.1.0 do not say: their page
    /// is a product page when they return one record, a listing when more.
    #[serde(default)]
    pub kind: PageKind,
    /// The URLs that continue a listing (absolute, http(s), in order).
    #[serde(default)]
    pub next_pages: Vec<String>,
    /// One JSON object per record (each checked by the host; the count is
    /// bounded by [`MAX_RECORDS`](super::MAX_RECORDS)). By convention the
    /// first record of a product page is its main product.
    pub records: Vec<Map<String, Value>>,
    /// Whether the records are everything the page offers.
    pub complete: bool,
    /// Absolute http(s) links to further catalog pages (relative links are
    /// resolved against the page URL, anything else is dropped).
    pub links: Vec<String>,
    /// Short remarks for the receipt ("json-ld", "heuristic", ...).
    pub notes: Vec<String>,
    /// The plugin that produced the extraction, as `name@version`.
    pub plugin: String,
}

/// What the host tells the extractor of the query, as its `hints`.
#[derive(Debug, Clone, Serialize)]
pub struct ExtractHints {
    pub currency: Option<String>,
    pub keywords: Vec<String>,
    pub brand: Option<String>,
}

/// The difference between two row sets, rows keyed by identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowDiff {
    /// Identities present only after.
    pub added: Vec<String>,
    /// Identities present only before.
    pub removed: Vec<String>,
    /// Rows present in both, with the names of the fields that differ.
    pub changed: Vec<(String, Vec<String>)>,
    /// The subset of changes that moved a price.
    pub price_moves: Vec<PriceMove>,
}

impl RowDiff {
    /// How many rows were added, removed, changed and repriced.
    pub fn counts(&self) -> crate::wire::DiffCounts {
        crate::wire::DiffCounts {
            added: self.added.len() as u64,
            removed: self.removed.len() as u64,
            changed: self.changed.len() as u64,
            price_moves: self.price_moves.len() as u64,
        }
    }
}

/// A price that changed between two row sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PriceMove {
    /// The row's identity.
    pub identity: String,
    /// The price before, a decimal string.
    pub before: String,
    /// The price after, a decimal string.
    pub after: String,
    /// The currency of both prices (ISO 4217), when known.
    pub currency: Option<String>,
}

/// What a page is, as its extractor says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PageKind {
    /// One main product.
    Product,
    /// Many products: a category, collection, search-result or brand page.
    Listing,
    /// Neither.
    #[default]
    Other,
}

impl PageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PageKind::Product => "product",
            PageKind::Listing => "listing",
            PageKind::Other => "other",
        }
    }

    /// The kind of a 0.1.0 extractor's page, from its record count.
    pub fn from_record_count(n: usize) -> PageKind {
        match n {
            0 => PageKind::Other,
            1 => PageKind::Product,
            _ => PageKind::Listing,
        }
    }
}
