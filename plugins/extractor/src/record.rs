//! The one shape of a record, from every source (markup, embedded state,
//! visible cards, the product page) to the wire.
//!
//! Every field is text: the wire carries decimal prices as strings
//! ("1299.00") and codes as the shop prints them. A field is filled once:
//! [`Record::put`] never overwrites, so the order of the stages is the order
//! of trust.

use serde_json::{Map, Value};

/// A field of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Name,
    Url,
    Price,
    Currency,
    Availability,
    Sku,
    Mpn,
    Gtin,
    Brand,
    Condition,
    Image,
    /// The former price a card shows beside the current one.
    ListPrice,
    /// A path fragment from embedded state, made into `url` by the listing
    /// stage; never on the wire.
    Slug,
}

use Field::*;

impl Field {
    pub const ALL: [Field; 13] = [
        Name,
        Url,
        Price,
        Currency,
        Availability,
        Sku,
        Mpn,
        Gtin,
        Brand,
        Condition,
        Image,
        ListPrice,
        Slug,
    ];
    /// The product fields another record of the same product may fill.
    pub const PRODUCT: [Field; 11] = [
        Name,
        Url,
        Price,
        Currency,
        Availability,
        Sku,
        Mpn,
        Gtin,
        Brand,
        Condition,
        Image,
    ];

    /// The field's name on the wire.
    pub fn key(self) -> &'static str {
        match self {
            Name => "name",
            Url => "url",
            Price => "price",
            Currency => "currency",
            Availability => "availability",
            Sku => "sku",
            Mpn => "mpn",
            Gtin => "gtin",
            Brand => "brand",
            Condition => "condition",
            Image => "image",
            ListPrice => "list_price",
            Slug => "slug",
        }
    }

    pub fn of_key(key: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.key() == key)
    }
}

/// One product as the extractor found it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    values: [Option<String>; 13],
}

impl Record {
    pub fn new() -> Record {
        Record::default()
    }

    pub fn get(&self, f: Field) -> Option<&str> {
        self.values[f as usize].as_deref()
    }

    /// A field by its wire name (tests, tools).
    pub fn value(&self, key: &str) -> Option<&str> {
        Field::of_key(key).and_then(|f| self.get(f))
    }

    pub fn has(&self, f: Field) -> bool {
        self.values[f as usize].is_some()
    }

    /// Fills `f` with the trimmed value unless it is empty or `f` is
    /// already set; true when it filled.
    pub fn put(&mut self, f: Field, v: Option<String>) -> bool {
        let slot = &mut self.values[f as usize];
        match v {
            Some(v) if slot.is_none() && !v.trim().is_empty() => {
                *slot = Some(v.trim().to_string());
                true
            }
            _ => false,
        }
    }

    /// Replaces `f` (a later stage that knows better).
    pub fn set(&mut self, f: Field, v: impl Into<String>) {
        self.values[f as usize] = Some(v.into());
    }

    pub fn take(&mut self, f: Field) -> Option<String> {
        self.values[f as usize].take()
    }

    /// Fills every empty field from `other`.
    pub fn fill_from(&mut self, other: &Record) {
        for f in Field::ALL {
            if !self.has(f) {
                self.values[f as usize] = other.values[f as usize].clone();
            }
        }
    }

    /// How many product fields are set.
    pub fn len(&self) -> usize {
        Field::PRODUCT.iter().filter(|f| self.has(**f)).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The record on the wire: one JSON object of its set fields.
    pub fn to_json(&self) -> Map<String, Value> {
        Field::ALL
            .into_iter()
            .filter(|f| *f != Slug)
            .filter_map(|f| Some((f.key().to_string(), Value::String(self.get(f)?.to_string()))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_fills_once_and_trims() {
        let mut r = Record::new();
        assert!(!r.put(Price, Some("  ".into())));
        assert!(r.put(Price, Some(" 12.00 ".into())));
        assert!(!r.put(Price, Some("13.00".into())));
        assert_eq!(r.get(Price), Some("12.00"));
        r.set(Price, "11.00");
        assert_eq!(r.value("price"), Some("11.00"));
    }

    #[test]
    fn the_wire_shape_leaves_out_the_slug() {
        let mut r = Record::new();
        r.put(Name, Some("Tent".into()));
        r.put(Slug, Some("/p/tent".into()));
        let j = r.to_json();
        assert_eq!(j.len(), 1);
        assert_eq!(j["name"], "Tent");
        assert_eq!(r.len(), 1);
    }
}
