//! Page kinds, listings and pagination.

use crate::{extract, Extraction, Page, PageKind, Request};
use serde_json::json;

pub(crate) fn run(url: &str, body: &str) -> Extraction {
    let hints = json!({});
    let req = Request {
        entity: "product",
        guidance: None,
        hints: &hints,
    };
    let page = Page {
        url,
        status: 200,
        content_type: Some("text/html"),
        body,
    };
    extract(&page, &req).expect("extract")
}

pub(crate) fn get<'a>(r: &'a crate::record::Record, k: &str) -> Option<&'a str> {
    r.value(k)
}

const TENTS: &str = include_str!("../../../fixtures/sites/outdoor-gear.example/tents/index.html");

#[test]
fn fixture_tents_page_is_a_listing_of_its_cards() {
    let x = run("https://outdoor-gear.example/tents/", TENTS);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 3, "{:?}", x.records);
    let names: Vec<_> = x.records.iter().map(|r| get(r, "name").unwrap()).collect();
    assert_eq!(
        names,
        [
            "Trailhead 1P Ultralight Tent",
            "Canyon 3P Dome Tent",
            "Ridgeline 2-Person Backpacking Tent"
        ]
    );
    let prices: Vec<_> = x.records.iter().map(|r| get(r, "price").unwrap()).collect();
    assert_eq!(prices, ["89.00", "129.00", "149.00"]);
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://outdoor-gear.example/tents/trailhead-1p.html")
    );
    assert_eq!(get(&x.records[1], "availability"), Some("OutOfStock"));
    assert_eq!(get(&x.records[2], "availability"), Some("InStock"));
    assert!(x.records.iter().all(|r| get(r, "currency") == Some("USD")));
    assert!(!x.complete);
    assert_eq!(
        x.next_pages,
        ["https://outdoor-gear.example/tents/?page=2".to_string()]
    );
    assert_eq!(x.links[0], "https://outdoor-gear.example/tents/?page=2");
}

const TENTS_2: &str =
    include_str!("../../../fixtures/sites/outdoor-gear.example/tents/index@page=2.html");
const OUTDOOR_HOME: &str = include_str!("../../../fixtures/sites/outdoor-gear.example/index.html");
const BOOKS: &str = include_str!("../../../fixtures/sites/bookshop.example/books/index.html");
const ELECTRONICS: &str =
    include_str!("../../../fixtures/sites/plain-electronics.example/products/index.html");
const TRAILHEAD: &str =
    include_str!("../../../fixtures/sites/outdoor-gear.example/tents/trailhead-1p.html");

pub(crate) fn page(inner: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><title>Shop</title></head><body>
        <header><nav><ul class="menu"><li><a href="/c/tents">Tents</a></li><li><a href="/c/stoves">Stoves</a></li><li><a href="/c/bags">Bags</a></li></ul></nav></header>
        <main>{inner}</main><footer>© Shop</footer></body></html>"#
    )
}

pub(crate) fn names(x: &Extraction) -> Vec<&str> {
    x.records
        .iter()
        .map(|r| get(r, "name").unwrap_or("?"))
        .collect()
}

pub(crate) fn prices(x: &Extraction) -> Vec<&str> {
    x.records
        .iter()
        .map(|r| get(r, "price").unwrap_or("?"))
        .collect()
}

#[test]
fn fixture_last_listing_page_is_complete() {
    let x = run("https://outdoor-gear.example/tents/?page=2", TENTS_2);
    assert_eq!(x.kind, PageKind::Listing);
    assert_eq!(
        names(&x),
        [
            "Meadow 4-Person Family Tent",
            "Summit 2P Four-Season Tent",
            "Basecamp 6-Person Cabin Tent"
        ]
    );
    assert_eq!(prices(&x), ["199.00", "279.00", "349.00"]);
    assert!(x.next_pages.is_empty(), "{:?}", x.next_pages);
    assert!(x.complete);
}

#[test]
fn fixture_listings_without_markup() {
    let x = run("https://bookshop.example/books/", BOOKS);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 5);
    assert_eq!(prices(&x), ["12.99", "24.00", "8.50", "18.90", "1299.00"]);
    assert_eq!(get(&x.records[0], "name"), Some("The Quiet Orchard"));
    assert_eq!(get(&x.records[2], "availability"), Some("OutOfStock"));
    assert_eq!(get(&x.records[4], "currency"), Some("EUR"));
    assert_eq!(
        get(&x.records[4], "url"),
        Some("https://bookshop.example/books/the-lighthouse-keeper-signed.html")
    );
    assert!(x.complete);

    let x = run("https://plain-electronics.example/products/", ELECTRONICS);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(
        names(&x),
        [
            "Aero 13 Laptop",
            "Aero 15 Pro Laptop",
            "Budget Book 14 Laptop",
            "Aero 13 Laptop (Refurbished)",
            "Studio Headphones X2"
        ]
    );
    assert_eq!(
        prices(&x),
        ["1299.00", "1849.00", "449.99", "899.00", "89.00"]
    );
    assert_eq!(get(&x.records[1], "availability"), Some("OutOfStock"));
    assert_eq!(get(&x.records[0], "currency"), Some("GBP"));
}

#[test]
fn fixture_product_page_stays_a_product() {
    let x = run(
        "https://outdoor-gear.example/tents/trailhead-1p.html",
        TRAILHEAD,
    );
    assert_eq!(x.kind, PageKind::Product);
    assert_eq!(x.records.len(), 1);
    assert_eq!(get(&x.records[0], "price"), Some("89.00"));
    assert_eq!(get(&x.records[0], "sku"), Some("OG-T-1001"));
    assert!(x.next_pages.is_empty());
    assert!(x.complete);
}

#[test]
fn home_page_without_products_is_other() {
    let x = run("https://outdoor-gear.example/", OUTDOOR_HOME);
    assert_eq!(x.kind, PageKind::Other, "{:?}", x.notes);
    assert!(x.records.is_empty());
    assert!(x.next_pages.is_empty());
    assert!(x
        .links
        .contains(&"https://outdoor-gear.example/tents/".to_string()));
    let x = run(
        "https://shop.example.com/about",
        &page("<h1>About us</h1><p>We sell tents since 1999.</p>"),
    );
    assert_eq!(x.kind, PageKind::Other);
    assert_eq!(x.kind.as_str(), "other");
    assert_eq!(PageKind::Listing.as_str(), "listing");
    assert_eq!(PageKind::Product.as_str(), "product");
    assert_eq!(PageKind::default(), PageKind::Other);
}

#[test]
fn jsonld_itemlist_of_products_filled_from_cards() {
    let items: Vec<String> = (1..=3)
        .map(|i| {
            format!(
                r#"{{"@type":"ListItem","position":{i},"item":{{"@type":"Product","name":"Lamp {i}","url":"/p/lamp-{i}","sku":"L{i}","offers":{{"@type":"Offer","price":"{i}0.00","priceCurrency":"EUR","availability":"https://schema.org/InStock"}}}}}}"#
            )
        })
        .collect();
    let cards: String = (1..=3)
        .map(|i| {
            format!(
                r#"<div class="tile"><a href="/p/lamp-{i}"><img src="/img/lamp-{i}.jpg" alt="Lamp {i}"></a><h3>Lamp {i}</h3><s class="was">{i}5,00 €</s> <span class="price">{i}0,00 €</span></div>"#
            )
        })
        .collect();
    let body = page(&format!(
        r#"<script type="application/ld+json">{{"@type":"ItemList","itemListElement":[{}]}}</script><h1>Lamps</h1><div class="grid">{cards}</div>"#,
        items.join(",")
    ));
    let x = run("https://shop.example.de/c/lamps", &body);
    assert_eq!(x.kind, PageKind::Listing);
    assert_eq!(names(&x), ["Lamp 1", "Lamp 2", "Lamp 3"]);
    assert_eq!(prices(&x), ["10.00", "20.00", "30.00"]);
    let r = &x.records[1];
    assert_eq!(get(r, "sku"), Some("L2"));
    assert_eq!(get(r, "currency"), Some("EUR"));
    assert_eq!(get(r, "url"), Some("https://shop.example.de/p/lamp-2"));
    // From the visible card: the image and the struck-through price.
    assert_eq!(
        get(r, "image"),
        Some("https://shop.example.de/img/lamp-2.jpg")
    );
    assert_eq!(get(r, "list_price"), Some("25.00"));
    assert!(x.complete);
    assert!(x.next_pages.is_empty());
}

#[test]
fn microdata_item_scopes_listing() {
    let cards: String = (1..=4)
        .map(|i| {
            let stock = if i == 2 { "OutOfStock" } else { "InStock" };
            format!(
                r#"<article itemscope itemtype="https://schema.org/Product"><a itemprop="url" href="/p/{i}"><h2 itemprop="name">Chair {i}</h2></a>
                <img itemprop="image" src="/i/{i}.png"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="GBP"><span itemprop="price" content="{i}9.50">£{i}9.50</span><link itemprop="availability" href="https://schema.org/{stock}"></div></article>"#
            )
        })
        .collect();
    let body = page(&format!(
        "<h1>Chairs</h1><section class=\"results\">{cards}</section>"
    ));
    let x = run("https://shop.example.co.uk/chairs", &body);
    assert_eq!(x.kind, PageKind::Listing);
    assert_eq!(names(&x), ["Chair 1", "Chair 2", "Chair 3", "Chair 4"]);
    assert_eq!(prices(&x), ["19.50", "29.50", "39.50", "49.50"]);
    assert_eq!(get(&x.records[1], "availability"), Some("OutOfStock"));
    assert_eq!(get(&x.records[3], "currency"), Some("GBP"));
    assert_eq!(
        get(&x.records[0], "image"),
        Some("https://shop.example.co.uk/i/1.png")
    );
}

#[test]
fn next_data_embedded_state_listing() {
    let state = json!({
        "props": {"pageProps": {
            "category": {"name": "Jackets"},
            "products": [
                {"id": 1, "title": "Storm Jacket", "slug": "storm-jacket", "price": {"current": 120, "original": 150, "currency": "USD"}, "inStock": true, "image": "/img/storm.jpg", "sku": "J-1"},
                {"id": 2, "title": "Breeze Jacket", "slug": "breeze-jacket", "price": {"current": 80.5, "currency": "USD"}, "inStock": false, "image": "/img/breeze.jpg", "sku": "J-2"},
                {"id": 3, "title": "Summit Parka", "slug": "summit-parka", "price": {"current": 299, "currency": "USD"}, "inStock": true, "sku": "J-3"}
            ],
            "recommendations": [
                {"title": "Wool Hat", "slug": "wool-hat", "price": 20},
                {"title": "Gloves", "slug": "gloves", "price": 25}
            ]
        }}
    });
    let cards = r#"<ul class="plp"><li class="plp-item"><a href="/product/storm-jacket">Storm Jacket</a><span class="amount">$120.00</span></li>
        <li class="plp-item"><a href="/product/breeze-jacket">Breeze Jacket</a><span class="amount">$80.50</span></li>
        <li class="plp-item"><a href="/product/summit-parka">Summit Parka</a><span class="amount">$299.00</span></li></ul>
        <aside><h2>Recommended for you</h2><a href="/product/wool-hat">Wool Hat</a> $20.00 <a href="/product/gloves">Gloves</a> $25.00</aside>"#;
    let body = page(&format!(
        r#"<h1>Jackets</h1>{cards}<script id="__NEXT_DATA__" type="application/json">{state}</script>"#
    ));
    let x = run("https://shop.example.com/c/jackets", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(names(&x), ["Storm Jacket", "Breeze Jacket", "Summit Parka"]);
    assert_eq!(prices(&x), ["120", "80.5", "299"]);
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://shop.example.com/product/storm-jacket")
    );
    assert_eq!(get(&x.records[1], "availability"), Some("OutOfStock"));
    assert_eq!(get(&x.records[0], "sku"), Some("J-1"));
    assert_eq!(get(&x.records[0], "currency"), Some("USD"));
    assert_eq!(
        get(&x.records[1], "image"),
        Some("https://shop.example.com/img/breeze.jpg")
    );
    assert!(
        x.notes.iter().any(|n| n.contains("embedded")),
        "{:?}",
        x.notes
    );
}

#[test]
fn data_attribute_json_listing() {
    let cards: String = [("Red Mug", "9.99", "M-R"), ("Blue Mug", "11.49", "M-B"), ("Green Mug", "7.00", "M-G")]
        .iter()
        .map(|(n, p, s)| {
            let slug = n.to_lowercase().replace(' ', "-");
            format!(
                r#"<div class="card" data-product='{{"name":"{n}","price":"{p}","sku":"{s}","currency":"EUR"}}'><a href="/shop/{slug}"><img src="/i/{slug}.webp"></a><p>{n}</p><p>{p} €</p><button>Add to cart</button></div>"#
            )
        })
        .collect();
    let body = page(&format!("<h1>Mugs</h1><div class=\"cards\">{cards}</div>"));
    let x = run("https://shop.example.de/mugs", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(names(&x), ["Red Mug", "Blue Mug", "Green Mug"]);
    assert_eq!(prices(&x), ["9.99", "11.49", "7.00"]);
    assert_eq!(get(&x.records[1], "sku"), Some("M-B"));
    assert_eq!(
        get(&x.records[2], "url"),
        Some("https://shop.example.de/shop/green-mug")
    );
    assert_eq!(get(&x.records[0], "availability"), Some("InStock"));
}

#[test]
fn shopify_product_json_scripts_in_cents() {
    let cards: String = [("linen-shirt", "Linen Shirt", 4900), ("oxford-shirt", "Oxford Shirt", 5900)]
        .iter()
        .map(|(h, n, c)| {
            format!(
                r#"<div class="grid__item"><script type="application/json" data-product-json>{{"id":1,"title":"{n}","handle":"{h}","price":{c},"compare_at_price":null,"available":true,"variants":[{{"sku":"SH-{c}"}}]}}</script><a href="/collections/shirts/products/{h}">{n}</a></div>"#
            )
        })
        .collect();
    let body = page(&format!("<h1>Shirts</h1><div class=\"grid\">{cards}</div>"));
    let x = run("https://shirts.example.com/collections/shirts", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(names(&x), ["Linen Shirt", "Oxford Shirt"]);
    assert_eq!(prices(&x), ["49.00", "59.00"]);
    assert_eq!(get(&x.records[1], "sku"), Some("SH-5900"));
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://shirts.example.com/collections/shirts/products/linen-shirt")
    );
    assert_eq!(get(&x.records[0], "availability"), Some("InStock"));
}

fn plain_card(i: usize, name: &str, price: &str) -> String {
    format!(
        r#"<div class="product-tile"><a class="product-tile__link" href="/item/{i}"><img data-src="/pics/{i}.jpg" alt="{name}"></a><div class="product-tile__body"><a href="/item/{i}"><span class="product-tile__name">{name}</span></a><div class="product-tile__price">{price}</div></div></div>"#
    )
}

#[test]
fn plain_markup_cards_and_carousel_excluded() {
    let main: String = (1..=5)
        .map(|i| plain_card(i, &format!("Backpack {i}"), &format!("${i}9.00")))
        .collect();
    // The same card markup in a carousel of other products.
    let also: String = (6..=11)
        .map(|i| plain_card(i, &format!("Bottle {i}"), &format!("${i}.50")))
        .collect();
    let body = page(&format!(
        r#"<h1>Backpacks</h1><p>5 results</p><div class="listing">{main}</div>
        <section><h2>You may also like</h2><div class="tiles">{also}</div></section>
        <div class="recently-viewed"><div class="tiles">{}{}</div></div>"#,
        plain_card(20, "Tent 20", "$200.00"),
        plain_card(21, "Tent 21", "$210.00"),
    ));
    let x = run("https://packs.example.com/backpacks", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(
        names(&x),
        [
            "Backpack 1",
            "Backpack 2",
            "Backpack 3",
            "Backpack 4",
            "Backpack 5"
        ]
    );
    assert_eq!(prices(&x), ["19.00", "29.00", "39.00", "49.00", "59.00"]);
    assert_eq!(
        get(&x.records[2], "url"),
        Some("https://packs.example.com/item/3")
    );
    assert_eq!(
        get(&x.records[2], "image"),
        Some("https://packs.example.com/pics/3.jpg")
    );
    assert_eq!(get(&x.records[0], "currency"), Some("USD"));
    assert!(x
        .records
        .iter()
        .all(|r| !r.has(crate::record::Field::Availability)));
}

#[test]
fn product_with_also_like_carousel_is_one_product() {
    let also: String = (1..=6)
        .map(|i| plain_card(i, &format!("Other pack {i}"), &format!("${i}9.00")))
        .collect();
    let body = page(&format!(
        r#"<div class="pdp"><h1>Trail Pack 30L</h1><p class="pdp-price">$129.00</p><button type="submit">Add to cart</button></div>
        <section><h2>You may also like</h2><div class="tiles">{also}</div></section>"#
    ));
    let x = run("https://packs.example.com/p/trail-pack-30", &body);
    assert_eq!(x.kind, PageKind::Product, "{:?}", x.notes);
    assert_eq!(x.records.len(), 1);
    assert_eq!(get(&x.records[0], "name"), Some("Trail Pack 30L"));
    assert_eq!(get(&x.records[0], "price"), Some("129.00"));
    assert!(x.next_pages.is_empty());
}

#[test]
fn struck_through_list_price_on_cards() {
    let card = |i: usize, was: &str, now: &str| {
        format!(
            r#"<li class="item"><a href="/sale/{i}">Sale item {i}</a><span class="price-box"><del>{was}</del> <ins>{now}</ins></span></li>"#
        )
    };
    let body = page(&format!(
        r#"<h1>Sale</h1><ul class="items">{}{}{}</ul>"#,
        card(1, "£40.00", "£30.00"),
        card(2, "£25.00", "£20.00"),
        card(3, "", "£15.00")
    ));
    let x = run("https://shop.example.co.uk/sale", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["30.00", "20.00", "15.00"]);
    assert_eq!(get(&x.records[0], "list_price"), Some("40.00"));
    assert_eq!(get(&x.records[1], "list_price"), Some("25.00"));
    assert_eq!(get(&x.records[2], "list_price"), None);
    assert_eq!(get(&x.records[0], "currency"), Some("GBP"));
}

pub(crate) fn simple_cards(n: usize) -> String {
    let cards: String = (1..=n)
        .map(|i| format!(r#"<li class="c"><a href="/p/{i}">Thing {i}</a> <b>{i},00 €</b></li>"#))
        .collect();
    format!("<h1>Things</h1><ul class=\"things\">{cards}</ul>")
}

#[test]
fn an_amount_is_shown_in_any_locales_writing() {
    use crate::merging::shows_amount;
    assert!(shows_amount("Sold $ 975,000 Listed $998,000", "975000"));
    assert!(shows_amount("Vendu 975.000 €", "975000.00"));
    assert!(shows_amount("nur 19,99 € statt 24,99 €", "19.99"));
    assert!(shows_amount("CHF 1'299.–", "1299"));
    assert!(shows_amount("1 299,00 kr", "1299.00"));
    assert!(!shows_amount("Sold $ 975,000 Listed $998,000", "983000"));
    assert!(!shows_amount("Sold 975,000", "97500"));
    assert!(!shows_amount("Model 2023, 4 doors", "20"));
}

/// A French shop's search results: each card's price written "79€" with
/// its cents in a superscript, a sort menu whose last option ("Top des
/// ventes", best sellers) stands just before the list, a results block
/// whose data attributes count suggestions and speak of filters, and a
/// banner's "Free Shipping on all orders over 85€".
fn french_results(cards: usize) -> String {
    let mut page = String::from(
        r#"<html lang="fr"><body><div class="banner"><span>Free Shipping on all orders over 85€</span></div>
        <main><div class="main result" data-nb-suggestions="0"><div class="result-search">
        <div class="product-listing listing" data-zero-filter data-at-least-one-filter>
        <label>Trier par :</label><select><option>Pertinence</option><option>Nouveautés</option><option>Top des ventes</option></select>
        <div class="wrap-list"><ul>"#,
    );
    for i in 0..cards {
        page.push_str(&format!(
            r#"<li class="pdt-item"><a href="/p/m{i}.html"><h3>Barrette mémoire DDR4 modèle {i}</h3></a>
            <div class="price"><div class="price">{}€<sup>95</sup></div></div><button>Ajouter au panier</button></li>"#,
            70 + i
        ));
    }
    page.push_str("</ul></div></div></div></div></main></body></html>");
    page
}

#[test]
fn a_french_results_page_is_read_whole_with_its_cents() {
    let x = run("https://shop.example.fr/recherche/ram/", &french_results(6));
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(
        prices(&x),
        ["70.95", "71.95", "72.95", "73.95", "74.95", "75.95"]
    );
    assert!(x.records.iter().all(|r| get(r, "currency") == Some("EUR")));
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://shop.example.fr/p/m0.html")
    );
}

#[test]
fn a_delivery_banner_or_a_price_filter_is_no_product_price() {
    // The banner's amount alone is no price: a page of unpriced cards
    // whose only amount it is sells nothing at that price.
    let page = r#"<html><body><div class="top"><span>Free Shipping on all orders over 85€</span></div>
        <h1>Vegetable Seeds</h1><p>Our seeds, sown by hand.</p><button>Add to Cart</button></body></html>"#;
    let x = run("https://seeds.example/vegetable-seeds/", page);
    assert!(
        x.records.iter().all(|r| get(r, "price") != Some("85")),
        "{:?}",
        x.records
    );
    // A facet's bound ("до 500 руб.", up to 500 roubles) is no price either.
    let facet = r#"<html lang="ru"><body><h1>Пюре</h1><ul class="items">
        <li><a href="https://shop.example.ru/pyure.html?price=%2A%2C500%2C1">до <span class="price">500 руб.</span> (186)</a></li>
        </ul><button>Купить</button></body></html>"#;
    let x = run("https://shop.example.ru/pyure.html", facet);
    assert!(
        x.records.iter().all(|r| get(r, "price") != Some("500")),
        "{:?}",
        x.records
    );
}

#[test]
fn a_price_named_with_its_tax_is_the_cards_price() {
    // Cards of a common hosted shop platform: the price an element named
    // for the price with tax holds is the price paid.
    let mut page = String::from(r#"<html><body><h1>Vegetable Seeds</h1><ul class="productGrid">"#);
    for (i, name) in ["Asparagus Pea", "Beetroot Alto", "Beetroot Boltardy"]
        .iter()
        .enumerate()
    {
        page.push_str(&format!(
            r#"<li class="product"><article class="card"><h3 class="card-title"><a href="/seeds-{i}/">{name}</a></h3>
            <div class="card-price"><div class="price-section price-section--withTax">
            <span class="price-now-label" style="display: none;">Now:</span>
            <span data-product-price-with-tax class="price price--withTax">€4.{i}5</span></div></div>
            <a href="/cart.php?action=add&amp;product_id={i}" class="button">Add to Cart</a></article></li>"#
        ));
    }
    page.push_str("</ul></body></html>");
    let x = run("https://seeds.example/vegetable-seeds/", &page);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["4.05", "4.15", "4.25"]);
}

#[test]
fn a_japanese_results_page_reads_the_price_paid() {
    // Cards whose price has the full-width yen sign, beside the list price
    // (定価) and a line about free delivery from 999 yen (送料無料).
    let mut page = String::from(r#"<html lang="ja"><body><h1>検索結果</h1><div class="list">"#);
    for (i, (price, teika)) in [
        ("8,800", "8,800"),
        ("3,440 ～ ￥4,300", "10,978"),
        ("5,100", "10,978"),
    ]
    .iter()
    .enumerate()
    {
        page.push_str(&format!(
            r#"<div class="item"><div class="title"><a href="/product/detail/{i}"><h3>マリオカート {i}</h3></a></div>
            <div class="item_price"><p class="price_teika">中古：<span class="text-red"><strong>￥{price}</strong></span><span class="tax">税込</span></p>
            <p class="mgnT5">999円以上は送料無料（<a href="javascript:void(0)">※</a>）</p><p>定価：￥{teika}</p></div></div>"#
        ));
    }
    page.push_str("</div></body></html>");
    let x = run("https://shop.example.jp/search?q=mario", &page);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["8800", "3440", "5100"]);
    assert!(x.records.iter().all(|r| get(r, "currency") == Some("JPY")));
}

#[test]
fn a_rating_beside_a_price_block_is_no_amount() {
    // A large Latin American marketplace's cards: a rating ("4.9"), then a
    // price block whose sign, whole part, decimal comma and cents are
    // elements of their own, after a struck former price.
    let money = |whole: &str, cents: &str| {
        format!(
            r#"<span class="money"><span class="money__currency"><span class="money__symbol">R$</span></span><span class="money__fraction">{whole}</span><span>,</span><span class="money__cents">{cents}</span></span>"#
        )
    };
    let page = format!(
        r#"<html lang="pt-BR"><body><ol class="results"><li class="item"><div class="card"><h3><a href="https://loja.example.br/p/MLB1">Jogo</a></h3>
        <span class="review"><span class="label">4.9</span></span><div class="price"><s>{}</s><div class="current">{}</div></div>
        <div class="shipping"><span>Frete grátis</span></div></div></li></ol></body></html>"#,
        money("99", "99"),
        money("87", "29")
    );
    let html = crate::parse::document(&page);
    let doc = crate::dom::Doc::build(&html);
    let card = doc
        .els
        .iter()
        .position(|e| e.tag == "li")
        .expect("the card");
    let (price, former) = crate::price::card::of_card(&doc, card, &[]).expect("a price");
    assert_eq!(price.value, "87.29");
    assert_eq!(price.currency.as_deref(), Some("BRL"));
    assert_eq!(former.as_deref(), Some("99.99"));
}

#[test]
fn a_marketplace_category_page_reads_its_cards_not_its_summary() {
    // A category page whose markup sums its products up as one product
    // with an offer from 95990 to 269000 roubles, and cards whose blocks
    // are named "regular" (the card's kind), with a monthly credit's
    // amount and a badge named like a name.
    let mut page = String::from(
        r#"<html lang="ru"><body><h1>iPhone 15 Pro</h1>
        <div itemscope itemtype="http://schema.org/Product"><meta itemprop="name" content="iPhone 15 Pro">
        <div itemprop="offers" itemscope itemtype="http://schema.org/AggregateOffer">
        <meta itemprop="lowPrice" content="95990"><meta itemprop="highPrice" content="269000"><meta itemprop="priceCurrency" content="RUB"></div></div>
        <div class="catalog-listing">"#,
    );
    for i in 0..8 {
        page.push_str(&format!(
            r#"<div class="catalog-item-regular-desktop"><div class="catalog-item-regular-desktop__price-block">
            <div class="catalog-item-regular-desktop__price">{} 990 ₽</div></div>
            <div class="credit-method-badge"><div class="credit-method-badge__badge">от <span class="credit-method-badge__badge-price">2 927 ₽</span> в мес.</div>
            <span class="credit-method-badge__name">Кредит</span></div>
            <div class="catalog-item-regular-desktop__main-info"><a class="catalog-item-regular-desktop__title-link" href="/catalog/details/iphone-{i}/">Смартфон Apple iPhone 15 Pro {i}</a>
            <div class="review">56{i}</div></div><button>Купить</button></div>"#,
            100 + i
        ));
    }
    page.push_str("</div></body></html>");
    let x = run("https://market.example.ru/catalog/iphone-15-pro/", &page);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8, "{:?}", x.records);
    assert_eq!(get(&x.records[0], "price"), Some("100990"));
    assert_eq!(get(&x.records[7], "price"), Some("107990"));
    assert_eq!(
        get(&x.records[0], "name"),
        Some("Смартфон Apple iPhone 15 Pro 0")
    );
}

#[test]
fn a_list_in_sections_is_read_card_by_card() {
    // Search results grouped by rarity: each section a heading ("UR Card
    // List") and a grid of its cards, some sold out (classed apart).
    let mut page = String::from(r#"<html lang="ja"><body><div class="results">"#);
    let mut n = 0;
    for (rarity, count) in [("UR", 2), ("SAR", 3), ("SR", 2), ("RR", 3)] {
        page.push_str(&format!(
            r#"<div class="py-4 cards-list"><h3 class="text-primary"><span>{rarity}</span> Card List</h3><div class="row">"#
        ));
        for k in 0..count {
            let sold = if k == 0 { " sold-out" } else { "" };
            page.push_str(&format!(
                r#"<div class="col-md"><div class="card-product{sold}"><a href="https://cards.example.jp/card/{n}"><img src="/i/{n}.jpg" alt="{rarity} ピカチュウex"></a>
                <a href="https://cards.example.jp/card/{n}"><h4>ピカチュウex {n}</h4></a><strong class="d-block"> {},800 円 </strong></div></div>"#,
                10 + n
            ));
            n += 1;
        }
        page.push_str("</div></div>");
    }
    page.push_str("</div></body></html>");
    let x = run("https://cards.example.jp/search?q=pikachu", &page);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 10, "{:?}", x.records);
    assert_eq!(get(&x.records[0], "price"), Some("10800"));
    assert_eq!(get(&x.records[9], "price"), Some("19800"));
}

#[test]
fn a_french_card_is_named_by_its_label_and_struck_by_its_class() {
    // Cards whose first named text is the category ("title-cat"), whose
    // product name is a "libelle", and whose former price is classed
    // "barre" (struck, in French).
    let mut page = String::from(r#"<html lang="fr"><body><div class="liste">"#);
    for (i, (name, was, now)) in [
        ("MSI GeForce 1", "1494", "1399"),
        ("Asus TUF 2", "1300", "1294"),
        ("Gigabyte Eagle 3", "1200", "1179"),
    ]
    .iter()
    .enumerate()
    {
        page.push_str(&format!(
            r#"<div class="produit"><a href="/carte-graphique/p-{i}.aspx" class="prod_txt_left"><span class="liste-produit__title-cat">Carte graphique</span>
            <p class="h2 produit__information__libelle">{name}</p></a>
            <div class="produit__achat__prix"><p class="barre">{was}€<sup>99</sup></p><span class="price-main">{now}€<sup>99</sup></span></div>
            <button>Ajouter au panier</button></div>"#
        ));
    }
    page.push_str("</div></body></html>");
    let x = run("https://shop.example.fr/recherche?q=rtx", &page);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    let got: Vec<_> = x
        .records
        .iter()
        .map(|r| (get(r, "name").unwrap_or(""), get(r, "price").unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        [
            ("MSI GeForce 1", "1399.99"),
            ("Asus TUF 2", "1294.99"),
            ("Gigabyte Eagle 3", "1179.99")
        ]
    );
}

#[test]
fn a_currency_drawn_by_an_icon_font_is_the_cards_currency() {
    // The rouble drawn by a font: a glyph ("e") in an element classed for
    // the currency, or an empty icon element.
    let mut page = String::from(r#"<html lang="ru"><body><div class="products">"#);
    for i in 0..4 {
        let sign = if i % 2 == 0 {
            r#"<span class="w-ruble">e</span>"#
        } else {
            r#"<i class="fa fa-rub"></i>"#
        };
        page.push_str(&format!(
            r#"<div class="product-item"><a href="/catalog/item-{i}/">Кефир {i}% 900 г</a>
            <div class="product-list-price"><div class="price-items">Цена:&nbsp;<div class="price-item"><span> 9{i},00</span> {sign}</div></div> за шт.</div>
            <button>Купить</button></div>"#
        ));
    }
    page.push_str("</div></body></html>");
    let x = run("https://shop.example.ru/catalog/milk/", &page);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    let got: Vec<_> = x
        .records
        .iter()
        .map(|r| {
            (
                get(r, "price").unwrap_or(""),
                get(r, "currency").unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("90.00", "RUB"),
            ("91.00", "RUB"),
            ("92.00", "RUB"),
            ("93.00", "RUB")
        ]
    );
}

#[test]
fn a_bolivar_amount_with_grouped_thousands_and_cents() {
    // One mark grouping thousands and parting the cents, after the
    // bolívar's sign.
    let p = crate::money::parse_current_price("Bs.1.840.51").expect("an amount");
    assert_eq!(
        (p.value.as_str(), p.currency.as_deref()),
        ("1840.51", Some("VES"))
    );
    let p = crate::money::parse_current_price("Bs. 12.345.678,90").expect("an amount");
    assert_eq!(p.value, "12345678.90");
    // Thousands only stay thousands.
    let p = crate::money::parse_current_price("1.234.567 €").expect("an amount");
    assert_eq!(p.value, "1234567");
}

#[test]
fn a_page_whose_body_is_classed_for_ads_still_has_its_list() {
    let mut page = String::from(
        r#"<html lang="pt-BR"><body class="ads-fixed"><div class="row resultados-busca">"#,
    );
    for i in 0..5 {
        page.push_str(&format!(
            r#"<div class="promocao-produtos-item col-sm-12"><div class="promocao-item-nome"><a href="/produto-{i}_5014{i}/">Controle {i}</a></div>
            <div class="price-from">A partir de:</div><div class="price-model"><span>US$&nbsp;5{i},00</span></div>
            <a href="/produto-{i}_5014{i}/"><button type="button">1{i} OFERTAS</button></a></div>"#
        ));
    }
    page.push_str("</div></body></html>");
    let x = run("https://www.compras.example/busca/?q=ps5", &page);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 5, "{:?}", x.records);
    assert_eq!(get(&x.records[4], "price"), Some("54.00"));
}

#[test]
fn a_card_that_leads_to_the_page_under_a_shorter_path_makes_it_a_product_page() {
    // A product's page reached through its category: its own block links
    // the product's address without the category's path, among the cards
    // of products sold with it.
    let mut page = String::from(
        r#"<html><body><table><tr>
        <td class="item"><a href="/p29/BRASS-CLOCK/product_info.html">more details</a> <span>CAD$189.95</span> <span>Sale: CAD$169.95</span></td>"#,
    );
    for (i, name) in ["BRASS BAROMETER", "TREM TETHER", "SHIP BELL"]
        .iter()
        .enumerate()
    {
        page.push_str(&format!(
            r#"<td class="item"><a href="/p3{i}/{}/product_info.html">{name}</a> <span>CAD${}9.95</span></td>"#,
            name.replace(' ', "-"),
            5 + i
        ));
    }
    page.push_str("</tr></table></body></html>");
    let x = run(
        "http://shop.example.ca/Clocks-Nautical/c1_4/p29/BRASS-CLOCK/product_info.html",
        &page,
    );
    assert_ne!(x.kind, PageKind::Listing, "{:?} {:?}", x.notes, x.records);
}

/// Cards, and after them a hidden form that scripts fill for whichever
/// card is picked (a service's "add to cart"): its button is no product's
/// own, so the page stays a listing; its currency is named on `main`.
#[test]
fn a_hidden_form_s_buy_button_does_not_make_a_product_page() {
    let card = |n: u32, price: &str| {
        format!(
            r#"<li class="product__list--item"><h2 class="product__information--name"><a href="/nevera-{n}/p/77047{n}">Nevera modelo {n} 230 Litros</a></h2>
            <div class="product__price"><p class="product__price--discounts__old">$1.987.900</p><p><span class="price">{price}</span> <span class="today">Hoy</span></p>
            <a href="/nevera-{n}/p/77047{n}"><button class="button-primary">Ver detalle</button></a></div></li>"#
        )
    };
    let cards: String = [
        (1, "$1.479.900"),
        (2, "$1.699.900"),
        (3, "$2.099.900"),
        (4, "$989.900"),
    ]
    .iter()
    .map(|(n, p)| card(*n, p))
    .collect();
    let body = format!(
        r#"<html lang="es"><body><main data-currency-iso-code="COP"><h1>Neveras</h1><ul class="product__listing">{cards}</ul></main>
        <div class="installations"><form class="add_to_cart_installations js-installations hidden" action="/installation/cart/add" method="post">
        <button id="addToCartButton" type="submit" class="btn btn-default js-addToCartInstallation-pdp" data-product-id="">Agregar al carrito</button></form></div></body></html>"#
    );
    let x = run("https://www.tienda.example.com/neveras/c/A29", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    let prices: Vec<_> = x.records.iter().map(|r| get(r, "price").unwrap()).collect();
    assert_eq!(prices, ["1479900", "1699900", "2099900", "989900"]);
    assert!(x.records.iter().all(|r| get(r, "currency") == Some("COP")));
}

/// A search's page that its template types as a product's (`og:type`
/// product, markup of one card's product without price or address) beside
/// an ItemList of the results' addresses: the heading is the query, and the
/// list is the cards'.
#[test]
fn a_search_page_typed_as_a_product_s_is_read_as_its_list() {
    let ids = 1..=8;
    let listed: Vec<String> = ids
        .clone()
        .map(|i| format!(r#"{{"@type":"ListItem","position":{i},"url":"//www.shop.example.ph/products/diaper-pants-{i}-i28943{i}.html"}}"#))
        .collect();
    let cards: String = ids
        .clone()
        .map(|i| {
            format!(
                r#"<div data-qa-locator="product-item"><a href="https://www.shop.example.ph/products/diaper-pants-{i}-i28943{i}.html?spm=x.{i}"><img alt="Baby Diaper Dry Pants size {i}"></a>
                <div><a href="https://www.shop.example.ph/products/diaper-pants-{i}-i28943{i}.html?spm=y.{i}" title="Baby Diaper Dry Pants size {i}">Baby Diaper Dry Pants size {i}</a></div><div><span>₱3{i}5</span></div><div>2k+ sold</div></div>"#
            )
        })
        .collect();
    let body = format!(
        r#"<html><head><meta property="og:type" content="product">
        <script type="application/ld+json">{{"@type":"Product","@context":"https://schema.org","name":"Baby Diaper Dry Pants size 8","sku":"265078143_PH","brand":{{"@type":"Organization","name":"Shop"}}}}</script>
        <script type="application/ld+json">{{"@context":"https://schema.org","@type":"ItemList","itemListElement":[{}]}}</script></head>
        <body><h1>diapers</h1><div data-qa-locator="general-products">{cards}</div></body></html>"#,
        listed.join(",")
    );
    let x = run("https://www.shop.example.ph/catalog/?q=diapers", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8, "{:?}", x.records);
    assert_eq!(get(&x.records[0], "price"), Some("315"));
    assert_eq!(get(&x.records[0], "currency"), Some("PHP"));
    // The query one word of that product's name: still the search's heading.
    let x = run(
        "https://www.shop.example.ph/catalog/?q=pants",
        &body.replace("<h1>diapers</h1>", "<h1>pants</h1>"),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8, "{:?}", x.records);
}

/// State that writes each product's address as its slug (resolved against
/// the page's own folder) while the cards link the slug inside a longer
/// path: each record takes its card's address, and from the card the
/// currency the state leaves out.
#[test]
fn state_slugs_take_the_addresses_of_the_cards_that_hold_them() {
    let items = [
        ("iphone-14-pro-max-256gb-deep-purple", "N53346840A", 4499),
        ("airpods-pro-2nd-generation-white", "N53348815A", 785),
        ("macbook-air-m1-8gb-256gb-grey", "N42284105A", 2799),
    ];
    let products: Vec<_> = items
        .iter()
        .map(|(slug, sku, price)| json!({"name": slug.replace('-', " "), "url": slug, "sku": sku, "price": price, "brand": "Apple"}))
        .collect();
    let state = json!({"props": {"pageProps": {"catalog": {"hits": products, "nbHits": 2327}}}});
    let cards: String = items
        .iter()
        .map(|(slug, sku, price)| {
            format!(
                r#"<span class="productContainer"><a href="/uae-en/{slug}/{sku}/p/?o=ae{price}" id="productBox-{sku}"><div data-qa="product-name" title="Apple {name}">Apple {name}</div>
                <div><span class="currency">AED </span><strong class="amount">{price}.00</strong></div></a></span>"#,
                name = slug.replace('-', " ")
            )
        })
        .collect();
    let body = page(&format!(
        r#"<h1>Apple</h1><div class="grid">{cards}</div><script id="__NEXT_DATA__" type="application/json">{state}</script>"#
    ));
    let x = run("https://www.shop.example.com/apple/?q=iphone&page=1", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://www.shop.example.com/uae-en/iphone-14-pro-max-256gb-deep-purple/N53346840A/p/?o=ae4499")
    );
    assert_eq!(get(&x.records[2], "price"), Some("2799"));
    assert!(
        x.records.iter().all(|r| get(r, "currency") == Some("AED")),
        "{:?}",
        x.records
    );
}

/// Each product drawn twice in a row, as a price tile and as a box with its
/// name, both marked as the product's: one record per product, its price
/// from the tile and its name from the box.
#[test]
fn two_halves_of_one_product_s_card_are_one_record() {
    let cards: String = [("tcl-50ep640", "TCL 50EP640", "1 399"), ("mb275", "Multibrackets MB275", "419"), ("eu026", "Reinston Ultra EU026", "599")]
        .iter()
        .map(|(slug, name, price)| {
            format!(
                r#"<div class="product-tile js-ua-product" data-product-href="/tv/{slug}.bhtml"><div class="product-price"><div class="price-normal">{price}&nbsp;zł</div>
                <div class="price-voucher-name">Cena z kodem: <strong>NCOC1214</strong></div><a href="/tv/{slug}.bhtml#raty">8,38 zł x 50 rat 0%</a></div></div>
                <div class="product-box js-ua-product" data-product-href="/tv/{slug}.bhtml"><div class="product-photo"><a href="/tv/{slug}.bhtml"><img alt="{name}"></a></div>
                <h2 class="product-name"><a href="/tv/{slug}.bhtml">{name}</a></h2><p>nr kat. 1201079</p><span class="price">{price} zł</span></div>"#
            )
        })
        .collect();
    let body = page(&format!(
        r#"<h1>Wyniki</h1><div id="products">{cards}</div>"#
    ));
    let x = run("https://www.sklep.example.pl/search.bhtml?q=tcl", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(
        names(&x),
        ["TCL 50EP640", "Multibrackets MB275", "Reinston Ultra EU026"],
        "{:?}",
        x.notes
    );
    assert_eq!(prices(&x), ["1399", "419", "599"]);
}

/// Cards whose prices are drawn a digit per element ("1" "5" "9" "8" ",-")
/// and whose title links state the price in a data attribute for
/// analytics: the attribute gives the price.
#[test]
fn cards_that_draw_digits_apart_take_the_price_their_markup_states() {
    let cards: String = [("cq32g1", "Monitor AOC CQ32G1", "1598"), ("24v2q", "Monitor AOC 24V2Q", "1549"), ("ag251fg", "Monitor AOC Agon AG251FG", "1299")]
        .iter()
        .map(|(slug, name, price)| {
            let digits: String = price.chars().map(|d| format!(r#"<span class="p-{d}">{d}</span> "#)).collect();
            format!(
                r#"<div class="m-offerBox"><h2><a href="/monitory/{slug}" class="js-product-name" data-offer-name="{name}" data-offer-price="{price}.00" data-offer-old-price="1999.00" data-offer-brand="AOC">{name}</a></h2>
                <p>Nr katalogowy: 1415298</p><div class="m-priceBox"><div class="m-priceBox_price price">{digits}<span class="p-c">,-</span></div></div>
                <a class="m-offerBox_link" href="/monitory/{slug}">Zobacz</a></div>"#
            )
        })
        .collect();
    let body = page(&format!(
        r#"<h1>Wyniki: aoc</h1><div class="m-listing">{cards}</div>"#
    ));
    let x = run("https://www.sklep.example.pl/search?query=aoc", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(
        prices(&x),
        ["1598.00", "1549.00", "1299.00"],
        "{:?}",
        x.records
    );
}

/// Two unmarked amounts beside a discount badge, the strike drawn by a
/// style sheet: the amount the discount leads to is the price; a
/// percentage that leads to neither (a rating) changes nothing.
#[test]
fn a_discount_badge_tells_the_price_from_the_former_one() {
    let card = |slug: &str, badge: &str, was: &str, now: &str| {
        format!(
            r#"<div class="css-bk6tzz"><a href="/toko/{slug}" class="css-89jnbj"><img alt="Phone {slug}"><div class="css-11s9vse"><span class="css-1bjwylw">Phone {slug}</span>
            <div><div class="css-rn1hus"><div>{badge}</div><div>{was}</div></div><div class="css-4u82jy"><span class="css-o5uqvq">{now}</span></div></div><span>Tangerang</span></div></a></div>"#
        )
    };
    let cards = [
        card("reno5", "19%", "Rp4.299.000", "Rp3.499.000"),
        card("a16", "-10%", "Rp2.000.000", "Rp1.800.000"),
        card("x3", "98%", "Rp1.500.000", "Rp1.450.000"),
    ]
    .concat();
    let body = page(&format!(
        r#"<h1>Handphone</h1><div class="grid">{cards}</div>"#
    ));
    let x = run("https://www.toko.example.co.id/p/handphone", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["3499000", "1800000", "1500000"]);
    assert_eq!(get(&x.records[0], "list_price"), Some("4299000"));
}
