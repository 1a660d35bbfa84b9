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

/// Whether a text is about delivery ("Free Shipping on all orders over
/// 85€", "999円以上は送料無料", free shipping from 999 yen): its amount is a
/// threshold or a fee, not a product's price. A text of three words or
/// fewer ("€4.99 delivery" aside) may be a price beside its shipping
/// ("$25.00 + shipping"), unless it is written without spaces (Chinese,
/// Japanese).
pub(crate) fn about_delivery(text: &str) -> bool {
    use crate::text::Find as _;
    let unspaced = text
        .chars()
        .any(|c| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}'));
    if !unspaced && text.split_whitespace().count() < 4 {
        return false;
    }
    let lower = text.to_lowercase();
    crate::vocabulary::DELIVERY_TEXT
        .iter()
        .any(|w| lower.has(w))
}
