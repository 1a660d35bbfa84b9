//! Money: integer micro-dollars inside, USD numbers outside. The type is
//! part of the contract, so its home is `wire::money`; the domain names it
//! here.

pub use crate::wire::money::*;
