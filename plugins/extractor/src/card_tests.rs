//! Listing cards: names, prices, stock and links of the cards of a list
//! (page kinds and pagination: `listing_tests`).

use crate::listing_tests::{get, names, page, prices, run, simple_cards};
use crate::PageKind;

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

#[test]
fn a_sum_in_a_headline_is_no_price_and_a_name_with_its_price_still_is() {
    // Teasers whose only amount is inside the headline sentence.
    let teasers: String = [
        "Construction worker dad scoops £54,000 on £1 bet at the casino",
        "Cute refurbished town centre cottage may sell for as little as £60,000",
        "Couple banned from cruise lose £3,500 because of a little-known rule",
    ]
    .iter()
    .enumerate()
    .map(|(i, h)| {
        format!(r#"<div class="teaser"><a href="/news/story-{i}"><h3>{h}</h3></a><p>Local news</p></div>"#)
    })
    .collect();
    let x = run("https://paper.example.co.uk/news/", &page(&teasers));
    assert!(
        x.records.iter().all(|r| get(r, "price").is_none()),
        "{:?}",
        prices(&x)
    );
    // A short name that carries the price keeps it as the price.
    let cards: String = (1..=3)
        .map(|i| {
            format!(r#"<div class="card"><a href="/p/lamp-{i}"><span>Desk lamp {i}</span> <span>£{i}9.99</span></a></div>"#)
        })
        .collect();
    let x = run("https://shop.example.co.uk/lamps/", &page(&cards));
    assert_eq!(prices(&x), ["19.99", "29.99", "39.99"], "{:?}", names(&x));
}

#[test]
fn two_equal_groups_of_cards_go_to_the_one_that_comes_first_on_every_run() {
    // Two shapes of card side by side under one parent, as many of each:
    // the list is the first group, whatever order a hash map keeps.
    let first: String = (1..=3)
        .map(|i| format!(r#"<div class="tile-a"><a href="/p/kettle-{i}">Kettle {i}</a><span class="price">€{i}9,00</span></div>"#))
        .collect();
    let second: String = (1..=3)
        .map(|i| format!(r#"<p class="tile-b"><a href="/p/toaster-{i}">Toaster {i}</a><span class="price">€{i}5,00</span></p>"#))
        .collect();
    let body = page(&format!(r#"<div class="grid">{first}{second}</div>"#));
    for _ in 0..20 {
        let x = run("https://shop.example.de/kitchen/", &body);
        assert_eq!(
            names(&x)[..3],
            ["Kettle 1", "Kettle 2", "Kettle 3"],
            "{:?}",
            x.notes
        );
    }
}

#[test]
fn an_articles_cards_with_bare_numbers_are_no_products() {
    // A news article's coupons or teasers: numbers in price-named elements,
    // no currency of their own.
    let cards: String = (1..=6)
        .map(|i| {
            format!(
                r#"<div class="coupon"><a href="/coupon/detail/{i}">Restaurant {i}</a><span class="price">{}</span></div>"#,
                i * 50
            )
        })
        .collect();
    let article = r#"<title>News</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"City news"}</script>"#;
    let body = page(&format!(
        r#"<h1>City news</h1><div class="coupons">{cards}</div>"#
    ))
    .replace("<title>Shop</title>", article);
    let x = run("https://paper.example.jp/world/20231102/", &body);
    assert_eq!(x.kind, PageKind::Other, "{:?} {:?}", x.notes, prices(&x));
    // With their currency, a buying guide's offers stay a list.
    let body = body.replace(r#"<span class="price">"#, r#"<span class="price">€ "#);
    let x = run("https://paper.example.jp/world/20231102/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
}

/// A card's vector images are icons (a wishlist heart before the photo):
/// the card's picture is its first raster image.
#[test]
fn a_card_s_picture_is_no_vector_icon() {
    let cards: String = (1..=3)
        .map(|i| {
            format!(
                r#"<div class="tile"><a href="/p/lamp-{i}"><button class="wish"><img src="/icons/wishlist.svg?v=2" alt="wishlist"></button><img src="/img/lamp-{i}.jpg" alt="Lamp {i}"></a><h3>Lamp {i}</h3><span class="price">{i}9,00 €</span></div>"#
            )
        })
        .collect();
    let x = run(
        "https://shop.example.de/c/lamps",
        &page(&format!(r#"<h1>Lamps</h1><div class="grid">{cards}</div>"#)),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(
        get(&x.records[1], "image"),
        Some("https://shop.example.de/img/lamp-2.jpg")
    );
}

/// A store card's price first (`data-cmr-price`), then everyone's final
/// price: everyone's is the card's price.
#[test]
fn a_store_card_s_price_is_no_one_else_s() {
    let cards: String = [("19089838", "1.359.900", "1.519.900"), ("19089839", "999.900", "1.099.900"), ("19089840", "2.199.900", "2.399.900")]
        .iter()
        .map(|(id, card, everyone)| {
            format!(
                r#"<div class="pod"><a href="/falabella-co/product/{id}/nevera"><b class="pod-title">Nevera {id}</b></a><ol class="pod-prices"><li data-cmr-price="{card}" class="prices-0"><div class="cmr-icon-container"><span class="copy10">$ {card} </span><i class="unica-cmr-icon"></i></div></li>
                <li data-internet-price="{everyone}" class="prices-1"><div><span class="copy4">$ {everyone} (Precio final)</span></div></li></ol></div>"#
            )
        })
        .collect();
    let x = run(
        "https://www.tienda.example.com.co/category/neveras",
        &page(&format!(
            r#"<h1>Neveras</h1><div class="grid">{cards}</div>"#
        )),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["1519900", "1099900", "2399900"]);
}

/// A card whose price box gives the package's size first ("250g", "12pk",
/// "2 x 62g" in an element named for the amount) and the price with its
/// decimal mark ending the whole part's element ("$4." then "69").
#[test]
fn a_package_size_is_no_price_and_cents_follow_a_trailing_mark() {
    let cards: String = [("cheese-250g", "250g", "4", "69"), ("yoghurt-4x115g", "4x115g", "3", "49"), ("mousse-12pk", "12pk", "5", "99"), ("crepes", "8pk/480g", "3", "99")]
        .iter()
        .map(|(slug, size, whole, cents)| {
            format!(
                r#"<a class="box--wrapper" href="/p/{slug}/"><div class="box--description--header">Item {slug}</div><div class="box--price"><span class="hideme">Unit</span><span class="box--amount">{size}</span><span class="hideme">Current Price</span><span class="box--value">${whole}.</span><span class="box--decimal">{cents}</span> <span class="box--baseprice">$18.76 per kg</span></div></a>"#
            )
        })
        .collect();
    let x = run(
        "https://www.grocer.example.com.au/dairy/",
        &page(&format!(r#"<h1>Dairy</h1><div class="grid">{cards}</div>"#)),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["4.69", "3.49", "5.99", "3.99"]);
}

/// A category shown in headed sections, each heading in a block of its own
/// and each grid of the same cards in a block of its own: every section's
/// cards are the list, not only the largest section's.
#[test]
fn the_cards_of_every_headed_section_of_a_category() {
    let section = |name: &str, n: usize| -> String {
        let cards: String = (1..=n)
            .map(|i| {
                format!(
                    r#"<a class="card" href="/p/{name}-{i}/"><div class="title">{name} {i}</div><span class="price">${i}.49</span></a>"#
                )
            })
            .collect();
        format!(
            r#"<div class="block"><h2>{name}</h2><p>All about {name}.</p></div><div class="block"><div class="products"><div class="grid">{cards}</div></div></div>"#
        )
    };
    let body = page(&format!(
        r#"<h1>Dairy</h1><article id="main">{}{}{}</article>"#,
        section("Milk", 3),
        section("Cheese", 5),
        section("Butter", 2)
    ));
    let x = run("https://www.grocer.example.com.au/dairy/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 10, "{:?}", names(&x));
    assert_eq!(get(&x.records[0], "name"), Some("Milk 1"));
    assert_eq!(get(&x.records[9], "name"), Some("Butter 2"));
}

/// A grid written as one element per row, each row's cards inside a
/// wrapper that is the row's only child: every card, not one per row.
#[test]
fn the_cards_of_rows_wrapped_once_more() {
    let row = |r: usize| -> String {
        let cards: String = (1..=4)
            .map(|i| {
                let n = r * 4 + i;
                format!(
                    r#"<div><div class="tile"><a class="link" href="/p/watch-{n}"><img src="/i/{n}.jpg" alt="Watch {n}"><div class="title">Watch {n}</div><div class="price">₹{n}79</div></a></div></div>"#
                )
            })
            .collect();
        format!(r#"<div class="row"><div class="cols">{cards}</div></div>"#)
    };
    // Fewer rows than cards in a row, and more.
    for n in [3, 6] {
        let rows: String = (0..n).map(row).collect();
        let x = run(
            "https://www.market.example.in/search?q=watch",
            &page(&format!(
                r#"<h1>Watches</h1><div class="results">{rows}</div>"#
            )),
        );
        assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
        assert_eq!(x.records.len(), n * 4, "{:?}", names(&x));
        assert_eq!(get(&x.records[1], "name"), Some("Watch 2"));
        assert_eq!(get(&x.records[1], "price"), Some("279"));
    }
}

/// Markup that names only the first cards of the grid (the top three of
/// twelve): the rest of the grid's cards follow them.
#[test]
fn markup_naming_the_first_cards_leaves_the_rest_of_the_grid_in() {
    let products: Vec<String> = (1..=3)
        .map(|i| {
            format!(
                r#"{{"@context":"https://schema.org","@type":"Product","name":"Console {i}","url":"https://www.loja.example.com.br/produto/{i}/console","offers":{{"@type":"Offer","price":"{i}99.00","priceCurrency":"BRL"}}}}"#
            )
        })
        .collect();
    let cards: String = (1..=12)
        .map(|i| {
            format!(
                r#"<a class="card" href="/produto/{i}/console"><span class="name">Console {i}</span><span class="price">R$ {i}99,00</span></a>"#
            )
        })
        .collect();
    let body = page(&format!(
        r#"<script type="application/ld+json">[{}]</script><h1>Consoles</h1><main>{cards}</main>"#,
        products.join(",")
    ));
    let x = run("https://www.loja.example.com.br/busca/console", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 12, "{:?}", names(&x));
    assert_eq!(get(&x.records[11], "name"), Some("Console 12"));
    assert_eq!(get(&x.records[11], "price"), Some("1299.00"));
}

/// A card's price and, labelled apart, the same with the tax included
/// (the label before the currency mark's own element): the latter is what
/// the shopper pays.
#[test]
fn the_price_with_tax_included_over_the_one_before_tax() {
    let cards: String = [(1, "4,800", "5,280"), (2, "8,000", "8,800"), (3, "3,300", "3,630")]
        .iter()
        .map(|(i, net, gross)| {
            format!(
                r#"<li class="item"><a href="/c/p/{i}"><span class="name">Pad {i}</span></a><div class="productPrice"><span class="label">特価</span><span class="mark">¥</span><span class="value">{net}</span><span class="addon">消費税込</span><span class="mark">¥</span><span class="value">{gross}</span></div></li>"#
            )
        })
        .collect();
    let x = run(
        "https://www.gakki.example.jp/p/search",
        &page(&format!(
            r#"<h1>検索結果</h1><ul class="list">{cards}</ul>"#
        )),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["5280", "8800", "3630"]);
}

/// A category of two products beside a side block of four best sellers
/// headed in Ukrainian; each card's badge advertises a service for 1 ₴:
/// the two are the list, and the badge's amount is no price.
#[test]
fn a_badge_s_amount_and_a_best_sellers_block_are_not_the_list_s() {
    let card = |id: u32, price: &str| {
        format!(
            r#"<div class="product"><div class="image_wrap"><a href="/ua/product/p{id}/"><img src="/i/{id}.jpg" alt="Drive {id}"></a><div class="badge promo"><a href="/category/c1/">Збірка сервера: 1₴</a></div></div><h5><a href="/ua/product/p{id}/"><span>Drive {id}</span></a></h5><div class="pricing"><span class="price">{price} ₴</span></div></div>"#
        )
    };
    let side: String = (1..=4)
        .map(|i| {
            format!(
                r#"<div class="side_item"><a href="/ua/product/s{i}/">Hit {i}</a><span class="price">{i}99 ₴</span><s class="old">{i}50 ₴</s></div>"#
            )
        })
        .collect();
    let body = page(&format!(
        r#"<h1>Оптичні приводи</h1><div class="side_block"><div class="title">Хіти продажів</div><div class="side_products">{side}</div></div><div id="product-list">{}{}</div>"#,
        card(62837, "462"),
        card(116151, "2 495")
    ));
    let x = run("https://exe.example.ua/ua/category/c51464/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(names(&x), ["Drive 62837", "Drive 116151"]);
    assert_eq!(prices(&x), ["462", "2495"]);
}

/// A price below one dollar written as its cents and a "c" in an element
/// of its own ("69" "c"): hundredths of the page's currency.
#[test]
fn cents_and_a_cent_sign_apart_are_a_price_below_one() {
    let cards: String = [("yoghurt", "<span class=\"box--value\">69</span><span class=\"box--decimal\"></span><span class=\"box--value\">c</span>"), ("milk", "<span class=\"box--value\">$2.</span><span class=\"box--decimal\">29</span>"), ("cream", "<span class=\"box--value\">$1.</span><span class=\"box--decimal\">99</span>"), ("butter", "<span class=\"box--value\">$3.</span><span class=\"box--decimal\">49</span>")]
        .iter()
        .map(|(slug, price)| {
            format!(
                r#"<a class="box--wrapper" href="/p/{slug}/"><div class="box--description--header">Item {slug}</div><div class="box--price"><span class="box--amount">ea</span>{price}</div></a>"#
            )
        })
        .collect();
    let x = run(
        "https://www.grocer.example.com.au/dairy/",
        &page(&format!(r#"<h1>Dairy</h1><div class="grid">{cards}</div>"#)),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["0.69", "2.29", "1.99", "3.49"]);
    assert_eq!(get(&x.records[0], "currency"), Some("AUD"));
}

/// A bare figure in the price's element, which also holds another offer's
/// labelled amount in an element of its own ("699" then "Outletista
/// alkaen 604€"): the figure is the card's price.
#[test]
fn another_offer_s_amount_inside_the_price_element_is_not_the_price() {
    let cards: String = [("1", "699", "604"), ("2", "1499", "1404"), ("3", "899", "774")]
        .iter()
        .map(|(i, price, outlet)| {
            format!(
                r#"<div class="tile"><a class="product-name" href="/product/laptops/L{i}/laptop-{i}">Laptop {i}</a><div class="product-price">{price}<div class="amount-of-offers"><span>Outletista alkaen {outlet}€</span></div></div><span class="sales-point">Norm. hinta 1099</span></div>"#
            )
        })
        .collect();
    let x = run(
        "https://www.shop.example.fi/catalog/laptops",
        &page(&format!(
            r#"<h1>Kannettavat</h1><div class="grid">{cards}</div>"#
        )),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["699", "1499", "899"]);
}

/// A store card's price, everyone's price and the normal one struck, each
/// container named for the store card ("cmr-icon-container") and each item
/// by a data attribute of its kind: the kind says whose price it is.
#[test]
fn the_data_attribute_of_a_price_says_whose_it_is() {
    let cards: String = [("149215025", "2,799", "2,899", "3,299"), ("149215026", "2,599", "2,699", "3,099"), ("149215027", "3,049", "3,149", "3,599")]
        .iter()
        .map(|(id, card, everyone, normal)| {
            format!(
                r#"<div class="pod"><a href="/tienda/articulo/{id}/iphone"><b class="pod-subTitle">Iphone {id}</b></a><ol class="pod-prices"><li data-cmr-price="{card}" class="prices-0"><div class="cmr-icon-container"><i class="unica-cmr-icon"></i><span class="copy10">S/  {card}  </span></div></li><li data-internet-price="{everyone}" class="prices-1"><div class="cmr-icon-container"><span class="copy10">S/  {everyone}  </span></div></li><li data-normal-price="{normal}" class="prices-2"><div class="cmr-icon-container"><span class="copy3 crossed" style="text-decoration: line-through">S/  {normal}  </span></div></li></ol></div>"#
            )
        })
        .collect();
    let x = run(
        "https://www.tienda.example.com.pe/buscar?Ntt=iphone",
        &page(&format!(
            r#"<h1>iphone</h1><div class="grid">{cards}</div>"#
        )),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["2899", "2699", "3149"]);
}

/// A card that shows the price before tax and the tax apart (elements
/// named "--unit" and "--taxes") before the price: the price.
#[test]
fn an_amount_named_for_the_taxes_is_no_price() {
    let cards: String = [("1", "3.140.23", "502.44", "3.096.27"), ("2", "1.586.65", "253.86", "1.840.51"), ("3", "2.000.00", "320.00", "2.320.00")]
        .iter()
        .map(|(i, net, tax, price)| {
            format!(
                r#"<div class="product-card"><a href="/producto/{i}-champu"><p class="product-card__title">Champu {i}</p><div class="product-card__price-box"><div class="product-card__additional-price"><p class="product-card__price-text product-card__price-text--unit">Bs.{net}</p><p class="product-card__price-text product-card__price-text--taxes">I.V.A Bs.{tax}</p></div><p class="product-card__price-row"><span class="product-card__price-value">Bs.{price}</span></p></div></a></div>"#
            )
        })
        .collect();
    let x = run(
        "https://www.farmacia.example.com/buscar?product=champu",
        &page(&format!(
            r#"<h1>champu</h1><div class="grid">{cards}</div>"#
        )),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["3096.27", "1840.51", "2320.00"]);
}

/// A price "with the shop's card" or "account" written after it, in words
/// of a language with cases ("c Shop Счётом"): a members' price, not
/// everyone's.
#[test]
fn a_price_with_the_shops_card_after_it_is_a_members_price() {
    let cards: String = [("11", "964", "999", "1 189"), ("12", "482", "500", "590"), ("13", "136", "145", "160")]
        .iter()
        .map(|(id, card, everyone, normal)| {
            format!(
                r#"<div class="tile"><a href="/product/moloko-{id}/"><span>Молоко {id}</span></a><div class="p1"><div class="p2">{card}&thinsp;₽</div><div class="p3">c&nbsp;Shop&nbsp;Счётом</div></div><div class="p4"><span class="p5">{everyone}&thinsp;₽</span><span class="p6">{normal}&thinsp;₽</span></div></div>"#
            )
        })
        .collect();
    let x = run(
        "https://www.shop.example.ru/category/moloko/",
        &page(&format!(
            r#"<h1>Молоко</h1><div class="grid">{cards}</div>"#
        )),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["999", "500", "145"]);
}

/// A price per kilogram written in Cyrillic ("659 ₽" "/кг"), and again as
/// the tier from one kilogram ("659 ₽" "от" "1 кг"), beside the pack's total
/// ("593.10 ₽ / 0.9 кг"): the pack's total is the price.
#[test]
fn a_price_per_kilogram_in_cyrillic_is_a_comparison() {
    let cards: String = [("1", "659", "593.10", "0.9"), ("2", "799", "1438.20", "1.8"), ("3", "725", "435", "0.6"), ("4", "289", "289", "1")]
        .iter()
        .map(|(id, per_kg, total, kg)| {
            format!(
                r#"<div class="catalog-item"><a href="/category/myaso/{id}" class="catalog-item_name">Мясо {id}</a><div class="catalog-item_price-current">{per_kg} <i class="ruble-symbol">₽</i><span>/кг</span></div><div class="catalog-item_in-pack"><span class="catalog-item_in-pack_total-price">{total}&nbsp;<i class="ruble-symbol">₽</i></span> / {kg} кг</div><div class="catalog-item_cost"><div class="catalog-item_price-lvl_current">{per_kg} <i class="ruble-symbol">₽</i></div><div class="catalog-item_discount-lvl"> от <b> 1 кг </b></div></div></div>"#
            )
        })
        .collect();
    let x = run(
        "https://online.shop.example.ru/search?q=мясо",
        &page(&format!(r#"<h1>Мясо</h1><div class="grid">{cards}</div>"#)),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    // A pack of one kilogram: every amount is per kilogram, and that is
    // its price.
    assert_eq!(prices(&x), ["593.10", "1438.20", "435", "289"]);
}

/// A saving written as an amount taken off ("After $6 OFF") under the
/// price, in an element named for the promotion: the price stands.
#[test]
fn an_amount_taken_off_is_a_saving() {
    let body = grid(|i| {
        format!(
            "<li class=\"product-tile\"><a href=\"/towel-{i}.product.10075429{i}.html\">Towel {i}, 2-pack</a><div class=\"price\"> $2{i}.99 </div><p class=\"promo\"> After ${i} OFF </p></li>"
        )
    });
    let x = run("https://www.store.example.com/s?keyword=towel", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[..3], ["21.99", "22.99", "23.99"]);
}

/// A card through the euro's changeover: every amount in levs and in euros
/// ("389.21 лв./ 199 €"), the saving on a badge named for it ("разлика"),
/// the former price in a block named "old-price" past unnamed wrappers.
/// The price is the current one in euros.
#[test]
fn a_changeover_card_in_two_currencies_is_priced_in_euros() {
    let dual = |bgn: &str, eur: &str| {
        format!(
            r#"<tm-price><span class="bgn_price">{bgn} лв.<span class="divider">/</span></span><span class="euro_price"> {eur} €<span class="divider">/</span></span></tm-price>"#
        )
    };
    let cards: String = [("09240876", "58.67", "30", "447.89", "229", "389.21", "199"), ("09231681", "158.62", "81", "939.00", "480.10", "780.38", "399"), ("09212673", "215.14", "110", "1093.40", "559", "878.19", "449"), ("09210001", "20.00", "10.23", "120.00", "61.36", "100.00", "51.13")]
        .iter()
        .map(|(id, save_bgn, save_eur, old_bgn, old_eur, bgn, eur)| {
            format!(
                r#"<tm-product-item data-product="{id}"><a class="product-image" href="/peralni/neo-{id}"><img src="/img/{id}.webp" alt="WM-{id}"></a><a class="title" href="/peralni/neo-{id}"><span class="type">ПЕРАЛНЯ </span><span class="name">WM-{id}</span></a><div class="badges"><div class="badge badge-savings">разлика&nbsp;{save}</div></div><div class="price-block promo"><div class="old-price"><tm-tooltip data-tooltip="ПЦ">ПЦ:{old}</tm-tooltip></div><div class="price"><span>{now}</span></div></div><button class="add-cart">Добави</button></tm-product-item>"#,
                save = dual(save_bgn, save_eur),
                old = dual(old_bgn, old_eur),
                now = dual(bgn, eur),
            )
        })
        .collect();
    let x = run(
        "https://www.shop.example.bg/promocii/ot-broshurata",
        &page(&format!(
            r#"<h1>Промоции</h1><div class="grid">{cards}</div>"#
        )),
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x), ["199", "399", "449", "51.13"]);
    assert_eq!(get(&x.records[0], "currency"), Some("EUR"));
}

/// Cents in an element of their own that begins with the decimal mark
/// (".49" after "8", the currency after them), in blocks named only for
/// their layout: the price is 8.49.
#[test]
fn cents_that_begin_with_their_decimal_mark_join_the_whole_amount() {
    let body = grid(|i| {
        format!(
            r#"<li class="relative"><a href="/en/carrots/carrots-{i}/p/61741{i}"><img src="/i/{i}.jpg"></a><a href="/en/carrots/carrots-{i}/p/61741{i}"><div class="text-sm"><span>Carrots {i}</span></div></a><div class="flex items-center"><div class="text-lg font-bold">{i}</div><div class="ml-px flex flex-col"><div class="text-2xs font-bold">.49</div><div class="text-2xs">AED</div></div></div></li>"#
        )
    });
    let x = run(
        "https://www.shop.example.com/en/search?keyword=carrots",
        &body,
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[..2], ["1.49", "2.49"]);
    assert_eq!(get(&x.records[0], "currency"), Some("AED"));
}

/// A classified ad's card that sets its price large in a heading named for
/// the price ("<h3 class=adcard__price>R$ 600"), under the former price:
/// the heading's amount is the price, not part of the ad's name.
#[test]
fn a_heading_named_for_the_price_holds_the_price() {
    let body = grid(|i| {
        format!(
            r#"<li class="olx-adcard"><a href="/informatica/computador-dell-{i}-12345{i}"><h2 class="olx-adcard__title">Computador Dell {i}</h2></a><div class="olx-adcard__mediumbody"><p class="typo-caption olx-adcard__old-price">R$ 6{i}0</p><h3 class="typo-body-large olx-adcard__price">R$ 5{i}0</h3><span class="typo-caption">em até 3x de R$ 200,00 sem juros</span></div></li>"#
        )
    });
    let x = run(
        "https://www.classificados.example.com.br/estado-sp?q=dell",
        &body,
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[..2], ["510", "520"]);
    // The heading inside a block named for the price, beside a note of the
    // warranty's years in the same block.
    let body = grid(|i| {
        format!(
            r#"<li class="sui-AtomCard"><a class="mt-CardBasic-titleLink" href="/mercedes-benz-sprinter-{i}-covo.aspx"><h2 class="mt-CardAd-infoHeaderTitle">Sprinter {i}</h2></a><div class="mt-CardAdPrice"><div class="mt-CardAdPrice-cashAmount"><div class="mt-TitleBasic-titleWrapper"><h3 class="mt-TitleBasic-title">3{i}.900&nbsp;€</h3></div></div><div class="mt-CardAdPrice-info"><span class="mt-CardAdPrice-infoItem">Garantía 1 año</span></div></div></li>"#
        )
    });
    let x = run("https://www.coches.example.es/segunda-mano/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[..2], ["31900", "32900"]);
}

/// A card out of stock that shows a figure of nothing ("0 Р" beside "Out of
/// stock" and a pre-order button) has no price; a free card keeps its zero.
#[test]
fn a_zero_on_a_card_out_of_stock_is_no_price() {
    let body = grid(|i| {
        let (price, stock) = if i % 2 == 0 {
            ("0", "Out of stock")
        } else {
            ("45", "In stock")
        };
        format!(
            r#"<li class="cataloge__item"><a href="/catalog/gazel/bolt-{i}"><img src="/i/{i}.jpg" alt="Bolt {i}"></a><h3 class="cataloge__title"><a href="/catalog/gazel/bolt-{i}">Bolt {i}</a></h3><p class="in_store__line">{stock}</p><p class="cataloge__price"><span class="c__price">{price}</span> <span class="c__cur"> Р</span></p><button type="submit">Order</button></li>"#
        )
    });
    let x = run("https://shop.example.ru/search?q=bolt", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "price"), Some("45"));
    assert_eq!(get(&x.records[1], "price"), None, "{:?}", x.records[1]);
    assert_eq!(get(&x.records[1], "availability"), Some("OutOfStock"));
}
