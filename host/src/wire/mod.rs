//! The API's wire shapes: one Rust type per JSON body the API answers (or
//! reads), used both to build it and to describe it in the OpenAPI
//! document. Handlers and the domain build these; `serde` writes them;
//! `utoipa` states them. A shape changes here or nowhere.
//!
//! Money is a JSON number of US dollars with at most six decimals
//! ([`Usd`]); timestamps are ISO 8601 date-time strings in UTC.

mod changes;
mod discover;
mod errors;
mod events;
mod extractions;
mod monitors;
mod pages;
mod params;
mod platform;
mod receipts;
mod requests;
mod scopes;
mod sessions;
mod webhooks;

pub use changes::*;
pub use discover::*;
pub use errors::*;
pub use events::*;
pub use extractions::*;
pub use monitors::*;
pub use pages::*;
pub use params::*;
pub use platform::*;
pub use receipts::*;
pub use requests::*;
pub use scopes::*;
pub use sessions::*;
pub use webhooks::*;

pub mod money;

use money::Micros;

/// An amount on the wire: a JSON number of US dollars, at most six
/// decimals, written from its exact decimal text (see `money`). Its fields
/// say `#[schema(value_type = f64)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usd(pub Micros);

impl serde::Serialize for Usd {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        money::usd(&self.0, s)
    }
}

impl From<Micros> for Usd {
    fn from(m: Micros) -> Usd {
        Usd(m)
    }
}

/// Declares a page of `$item`s: `{object: "list", data, has_more}`, the
/// one shape every list answers (see `http::pagination`). `as` names the
/// item's schema when the items are kept as stored JSON.
macro_rules! list_of {
    ($(#[$doc:meta])* $name:ident, $item:ty $(as $schema:ty)?) => {
        $(#[$doc])*
        #[derive(Debug, serde::Serialize, utoipa::ToSchema)]
        pub struct $name {
            /// `list`
            #[schema(value_type = String)]
            pub object: &'static str,
            $(#[schema(value_type = Vec<$schema>)])?
            pub data: Vec<$item>,
            pub has_more: bool,
        }

        impl $name {
            /// A page of at most `limit` cut from items fetched with one
            /// extra (which only says whether more follow).
            pub fn cut(limit: usize, mut data: Vec<$item>) -> $name {
                let has_more = data.len() > limit;
                data.truncate(limit);
                $name { object: "list", data, has_more }
            }
        }
    };
}
pub(crate) use list_of;
