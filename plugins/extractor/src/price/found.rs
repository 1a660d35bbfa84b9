use crate::money::Price;

/// A price shown on the page, with the score that made it win.
#[derive(Debug, Clone)]
pub struct PriceFound {
    pub price: Price,
    pub raw: String,
    pub score: i32,
    pub why: String,
    /// Struck through or named like a list price.
    pub list_like: bool,
    /// The element showing the price.
    pub el: usize,
    /// Index of its first text.
    pub pos: usize,
}
