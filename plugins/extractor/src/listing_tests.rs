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

fn page(inner: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><title>Shop</title></head><body>
        <header><nav><ul class="menu"><li><a href="/c/tents">Tents</a></li><li><a href="/c/stoves">Stoves</a></li><li><a href="/c/bags">Bags</a></li></ul></nav></header>
        <main>{inner}</main><footer>© Shop</footer></body></html>"#
    )
}

fn names(x: &Extraction) -> Vec<&str> {
    x.records
        .iter()
        .map(|r| get(r, "name").unwrap_or("?"))
        .collect()
}

fn prices(x: &Extraction) -> Vec<&str> {
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

fn simple_cards(n: usize) -> String {
    let cards: String = (1..=n)
        .map(|i| format!(r#"<li class="c"><a href="/p/{i}">Thing {i}</a> <b>{i},00 €</b></li>"#))
        .collect();
    format!("<h1>Things</h1><ul class=\"things\">{cards}</ul>")
}

#[test]
fn pagination_rel_next_and_numbered_pages() {
    let body = page(&format!(
        r#"{}<div class="pagination"><a href="/things?page=1">1</a><span>2</span><a href="/things?page=4">4</a><a href="/things?page=3">3</a><a href="/things?page=3" rel="next">›</a><a href="https://elsewhere.example.org/things?page=5">5</a></div>"#,
        simple_cards(3)
    ));
    let x = run("https://shop.example.de/things?page=2", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 3);
    assert_eq!(
        x.next_pages,
        [
            "https://shop.example.de/things?page=3".to_string(),
            "https://shop.example.de/things?page=4".to_string()
        ]
    );
    assert!(!x.complete);
}

#[test]
fn pagination_link_tag_and_path_pages() {
    let body = page(&simple_cards(3)).replace(
        "<title>Shop</title>",
        r#"<title>Shop</title><link rel="next" href="/things/page/2/">"#,
    );
    let x = run("https://shop.example.de/things/", &body);
    assert_eq!(
        x.next_pages,
        ["https://shop.example.de/things/page/2/".to_string()]
    );
    assert!(!x.complete);
}

#[test]
fn pagination_load_more() {
    let body = page(&format!(
        r#"{}<a class="btn" href="/things?p=2&amp;sort=new">Load more</a><button class="more" data-url="/things?p=3">Show more</button><a href="/things?sort=price">Sort by price</a>"#,
        simple_cards(3)
    ));
    let x = run("https://shop.example.de/things", &body);
    assert_eq!(
        x.next_pages,
        [
            "https://shop.example.de/things?p=2&sort=new".to_string(),
            "https://shop.example.de/things?p=3".to_string()
        ]
    );
    assert!(!x.complete);
    // Without a page parameter a "load more" link is not a next page.
    let body = page(&format!(
        r#"{}<a href="/things/more">Load more</a>"#,
        simple_cards(3)
    ));
    let x = run("https://shop.example.de/things", &body);
    assert!(x.next_pages.is_empty(), "{:?}", x.next_pages);
    assert!(x.complete);
}

#[test]
fn itemlist_urls_identify_cards_and_their_order() {
    // The ItemList gives the order; nav links to the same products and an
    // unlisted card are not records.
    let body = page(
        r#"<script type="application/ld+json">{"@type":"ItemList","itemListElement":[
        {"@type":"ListItem","position":1,"url":"/p/b"},{"@type":"ListItem","position":2,"url":"/p/a"}]}</script>
        <h1>Pots</h1><div class="row"><div class="cell"><a href="/p/a">Pot A</a><span class="price">5.00 USD</span></div>
        <div class="cell"><a href="/p/b">Pot B</a><span class="price">7.00 USD</span></div></div>"#,
    );
    let x = run("https://pots.example.com/pots", &body);
    assert_eq!(x.kind, PageKind::Listing);
    assert_eq!(names(&x), ["Pot B", "Pot A"]);
    assert_eq!(prices(&x), ["7.00", "5.00"]);
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://pots.example.com/p/b")
    );
}

#[test]
fn a_product_code_labelled_on_every_card_is_a_listing() {
    let cards: String = (1..=4)
        .map(|i| {
            format!(
                r#"<div class="wrap"><a href="/p{i}/napkins-{i}.html">Napkins {i}</a><p>Product Code: 65{i}197</p><p class="grid-price">Price: $18.9{i}</p></div>"#
            )
        })
        .collect();
    let body = page(&format!(
        r#"<h1>Party supplies</h1><div class="grid">{cards}</div>"#
    ));
    let x = run("https://paper.example.com/party.html", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["18.91", "18.92", "18.93", "18.94"]);
    // One labelled code still makes a product page.
    let one = page(
        r#"<h1>Napkins 1</h1><p>Product Code: 650197</p><p class="price">$18.95</p><button>Add to cart</button>"#,
    );
    let x = run("https://paper.example.com/napkins-1.html", &one);
    assert_eq!(x.kind, PageKind::Product, "{:?}", x.notes);
}

#[test]
fn price_filter_of_the_sidebar_is_no_product_of_the_page() {
    let cards: String = (1..=4)
        .map(|i| format!(r#"<li class="item"><a href="/toys/toy-{i}.html">Toy {i}</a><span class="price">{i}4,95 €</span></li>"#))
        .collect();
    let body = format!(
        r#"<html lang="de"><body><div class="main"><div class="col-left sidebar"><div class="block block-layered-nav"><h2>Preis</h2><div class="track-values"><span class="track-value" id="price-value-from">2 €</span><span class="track-value" id="price-value-to">70 €</span></div></div></div>
        <div class="col-main"><h1>Spielzeug</h1><ul class="products">{cards}</ul></div></div></body></html>"#
    );
    let x = run("https://toys.example.de/spielzeug.html", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["14.95", "24.95", "34.95", "44.95"]);
}

#[test]
fn recently_viewed_sidebar_before_the_list_does_not_hide_it() {
    let cards: String = (1..=3)
        .map(|i| format!(r#"<div class="item"><a href="/shop/frame-{i}">Frame {i}</a><span class="price">${i}70.00</span></div>"#))
        .collect();
    let body = format!(
        r#"<html><body><div class="main"><div class="col-left"><div class="block"><h2>Recently Viewed Products</h2><ol><li><a href="/shop/old-frame">Old frame</a></li></ol></div><div class="block"><p>Newsletter</p><p>Sign up for news</p><button>Subscribe</button></div></div>
        <div class="col-main"><h1>Collection</h1><div class="products">{cards}</div></div></div></body></html>"#
    );
    let x = run("https://frames.example.com/shop/collection", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(names(&x), ["Frame 1", "Frame 2", "Frame 3"]);
}

#[test]
fn grid_written_row_by_row_gives_one_record_per_card() {
    let row = |from: usize| -> String {
        let cards: String = (from..from + 3)
            .map(|i| format!(r#"<li class="item"><a href="/p/{i}.html">Item {i}</a><span class="price">{i},50 €</span></li>"#))
            .collect();
        format!(r#"<ul class="products-grid">{cards}</ul>"#)
    };
    let body = page(&format!(
        r#"<h1>Marken</h1><div class="category-products">{}{}{}</div>"#,
        row(1),
        row(4),
        row(7)
    ));
    let x = run("https://shop.example.de/marken.html", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 9, "{:?}", x.records);
    assert_eq!(prices(&x)[8], "9.50");
}

#[test]
fn teaser_cards_with_cart_buttons_are_not_the_page_product() {
    let teaser = |i: usize| {
        format!(
            r#"<div class="teaser"><h2>Top {i}</h2><a href="/produkt/top-{i}/detail.html">Top plant {i}</a><a class="button" href="/cart?add=9{i}">{i}9.95 CHF</a></div>"#
        )
    };
    let cards: String = (1..=5)
        .map(|i| {
            format!(
                r#"<div class="teaser"><a href="/produkt/{i}/detail.html">Plant {i}</a><div class="scale">ab 3 Pack. {i}.50 CHF / Pack.</div><a class="button" href="/cart?add={i}"><span class="label">1{i}.95</span> <span class="currency">CHF</span></a></div>"#
            )
        })
        .collect();
    let body = page(&format!(
        r#"<h1>Suchergebnis</h1><div class="top">{}{}</div><div class="results">{cards}</div>"#,
        teaser(1),
        teaser(2)
    ));
    let x = run("https://garden.example.ch/search.html", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(
        names(&x),
        ["Plant 1", "Plant 2", "Plant 3", "Plant 4", "Plant 5"]
    );
    // The unit price, not the quantity tier; its currency in its own element.
    assert_eq!(prices(&x), ["11.95", "12.95", "13.95", "14.95", "15.95"]);
    assert_eq!(get(&x.records[0], "currency"), Some("CHF"));
}

#[test]
fn cards_whose_currency_stands_in_its_own_element() {
    let cards: String = (1..=3)
        .map(|i| {
            format!(
                r#"<li class="c"><a href="/p/{i}">Thing {i}</a> <b>1{i}.95</b> <b>CHF</b></li>"#
            )
        })
        .collect();
    let body = page(&format!(
        r#"<h1>Things</h1><ul class="things">{cards}</ul>"#
    ));
    let x = run("https://shop.example.ch/things", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["11.95", "12.95", "13.95"]);
}

#[test]
fn quantity_tier_prices_and_sign_like_words() {
    use crate::price::card::is_tier_price;
    assert!(is_tier_price("ab 3 pack. 10.50 chf / pack."));
    assert!(is_tier_price("vanaf 3 pakken € 6,99 / pak"));
    assert!(is_tier_price("from 10 pcs $4.20"));
    assert!(!is_tier_price("ab 3,50 €"));
    assert!(!is_tier_price("from $12.00"));
    assert!(!is_tier_price("about 3 items"));
    assert!(!crate::money::has_currency_mark("1x S/PDIF (optisch)"));
    assert!(crate::money::has_currency_mark("S/ 20"));
    assert!(crate::money::has_currency_mark("R$ 1.299,00"));
}

#[test]
fn a_page_size_chooser_next_to_the_heading_is_not_a_price() {
    let cards: String = (1..=6)
        .map(|i| format!("<div class=\"product\"><a href=\"/p/item-{i}.html\"><img src=\"/i/{i}.jpg\" alt=\"\"></a><h3><a href=\"/p/item-{i}.html\">Garden Item {i}</a></h3><span class=\"price\">{i}.95 CHF</span></div>"))
        .collect();
    let body = format!("<html><body><h1>Suche nach *</h1><div class=\"pageAmount\"><span>Artikel pro Seite:</span><ul><li><strong>32</strong></li><li><a href=\"?pageSize=60\">60</a></li><li><a href=\"?pageSize=96\">96</a></li></ul></div><div class=\"list\">{cards}</div></body></html>");
    let x = run("https://shop.example/search/result.html", &body);
    assert_eq!(x.kind, PageKind::Listing, "{x:?}");
    assert_eq!(x.records.len(), 6);
    assert_eq!(get(&x.records[0], "price"), Some("1.95"));
}

/// A listing of six cards, each `card(i)` inside a product grid.
fn grid(card: impl Fn(usize) -> String) -> String {
    let cards: String = (1..=6).map(card).collect();
    format!("<html><body><h1>Results</h1><ul class=\"results\">{cards}</ul></body></html>")
}

#[test]
fn cents_set_apart_are_part_of_the_price() {
    let body = grid(|i| {
        format!(
        "<li class=\"item\"><a href=\"/p/{i}\">Item {i}</a> <span class=\"sx-price\"><sup class=\"sx-price-currency\">$</sup><span class=\"sx-price-whole\">6{i}</span><sup class=\"sx-price-fractional\">99</sup></span> <span class=\"reviews\">(13{i})</span></li>"
    )
    });
    let x = run("https://shop.example/s?k=items", &body);
    assert_eq!(x.kind, PageKind::Listing);
    assert_eq!(
        get(&x.records[0], "price"),
        Some("61.99"),
        "{:?}",
        x.records[0]
    );
    let body = grid(|i| {
        format!(
        "<li class=\"item\"><a href=\"/p/{i}\">Item {i}</a><div class=\"price\"><span class=\"price__format\">$</span>1{i}<span class=\"price__format\">97</span></div><span>({i}38)</span></li>"
    )
    });
    let x = run("https://shop.example/s?k=items", &body);
    assert_eq!(
        get(&x.records[2], "price"),
        Some("13.97"),
        "{:?}",
        x.records[2]
    );
}

#[test]
fn a_struck_former_price_and_a_discount_named_current_one() {
    let body = grid(|i| {
        format!(
        "<li class=\"deal\"><a href=\"/deals/{i}\">Deal {i}</a><div class=\"prices\"><s class=\"price-original\">C$78</s> <span class=\"price-discount\">C$2{i}.99</span></div></li>"
    )
    });
    let x = run("https://deals.example/browse", &body);
    assert_eq!(
        get(&x.records[0], "price"),
        Some("21.99"),
        "{:?}",
        x.records[0]
    );
    // A typography class ("font-size--regular") says nothing about the price.
    let body = grid(|i| {
        format!(
        "<li class=\"tile\"><a href=\"/pd/{i}\">Shoe {i}</a><div class=\"product-price font-size--regular\"><span class=\"overridden\">$56.25</span><span class=\"local\">$3{i}.97</span></div></li>"
    )
    });
    let x = run("https://store.example/search", &body);
    assert_eq!(
        get(&x.records[0], "price"),
        Some("31.97"),
        "{:?}",
        x.records[0]
    );
}

#[test]
fn many_offers_that_name_no_product_are_a_listings_cards() {
    let body = grid(|i| {
        format!(
        "<li class=\"productThumbnail\"><div itemprop=\"offers\" itemscope itemtype=\"http://schema.org/Offer\"><meta itemprop=\"price\" content=\"179.99\"><meta itemprop=\"priceCurrency\" content=\"USD\"><link itemprop=\"url\" href=\"http://www.shop.example\"></div><div class=\"shortDescription\"><a href=\"/shop/product/watch-{i}\">Watch {i}</a></div><div class=\"prices\"><span class=\"colorway-price\"><span class=\"first-range\">CAD 3{i}.42</span></span></div></li>"
    )
    });
    let x = run(
        "https://www.shop.example/shop/search?keyword=watches",
        &body,
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6);
    assert_eq!(
        get(&x.records[0], "price"),
        Some("31.42"),
        "{:?}",
        x.records[0]
    );
    assert_eq!(get(&x.records[0], "currency"), Some("CAD"));
}

#[test]
fn a_card_with_another_wrapper_class_and_a_members_price() {
    // Five cards a row, the last one classed for its border; a members'
    // price shown before everyone's.
    let cell = |i: usize| {
        let class = if i % 5 == 4 {
            " class=\"productContainerNoBorder\""
        } else {
            ""
        };
        format!(
            "<td{class}><a href=\"/catalog/products/{i}\"><span class=\"prodName\">BILLY {i}</span><div class=\"prodFamily\">IKEA FAMILY</div><div class=\"prodPriceFamily\">$1{i}.99</div><span class=\"prodPrice\">$2{i}.99</span></a></td>"
        )
    };
    let rows: String = (0..2)
        .map(|r| {
            format!(
                "<tr>{}</tr>",
                (0..5).map(|c| cell(r * 5 + c)).collect::<String>()
            )
        })
        .collect();
    let body =
        format!("<html><body><h1>Search</h1><table class=\"results\">{rows}</table></body></html>");
    let x = run("https://www.shop.example/ca/en/search/?query=billy", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 10, "{:?}", x.records);
    assert_eq!(get(&x.records[4], "name"), Some("BILLY 4"));
    assert_eq!(
        get(&x.records[0], "price"),
        Some("20.99"),
        "{:?}",
        x.records[0]
    );
}

#[test]
fn a_code_after_its_label_is_no_price() {
    let body = grid(|i| {
        format!(
        "<li class=\"item-cell\"><a class=\"item-title\" href=\"/p/N82E1{i}\">Wagon Cart {i}</a><ul class=\"item-features\"><li><strong>Model #: </strong>TL2916{i}RE</li></ul><div class=\"item-action\"><ul class=\"price\"><li class=\"price-current\">$<strong>5{i}</strong><sup>.95</sup></li></ul></div></li>"
    )
    });
    let x = run(
        "https://www.shop.example/Product/ProductList.aspx?N=1",
        &body,
    );
    assert_eq!(
        get(&x.records[0], "price"),
        Some("51.95"),
        "{:?}",
        x.records[0]
    );
    assert_eq!(get(&x.records[0], "currency"), Some("USD"));
    assert!(crate::price::card::is_code_label("Model #: "));
    assert!(!crate::price::card::is_code_label(
        "Skinny High Ankle Jeans"
    ));
}

#[test]
fn a_list_inside_a_wrapper_named_for_its_filters_and_a_taka_sign_apart() {
    let cards: String = (1..=6)
        .map(|i| format!(
            "<div class=\"col-sm-3\"><div class=\"product-one\"><a href=\"/product-detail/phone-{i}\"><h4 class=\"product-title\">Phone {i}</h4><p class=\"product-price\"><span>৳<!-- -->3{i},999</span> <s>৳<!-- -->40,499</s></p></a></div></div>"
        ))
        .collect();
    let body = format!(
        "<html><head><meta property=\"og:type\" content=\"category\"></head><body><section class=\"product-filter pt-50\"><div class=\"container\"><div class=\"row\"><div class=\"filter-left-bar col-sm-2\"><h4>Filter</h4></div><div class=\"product-listing-main col-sm-10\"><h3>Smartphones</h3><div class=\"row\">{cards}</div></div></div></div></section><h1>Smartphone Price in Bangladesh</h1></body></html>"
    );
    let x = run("https://www.shop.example/category/smartphone", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6);
    assert_eq!(
        get(&x.records[0], "price"),
        Some("31999"),
        "{:?}",
        x.records[0]
    );
    assert_eq!(get(&x.records[0], "currency"), Some("BDT"));
}
