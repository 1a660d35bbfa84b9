//! HTTP conventions shared by every route: request ids, the version header,
//! the error envelope, the body rule, pagination.

pub mod accept;
pub mod body;
pub mod error;
pub mod middleware;
pub mod pagination;
pub mod query;
mod refused;

pub use body::Body;
pub use error::ApiError;
pub use pagination::Page;
pub use query::Query;
