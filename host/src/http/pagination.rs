//! Lists paginate one way everywhere: `limit` (1..100, default 20) and
//! `starting_after` (the last id of the previous page); newest first.
//! The answer is `{object: "list", data, has_more}` (see `wire::list_of`).

use super::error::ApiError;
use crate::wire::PageParams;

/// A validated page request.
#[derive(Debug, Clone)]
pub struct Page {
    pub limit: usize,
    pub starting_after: Option<String>,
}

impl Page {
    pub fn from_query(q: &PageParams) -> Result<Page, ApiError> {
        let limit = match &q.limit {
            None => 20,
            Some(s) => match s.parse::<usize>() {
                Ok(n) if (1..=100).contains(&n) => n,
                _ => {
                    return Err(ApiError::invalid(
                        "limit",
                        "limit must be an integer from 1 to 100",
                    ))
                }
            },
        };
        let starting_after = q.starting_after.clone().filter(|s| !s.is_empty());
        Ok(Page {
            limit,
            starting_after,
        })
    }

    /// The page of an in-memory list already ordered, found by each
    /// item's id, with one extra item when more follow (the list types'
    /// `cut` makes the answer of it).
    pub fn slice<T>(&self, items: Vec<T>, id: impl Fn(&T) -> &str) -> Result<Vec<T>, ApiError> {
        let start = match &self.starting_after {
            None => 0,
            Some(after) => items
                .iter()
                .position(|v| id(v) == after.as_str())
                .map(|i| i + 1)
                .ok_or_else(|| {
                    ApiError::invalid(
                        "starting_after",
                        "starting_after must be the id of an item in this list",
                    )
                })?,
        };
        Ok(items.into_iter().skip(start).take(self.limit + 1).collect())
    }
}
