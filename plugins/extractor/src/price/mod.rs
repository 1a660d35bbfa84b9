//! Prices: which amount a page or a card shows is the one a shopper pays
//! now. Both readers share the vocabulary of prices (`vocabulary`) and the
//! number and currency rules (`text`).
//!
//! - `page`: a product page's price, scored among every price shown;
//! - `card`: a listing card's price, sorted from its other amounts.

pub mod card;
mod found;
pub mod page;

pub use found::PriceFound;
