//! Discover (preview: discover): a site's catalog pages.

use serde::Serialize;
use utoipa::ToSchema;

/// A catalog page found by discover.
#[derive(Debug, Serialize, ToSchema)]
pub struct DiscoverCandidate {
    pub url: String,
    /// listing, sitemap or product (open enum).
    pub kind: String,
    /// Why: home, nav-link, sitemap, sitemap:category, sitemap:index, robots.txt, jsonld:ItemList, structured-data, embedded-state, repeated-cards, pagination, products-on-page:N.
    pub signals: Vec<String>,
}

/// Discover's answer: at most 50 candidates, best first.
#[derive(Debug, Serialize, ToSchema)]
pub struct DiscoverList {
    /// `list`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub data: Vec<DiscoverCandidate>,
}

/// POST /discover (preview: discover).
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscoverRequest {
    /// The site's page to start from (usually its home page): absolute http(s), at most 2048 characters.
    #[schema(format = "uri", max_length = 2048)]
    pub url: String,
}
