use super::*;
use serde_json::json;

fn rows(v: &[Value]) -> Vec<String> {
    v.iter().map(|r| r.to_string()).collect()
}

fn id(v: Value) -> String {
    identity(v.as_object().unwrap())
}

#[test]
fn identity_prefers_url_then_gtin_sku_mpn_name() {
    let full = json!({"gtin": "4012345001013", "sku": "S", "mpn": "M", "url": "https://a.example/x#top", "name": "X"});
    assert_eq!(id(full), "url:https://a.example/x");
    assert_eq!(
        id(json!({"gtin": "4012345001013", "sku": "S", "mpn": "M", "name": "X"})),
        "gtin:4012345001013"
    );
    assert_eq!(
        id(json!({"sku": " OG-1 ", "mpn": "M", "name": "X"})),
        "sku:OG-1"
    );
    assert_eq!(id(json!({"mpn": "M-9", "name": "X"})), "mpn:M-9");
    assert_eq!(
        id(json!({"name": "  Trailhead   1P\tTent "})),
        "name:trailhead 1p tent"
    );
}

#[test]
fn identity_skips_empty_and_non_scalar_members() {
    assert_eq!(
        id(json!({"gtin": "", "sku": null, "mpn": ["x"], "name": "A"})),
        "name:a"
    );
    assert_eq!(id(json!({"gtin": 4012345001013u64})), "gtin:4012345001013");
}

#[test]
fn gtin_leading_zeros_are_one_product() {
    assert_eq!(
        id(json!({"gtin": "04012345001013"})),
        id(json!({"gtin": "4012345001013"}))
    );
    assert_eq!(id(json!({"gtin": "0000"})), "gtin:0000");
}

#[test]
fn kinds_never_collide() {
    // The same text as a sku and as an mpn are two different rows.
    let d = diff(
        &rows(&[json!({"sku": "A1"})]),
        &rows(&[json!({"mpn": "A1"})]),
    )
    .unwrap();
    assert_eq!(d.added, vec!["mpn:A1"]);
    assert_eq!(d.removed, vec!["sku:A1"]);
}

#[test]
fn rows_without_identity_use_their_content() {
    let a = id(json!({"price": "1.00", "brand": "B"}));
    let b = id(json!({"brand": "B", "price": "1.00"}));
    assert_eq!(a, b);
    assert_eq!(a, r#"row:{"brand":"B","price":"1.00"}"#);
}

#[test]
fn added_and_removed_are_sorted() {
    let before = rows(&[
        json!({"sku": "c"}),
        json!({"sku": "a"}),
        json!({"sku": "keep"}),
    ]);
    let after = rows(&[
        json!({"sku": "keep"}),
        json!({"sku": "z"}),
        json!({"sku": "b"}),
    ]);
    let d = diff(&before, &after).unwrap();
    assert_eq!(d.added, vec!["sku:b", "sku:z"]);
    assert_eq!(d.removed, vec!["sku:a", "sku:c"]);
    assert!(d.changed.is_empty());
    assert!(d.price_moves.is_empty());
}

#[test]
fn changed_lists_sorted_field_names() {
    let before = rows(&[
        json!({"sku": "a", "name": "Tent", "availability": "InStock", "brand": "X", "gone": 1}),
    ]);
    let after = rows(&[
        json!({"sku": "a", "name": "Tent", "availability": "OutOfStock", "brand": "Y", "new": true}),
    ]);
    let d = diff(&before, &after).unwrap();
    assert_eq!(
        d.changed,
        vec![Changed {
            identity: "sku:a".into(),
            fields: vec![
                "availability".into(),
                "brand".into(),
                "gone".into(),
                "new".into()
            ]
        }]
    );
    assert!(d.price_moves.is_empty());
}

#[test]
fn equal_decimal_prices_are_not_a_move() {
    let before = rows(&[
        json!({"sku": "a", "price": "12.50"}),
        json!({"sku": "b", "price": "7"}),
    ]);
    let after = rows(&[
        json!({"sku": "a", "price": "12.5"}),
        json!({"sku": "b", "price": 7.0}),
    ]);
    let d = diff(&before, &after).unwrap();
    assert!(d.changed.is_empty(), "{:?}", d.changed);
    assert!(d.price_moves.is_empty());
}

#[test]
fn price_moves_are_reported_with_currency() {
    let before = rows(&[
        json!({"gtin": "1", "price": "199.00", "currency": "USD"}),
        json!({"gtin": "2", "price": "10.00", "currency": "eur"}),
        json!({"gtin": "3", "price": "5.00"}),
    ]);
    let after = rows(&[
        json!({"gtin": "3", "price": "4.99"}),
        json!({"gtin": "2", "price": "10.01"}),
        json!({"gtin": "1", "price": "179.00", "currency": "USD"}),
    ]);
    let d = diff(&before, &after).unwrap();
    assert_eq!(
        d.price_moves,
        vec![
            PriceMove {
                identity: "gtin:1".into(),
                before: "199.00".into(),
                after: "179.00".into(),
                currency: Some("USD".into())
            },
            PriceMove {
                identity: "gtin:2".into(),
                before: "10.00".into(),
                after: "10.01".into(),
                currency: Some("EUR".into())
            },
            PriceMove {
                identity: "gtin:3".into(),
                before: "5.00".into(),
                after: "4.99".into(),
                currency: None
            },
        ]
    );
    assert_eq!(d.changed.len(), 3);
    // gtin 2 lost its currency member: that is a changed field, and the move
    // keeps the currency that was known.
    assert_eq!(d.changed[0].fields, vec!["price"]);
    assert_eq!(d.changed[1].fields, vec!["currency", "price"]);
    assert_eq!(d.changed[2].fields, vec!["price"]);
}

#[test]
fn currency_change_is_not_a_price_move() {
    let d = diff(
        &rows(&[json!({"sku": "a", "price": "10", "currency": "USD"})]),
        &rows(&[json!({"sku": "a", "price": "9", "currency": "EUR"})]),
    )
    .unwrap();
    assert_eq!(d.changed[0].fields, vec!["currency", "price"]);
    assert!(d.price_moves.is_empty());
}

#[test]
fn unparseable_prices_change_but_do_not_move() {
    let d = diff(
        &rows(&[json!({"sku": "a", "price": "call us"})]),
        &rows(&[json!({"sku": "a", "price": "12.00"})]),
    )
    .unwrap();
    assert_eq!(d.changed[0].fields, vec!["price"]);
    assert!(d.price_moves.is_empty());
    // A price that appears or disappears is a change, not a move.
    let d = diff(
        &rows(&[json!({"sku": "a"})]),
        &rows(&[json!({"sku": "a", "price": "1"})]),
    )
    .unwrap();
    assert_eq!(d.changed[0].fields, vec!["price"]);
    assert!(d.price_moves.is_empty());
}

#[test]
fn duplicates_keep_the_first_row() {
    let before = rows(&[
        json!({"sku": "a", "price": "1.00"}),
        json!({"sku": "a", "price": "2.00"}),
    ]);
    let after = rows(&[
        json!({"sku": "a", "price": "1.0"}),
        json!({"sku": "a", "price": "3.00"}),
    ]);
    let d = diff(&before, &after).unwrap();
    assert!(d.changed.is_empty());
    assert!(d.added.is_empty() && d.removed.is_empty());
}

#[test]
fn names_match_after_normalization() {
    let d = diff(
        &rows(&[json!({"name": "Canyon 3P  Dome Tent", "price": "129.00"})]),
        &rows(&[json!({"name": "canyon 3p dome tent", "price": "119.00"})]),
    )
    .unwrap();
    assert!(d.added.is_empty() && d.removed.is_empty());
    assert_eq!(d.changed[0].identity, "name:canyon 3p dome tent");
    // The name text itself differs, so it is a changed field too.
    assert_eq!(d.changed[0].fields, vec!["name", "price"]);
    assert_eq!(d.price_moves[0].after, "119.00");
}

#[test]
fn invalid_json_is_an_error() {
    let e = diff(&["{\"sku\": \"a\"}".to_string(), "{oops".to_string()], &[]).unwrap_err();
    assert!(e.starts_with("before row 1 is not valid JSON"), "{e}");
    let e = diff(&[], &["[1, 2]".to_string()]).unwrap_err();
    assert_eq!(e, "after row 0 is not a JSON object");
    assert!(diff(&[], &["".to_string()]).is_err());
}

#[test]
fn empty_sets() {
    assert_eq!(diff(&[], &[]).unwrap(), Diff::default());
}

#[test]
fn decimals_compare_exactly() {
    assert_eq!(decimal_eq("12.50", "12.5"), Some(true));
    assert_eq!(decimal_eq("012.5", "12.500"), Some(true));
    assert_eq!(decimal_eq("-0.00", "0"), Some(true));
    assert_eq!(decimal_eq("+3", "3.0"), Some(true));
    assert_eq!(decimal_eq("0.1", "0.10000000000000000001"), Some(false));
    assert_eq!(decimal_eq("12,50", "12.5"), None);
    assert_eq!(decimal_eq("1.", "1"), None);
    assert_eq!(decimal_eq(".5", "0.5"), None);
    assert_eq!(decimal_eq("1e3", "1000"), None);
    assert_eq!(decimal_eq("", "0"), None);
    assert_eq!(decimal_cmp("9.99", "10"), Some(Ordering::Less));
    assert_eq!(decimal_cmp("0.45", "0.5"), Some(Ordering::Less));
    assert_eq!(
        decimal_cmp("100000000000000000000000.01", "99999999999999999999999.99"),
        Some(Ordering::Greater)
    );
    assert_eq!(decimal_cmp("-2", "-10"), Some(Ordering::Greater));
    assert_eq!(decimal_cmp("-0.5", "0.1"), Some(Ordering::Less));
}
