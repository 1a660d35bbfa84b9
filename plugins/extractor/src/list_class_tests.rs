//! One small page per class of miss seen on shops the rules were not
//! written against, for which list is the page's: the main list among
//! rails and tiles, lists that live only in page state, markup items and
//! the cards they describe, classified ads.

use crate::class_tests::{grid, prices};
use crate::listing_tests::{get, run};
use crate::PageKind;
use serde_json::json;

#[test]
fn a_row_of_category_tiles_does_not_join_a_list() {
    // Tiles that lead elsewhere (other path depth) stay out.
    let mut body = grid("en", |i| {
        format!("<li class=\"card\"><a href=\"/p/item-{i}\">Lamp {i}</a><span class=\"price\">${i}9.00</span></li>")
    });
    body = body.replace(
        "</ul>",
        "<li class=\"card\"><a href=\"/c/lamps/floor/all\">All floor lamps</a></li></ul>",
    );
    let x = run("https://lamps.example.com/c/lamps", &body);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
}

#[test]
fn a_featured_rail_is_not_the_main_list() {
    let rail: String = (1..=4)
        .map(|i| format!("<div class=\"tile\"><a href=\"/p/best-{i}\">Best seller {i}</a><span class=\"price\">$9{i}.00</span></div>"))
        .collect();
    let main: String = (1..=3)
        .map(|i| format!("<li class=\"product\"><a href=\"/p/tent-{i}\">Tent {i}</a><span class=\"price\">${i}49.00</span></li>"))
        .collect();
    let body = format!(
        "<html lang=\"en\"><body><h1>Tents</h1><section><h2>Best sellers</h2><div class=\"rail\">{rail}</div></section><ul class=\"products\">{main}</ul></body></html>"
    );
    let x = run("https://gear.example.com/tents", &body);
    let names: Vec<_> = x.records.iter().filter_map(|r| get(r, "name")).collect();
    assert_eq!(names, ["Tent 1", "Tent 2", "Tent 3"], "{:?}", x.notes);
}

#[test]
fn a_list_that_lives_only_in_page_state_is_read() {
    let state = json!({
        "props": {"catalog": {"hits": [
            {"title": "Trail Shoe", "url": "/trail-shoe", "priceInfo": {"amount": 89.5, "currencyCode": "EUR"}},
            {"title": "Road Shoe", "url": "/road-shoe", "priceInfo": {"amount": 99, "currencyCode": "EUR"}},
            {"title": "Track Spike", "url": "/track-spike", "priceInfo": {"amount": 120, "currencyCode": "EUR"}}
        ]}}
    });
    let body = format!(
        "<html lang=\"de\"><body><div id=\"app\"></div><script>window.__SHOP_STATE__ = {state};</script></body></html>"
    );
    let x = run("https://shoes.example.com/laufen", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 3, "{:?}", x.records);
    assert_eq!(get(&x.records[0], "name"), Some("Trail Shoe"));
    assert_eq!(get(&x.records[0], "price"), Some("89.5"));
    assert_eq!(get(&x.records[0], "currency"), Some("EUR"));
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://shoes.example.com/trail-shoe")
    );
}

#[test]
fn a_normalized_state_cache_is_a_list() {
    // Apollo-style caches keep products as the values of an object keyed by
    // type and id, not as an array.
    let state = json!({
        "ROOT_QUERY": {"search": {"__ref": "Search:1"}},
        "Product:11": {"__typename": "Product", "name": "Desk Lamp", "url": "/p/desk-lamp", "price": {"value": 24.0, "currency": "USD"}},
        "Product:12": {"__typename": "Product", "name": "Floor Lamp", "url": "/p/floor-lamp", "price": {"value": 64.0, "currency": "USD"}},
        "Product:13": {"__typename": "Product", "name": "Wall Lamp", "url": "/p/wall-lamp", "price": {"value": 34.0, "currency": "USD"}}
    });
    let body = format!(
        "<html lang=\"en\"><body><div id=\"root\"></div><script>window.__APOLLO_STATE__={state}</script></body></html>"
    );
    let x = run("https://lamps.example.com/lamps", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 3, "{:?}", x.records);
    assert_eq!(
        get(&x.records[1], "url"),
        Some("https://lamps.example.com/p/floor-lamp")
    );
}

#[test]
fn app_routes_are_the_cards_addresses() {
    let body = grid("en", |i| {
        format!("<li class=\"block\"><a href=\"#%21/content/6{i}\" class=\"livelink\" title=\"Asset {i}\">Asset {i}</a><span class=\"price\">${i}</span></li>")
    });
    let x = run("https://store.example.com/en/#!/search/query=games", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(
        get(&x.records[1], "url"),
        Some("https://store.example.com/en/#!/content/62")
    );
}

#[test]
fn cards_the_markup_list_leaves_out_are_read_in_page_order() {
    // The page's ItemList names cards 2-6; card 1 (a paid placement) is in
    // the grid in the same shape but not in the markup.
    let items: Vec<String> = (2..=6)
        .map(|i| {
            format!(
                r#"{{"@type":"ListItem","position":{},"item":{{"@type":"Product","name":"Boat {i}","url":"https://boats.example/item/4000{i}","offers":{{"@type":"Offer","price":"{i}0000","priceCurrency":"NOK"}}}}}}"#,
                i - 1
            )
        })
        .collect();
    let ld = format!(
        r#"<script type="application/ld+json">{{"@context":"https://schema.org","@type":"ItemList","itemListElement":[{}]}}</script>"#,
        items.join(",")
    );
    let cards: String = (1..=6)
        .map(|i| {
            format!(
                "<article class=\"card\"><a href=\"/item/4000{i}\"><img src=\"/{i}.jpg\" alt=\"\"><h2>Boat {i}</h2></a><span class=\"price\">{i}0 000 kr</span></article>"
            )
        })
        .collect();
    let body = format!("<html lang=\"no\"><head>{ld}</head><body><h1>Boats</h1><div class=\"grid\">{cards}</div></body></html>");
    let x = run("https://boats.example/search", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    let names: Vec<_> = x.records.iter().map(|r| get(r, "name")).collect();
    assert_eq!(names[0], Some("Boat 1"), "{names:?}");
    assert_eq!(x.records.len(), 6);
    let first: Option<f64> = prices(&x)[0].and_then(|p| p.parse().ok());
    assert_eq!(first, Some(10000.0));
}

#[test]
fn state_paths_under_the_apps_base_take_the_prefix_the_cards_show() {
    // The state writes product paths from the app's base; the site serves
    // the app under /no/shopping, as the cards that are links show.
    let hits: Vec<serde_json::Value> = (1..=4)
        .map(|i| json!({"name": format!("Board {i}"), "url": format!("/pl/cl10/{i}000/Board-{i}/"), "price": {"amount": 100 * i, "currency": "NOK"}}))
        .collect();
    let state = json!({ "search": { "products": hits } });
    let cards: String = (1..=4)
        .map(|i| {
            // Cards 3 and 4 are buttons: their address is only in the state.
            let name = if i <= 2 {
                format!("<a href=\"/no/shopping/pl/cl10/{i}000/Board-{i}/\"><h3>Board {i}</h3></a>")
            } else {
                format!("<button><h3>Board {i}</h3></button>")
            };
            format!("<div class=\"card\">{name}<span class=\"price\">{i}00 kr</span></div>")
        })
        .collect();
    let body = format!(
        "<html lang=\"no\"><body><div class=\"grid\">{cards}</div>\
         <script type=\"application/json\" id=\"initial\">{state}</script></body></html>"
    );
    let x = run(
        "https://shop.example.com/no/shopping/results?q=board",
        &body,
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    let urls: Vec<_> = x.records.iter().map(|r| get(r, "url")).collect();
    assert_eq!(
        urls,
        (1..=4)
            .map(|i| Some(format!(
                "https://shop.example.com/no/shopping/pl/cl10/{i}000/Board-{i}/"
            )))
            .collect::<Vec<_>>()
            .iter()
            .map(|u| u.as_deref())
            .collect::<Vec<_>>()
    );
}

#[test]
fn markup_products_that_point_into_the_page_are_its_cards() {
    // Every product of the markup has the page's own URL with a fragment of
    // its own: they describe the cards, whose links are the products' pages.
    let graph: Vec<serde_json::Value> = (1..=4)
        .map(|i| json!({"@type": "Product", "name": format!("Flat, {i} rooms, 50 m2"), "url": format!("https://homes.example/sale/#search-realty-{i}"), "offers": {"@type": "Offer", "price": format!("{i}9000"), "priceCurrency": "USD"}}))
        .collect();
    let ld = json!([{ "@context": "http://schema.org", "@graph": graph }]);
    let cards: String = (1..=4)
        .map(|i| {
            format!(
                "<section class=\"ticket\" id=\"search-realty-{i}\"><a href=\"/realty-flat-{i}00{i}.html\"><img src=\"/{i}.jpg\" alt=\"\"></a>\
                 <h3><a href=\"/realty-flat-{i}00{i}.html\">Green street {i}</a></h3><b class=\"price\">{i}9 000 $</b></section>"
            )
        })
        .collect();
    let body = format!(
        "<html lang=\"uk\"><head><script type=\"application/ld+json\">{ld}</script></head>\
         <body><h1>Flats for sale</h1><div class=\"results\">{cards}</div></body></html>"
    );
    let x = run("https://homes.example/sale/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 4, "{:?}", x.records);
    assert_eq!(
        get(&x.records[1], "url"),
        Some("https://homes.example/realty-flat-2002.html")
    );
    assert_eq!(get(&x.records[1], "name"), Some("Green street 2"));
}

#[test]
fn two_sellers_items_of_one_name_are_two_records() {
    // Microdata offers that name no URL: equal names are different ads.
    let body = grid("fr", |i| {
        let name = if i % 2 == 0 {
            "Iphone 5s".to_string()
        } else {
            format!("Iphone {i}")
        };
        format!(
            "<li itemscope itemtype=\"http://schema.org/Offer\"><a href=\"/telephonie/11163{i}.htm\">\
             <h2 itemprop=\"name\">{name}</h2><span itemprop=\"price\" content=\"{i}75\">{i}75 €</span>\
             <meta itemprop=\"priceCurrency\" content=\"EUR\"></a></li>"
        )
    });
    let x = run("https://annonces.example.fr/telephonie/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(
        get(&x.records[3], "url"),
        Some("https://annonces.example.fr/telephonie/111634.htm")
    );
}

#[test]
fn a_heading_with_a_label_is_named_by_its_link() {
    // "<h2><a>2016 Artuke Joven</a> <small>(Rotwein)</small></h2>": the
    // product's name is its link's text, not the type label beside it.
    let body = grid("de", |i| {
        format!(
            "<li class=\"artikel\"><h2><a href=\"/wein/{i}-joven.php\">201{i} Artuke Joven</a> <small>(Rotwein)</small></h2>\
             <span class=\"preis\">{i},25 €</span></li>"
        )
    });
    let x = run("https://wein.example.de/rioja/", &body);
    assert_eq!(get(&x.records[0], "name"), Some("2011 Artuke Joven"));
}

#[test]
fn state_products_keyed_by_id_with_money_in_units_and_nanos_are_the_list() {
    // A store normalized by id: the list is the map's values; amounts are
    // whole units and billionths inside a price range. Only the first two
    // products are rendered as cards.
    let money =
        |units: u64, nanos: u64| json!({"currencyCode": "USD", "units": units, "nanos": nanos});
    let mut by_id = serde_json::Map::new();
    for i in 1..=8u64 {
        by_id.insert(
            format!("{i}00{i}"),
            json!({
                "id": format!("{i}00{i}"),
                "name": format!("Wool Sweater {i}"),
                "productPageUrl": format!("/s/wool-sweater-{i}/{i}00{i}"),
                "price": {
                    "totalPriceRange": {"min": money(40 + i, 490_000_000), "max": money(60 + i, 0)},
                    "regular": {"priceRange": {"min": money(99, 0), "max": money(99, 0)}}
                }
            }),
        );
    }
    let state = json!({"productResults": {"productsById": by_id}});
    let cards: String = (1..=2)
        .map(|i| format!("<article><a href=\"/s/wool-sweater-{i}/{i}00{i}\"><h3>Wool Sweater {i}</h3></a><span>${}.49</span></article>", 40 + i))
        .collect();
    let body = format!(
        "<html lang=\"en\"><body><h1>Results for sweater</h1><main class=\"results\">{cards}</main>\
         <script>window.__INITIAL_CONFIG__ = {state};</script></body></html>"
    );
    let x = run("https://shop.example.com/sr?keyword=sweater", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8, "{:?}", x.records);
    let third = x
        .records
        .iter()
        .find(|r| get(r, "name") == Some("Wool Sweater 3"))
        .expect("the third product");
    assert_eq!(get(third, "price"), Some("43.49"));
    assert_eq!(get(third, "currency"), Some("USD"));
    assert_eq!(
        get(third, "url"),
        Some("https://shop.example.com/s/wool-sweater-3/3003")
    );
}

#[test]
fn a_markup_item_that_links_to_one_card_does_not_make_a_listing_a_product() {
    // The markup describes an open house of the third listing (an event
    // with an offer); the page is the list of listings.
    let event = json!({"@context": "https://schema.org", "@type": "Event", "name": "Open house at Elm Street 3",
        "url": "https://rent.example.com/building/elm-3/1a", "offers": {"@type": "Offer", "price": "12", "priceCurrency": "USD"}});
    let body = grid("en", |i| {
        format!(
            "<li class=\"listing-card\"><a href=\"https://rent.example.com/building/elm-{i}/1a?featured=1\"><img src=\"/{i}.jpg\" alt=\"\"></a>\
             <a href=\"https://rent.example.com/building/elm-{i}/1a\">Elm Street {i}</a><span class=\"price\">$2,{i}50</span></li>"
        )
    })
    .replace("<body>", &format!("<body><script type=\"application/ld+json\">{event}</script>"));
    let x = run("https://rent.example.com/for-rent/nyc", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(prices(&x)[2], Some("2350"));
}

#[test]
fn a_buy_entry_of_the_site_menu_is_not_a_product_of_the_page() {
    // "Buy" and "Rent" head the site's menu of a property site; the page is
    // a list of properties.
    let menu = "<div class=\"header-container\"><div class=\"dropdownMenu-module__nav\">\
                <div data-qa=\"action-buy\"><button><span>Buy now</span></button></div>\
                <a href=\"/rent\">Rent</a></div></div>";
    let body = grid("en", |i| {
        format!(
            "<li class=\"posting\"><h2 class=\"price\">USD {i}80.000</h2>\
             <h3><a href=\"/listing/flat-in-palermo-5711{i}.html\">Bright flat of {i} rooms near the park</a></h3></li>"
        )
    })
    .replace("<body>", &format!("<body>{menu}"));
    let x = run("https://homes.example.com.ar/flats-for-sale.html", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
}

#[test]
fn a_list_of_classified_ads_is_the_pages_list_not_advertising() {
    // Every card and the list itself are named "ad"; the price sits in an
    // element of a "price-shipping" block.
    let cards: String = (1..=5)
        .map(|i| {
            format!(
                "<li class=\"ad-listitem\"><article class=\"aditem\"><a href=\"/s-ad/flat-{i}/33748330{i}-203\"><img src=\"/{i}.jpg\" alt=\"\"></a>\
                 <h2><a href=\"/s-ad/flat-{i}/33748330{i}-203\">Bright flat {i}</a></h2>\
                 <p class=\"aditem-main--price-shipping--price\">1.{i}90 € <span class=\"aditem-main--price-shipping--old-price\">1.{i}99 €</span></p>\
                 </article></li>"
            )
        })
        .collect();
    let body = format!(
        "<html lang=\"de\"><body><h1>Flats to rent</h1><ul class=\"itemlist ad-list\">{cards}</ul>\
         <div class=\"ad-slot\"><a href=\"https://ads.example.net/c\">Buy a car</a> 9.999 €</div></body></html>"
    );
    let x = run("https://classifieds.example.de/s-flats/berlin/c203", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 5, "{:?}", x.records);
    assert_eq!(prices(&x)[2], Some("1390"));
}

#[test]
fn markup_items_without_links_are_the_cards_that_show_their_pictures() {
    // Per-card markup names each flat (cut short) with its picture and
    // price but no link; a summary product states the result count. The
    // cards link the flats and show the pictures in other sizes.
    let mut blocks = vec![
        json!({"@context": "http://schema.org", "@type": "Product", "name": "521 Apartment for rent",
        "offers": {"@type": "AggregateOffer", "offerCount": 521, "lowPrice": 1714, "highPrice": 6450, "priceCurrency": "CHF"}}),
    ];
    for i in 1..=5 {
        blocks.push(json!({"@context": "http://schema.org", "@type": "Product",
            "name": format!("Bright flat number {i} near the lake..., Rue Neuve {i}, CHF {i}714"),
            "image": format!("https://media.example.ch/t_small/listings/400208667{i}/image/e201d75fd2e7d6d614b6bb322981a38{i}.jpg"),
            "offers": [{"@type": "Offer", "price": i * 1000 + 714, "priceCurrency": "CHF"}]}));
    }
    let scripts: String = blocks
        .iter()
        .map(|b| format!("<script type=\"application/ld+json\">{b}</script>"))
        .collect();
    let cards: String = (1..=5)
        .map(|i| {
            format!(
                "<div class=\"listing-card\"><a href=\"/rent/400208667{i}\">\
                 <img src=\"https://media.example.ch/listings/400208667{i}/image/e201d75fd2e7d6d614b6bb322981a38{i}.jpg\" alt=\"\">\
                 <p class=\"title\">Bright flat number {i} near the lake with a view</p><span class=\"price\">CHF {i},714.–</span></a></div>"
            )
        })
        .collect();
    let body = format!(
        "<html lang=\"en\"><head>{scripts}</head><body><h1>Apartments for rent</h1><div class=\"results\">{cards}</div></body></html>"
    );
    let x = run(
        "https://homes.example.ch/rent/apartment/matching-list",
        &body,
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 5, "{:?}", x.records);
    assert_eq!(
        get(&x.records[2], "url"),
        Some("https://homes.example.ch/rent/4002086673")
    );
    assert_eq!(
        get(&x.records[2], "name"),
        Some("Bright flat number 3 near the lake with a view")
    );
}

/// A category's markup typed as one product whose offer spans its
/// products' prices, and a footer's order threshold under "Free delivery"
/// ("При заказе от 25 000 руб", the only amount outside the cards): the
/// cards are the page's list, the threshold no price of a product.
#[test]
fn an_order_threshold_is_no_product_price_beside_a_list() {
    let cards: String = (1..=9)
        .map(|i| {
            format!(
                r#"<div class="product-layout"><div class="product-thumb"><a href="https://doors.example.ru/vhodnye/door-{i}"><img src="/i/{i}.png" alt="Door {i}"></a><div class="caption"><a href="https://doors.example.ru/vhodnye/door-{i}">Door {i}</a><p class="price">2{i} 200 p.</p><button onclick="cart.add('{i}');">Купить</button></div></div></div>"#
            )
        })
        .collect();
    let body = format!(
        r#"<html><head><title>Входные двери</title><script type="application/ld+json">{{"@context":"http://schema.org/","@type":"Product","name":"Входные двери","image":"https://doors.example.ru/i/cat.png","sku":"Doors","offers":{{"@type":"AggregateOffer","lowPrice":"13850","highPrice":"37000","offerCount":"9","priceCurrency":"RUB"}}}}</script></head><body><h1>Входные двери</h1><div class="row">{cards}</div><div class="footer-service"><div class="service-item"><div class="title">Бесплатная доставка</div><div class="text">При заказе от 25 000 руб</div></div></div></body></html>"#
    );
    let x = run("https://doors.example.ru/vhodnye/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 9);
    assert_eq!(get(&x.records[0], "price"), Some("21200"));
}

/// A catalog whose prices only a script writes: cards whose links carry
/// no product word or id, but each with a picture, a name and buttons to
/// keep or compare the product, are the page's list; tiles of categories
/// without such buttons stay out.
#[test]
fn cards_without_prices_that_offer_a_product_s_actions_are_a_list() {
    let cards: String = (1..=8)
        .map(|i| {
            format!(
                r#"<div class="product-item"><div class="product-item__btns"><button type="button" data-item="9652{i}" data-tooltip="Добавить в избранное" class="favorite"><span>Добавить в избранное</span></button><button type="button" data-item="9652{i}" class="compare"><span>Добавить в сравнение</span></button></div><a href="/catalog/g-shock/ga-210{i}ske/" class="product-item__link"><img src="/i/{i}.jpg" alt=""><p class="product-item__articul">GA-210{i}SKE</p><p class="product-item__price"></p></a></div>"#
            )
        })
        .collect();
    let tiles: String = (1..=8)
        .map(|i| {
            format!(r#"<div class="tile"><a href="/catalog/series-{i}/"><img src="/t/{i}.jpg" alt=""><p>Series {i}</p></a></div>"#)
        })
        .collect();
    let body = format!(
        r#"<html><head><title>G-SHOCK</title></head><body><h1>G-SHOCK</h1><main><div class="catalog">{cards}</div></main></body></html>"#
    );
    let x = run("https://shop.example.ru/catalog/g-shock/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8);
    assert_eq!(get(&x.records[0], "name"), Some("GA-2101SKE"));
    // The list in blocks named for the filters that act on it; the money
    // the page's script names counts every row.
    let body = format!(
        r#"<html><head><title>G-SHOCK</title><script>window.Analytics.meta.currency = 'RUB';</script></head><body><h1>G-SHOCK</h1><main><div class="row filter-here"><div class="content-product-list product-list filter clearfix">{cards}</div></div></main></body></html>"#
    );
    let x = run("https://shop.example.ru/catalog/g-shock/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8);
    assert_eq!(get(&x.records[7], "currency"), Some("RUB"));
    assert_eq!(get(&x.records[7], "price"), None);
    let body = format!(
        r#"<html><head><title>Watches</title></head><body><h1>Watches</h1><main><div class="tiles">{tiles}</div></main></body></html>"#
    );
    let x = run("https://shop.example.ru/catalog/", &body);
    assert_ne!(x.kind, PageKind::Listing, "{:?}", x.notes);
}

/// Cards whose prices only a script writes, each card's element carrying
/// the product as a script's object literal in single quotes
/// (`data-analitics="{'name':...,'price':20126}"`): the prices are read
/// from it.
#[test]
fn products_in_single_quoted_object_literals_of_data_attributes() {
    let cards: String = (1..=6)
        .map(|i| {
            format!(
                r#"<div class="product-item" data-analitics="{{'id':'9652{i}','name':'GA-210{i}SKE','price':2012{i},'category':'G-SHOCK'}}"><a href="/catalog/g-shock/ga-210{i}ske/"><img src="/i/{i}.jpg" alt=""><p class="articul">GA-210{i}SKE</p><p class="product-item__price"></p></a></div>"#
            )
        })
        .collect();
    let body = format!(
        r#"<html><head><title>G-SHOCK</title></head><body><h1>G-SHOCK</h1><p>Цены в руб.</p><main><div class="catalog">{cards}</div></main></body></html>"#
    );
    let x = run("https://shop.example.ru/catalog/g-shock/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6);
    assert_eq!(get(&x.records[0], "name"), Some("GA-2101SKE"));
    assert_eq!(get(&x.records[0], "price"), Some("20121"));
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://shop.example.ru/catalog/g-shock/ga-2101ske/")
    );
}

/// A list whose container's data attribute speaks of a filter
/// (`data-stock-filter-enabled`) inside the page's main content named for
/// the filters it also shows ("main-content view-filter-navigation"): the
/// list is still the page's.
#[test]
fn a_list_in_main_content_named_for_its_filters_is_the_list() {
    let cards: String = (1..=6)
        .map(|i| {
            format!(
                r#"<div class="col col-mini-product"><div class="mini-product"><a class="product-name" href="https://www.shop.example.fi/product/laptops/L{i}/laptop-{i}">Laptop {i}</a><div class="product-price">{i}49</div></div></div>"#
            )
        })
        .collect();
    let body = format!(
        r#"<html lang="fi"><head><title>Kannettavat</title></head><body><div class="main-content category-level-2 view-filter-navigation"><h1>Kannettavat</h1><div id="searchProductsInfo" class="product-list-container" data-stock-filter-enabled="true"><div class="mini-product-list">{cards}</div></div></div></body></html>"#
    );
    let x = run("https://www.shop.example.fi/catalog/laptops", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6);
    assert_eq!(get(&x.records[1], "price"), Some("249"));
}

/// Embedded state that gives each product's prices as a list by kind (the
/// store card's first, everyone's, the normal one crossed): everyone's.
#[test]
fn a_state_list_of_prices_by_kind_gives_everyone_s() {
    let products: Vec<serde_json::Value> = (1..=4)
        .map(|i| {
            json!({"productId": format!("14921502{i}"), "displayName": format!("Iphone {i}"), "url": format!("https://www.tienda.example.com.pe/articulo/14921502{i}/iphone-{i}"),
                "prices": [
                    {"label": "", "icons": "cmr-icon", "symbol": "S/ ", "crossed": false, "type": "cmrPrice", "price": [format!("2,{i}99")]},
                    {"label": "", "symbol": "S/ ", "crossed": false, "type": "internetPrice", "price": [format!("2,{i}49")]},
                    {"label": "", "symbol": "S/ ", "crossed": true, "type": "normalPrice", "price": [format!("3,{i}99")]}
                ]})
        })
        .collect();
    let state = json!({"props": {"pageProps": {"results": products}}});
    let body = format!(
        r#"<html><head><title>iphone</title></head><body><h1>iphone</h1><div id="root"></div><script id="__NEXT_DATA__" type="application/json">{state}</script></body></html>"#
    );
    let x = run("https://www.tienda.example.com.pe/buscar?Ntt=iphone", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(
        x.records
            .iter()
            .filter_map(|r| get(r, "price"))
            .collect::<Vec<_>>(),
        ["2149", "2249", "2349", "2449"]
    );
}

/// A product page that shows no price ("ask for a quote") and an icon-only
/// cart button whose title says it buys ("Thêm vào giỏ hàng"), above a
/// priced list of the same series: the page is no list of those.
#[test]
fn an_icon_only_buy_button_titled_so_keeps_the_page_a_product_s() {
    let series: String = (1..=6)
        .map(|i| {
            format!(
                r#"<div class="card"><a href="/vn/san-pham/hmi-gt10{i}_5043{i}">HMI GT10{i}</a><span class="price">1.06{i}.100 ₫</span><button title="Thêm vào giỏ hàng" class="btnAddIcon_Cart"><span class="bi bi-cart-plus-fill"></span></button></div>"#
            )
        })
        .collect();
    let body = format!(
        r#"<html lang="vi"><head><title>GT1020-LBDW2</title></head><body><h1>Màn hình HMI MITSUBISHI GT1020-LBDW2</h1><div class="buy-box"><div class="quote">Liên hệ báo giá</div><button type="button" title="Thêm vào giỏ hàng" class="btn btnAddIcon_Cart_NoLogin_CT" data-cogia="0"><span class="bi bi-cart-plus-fill fs-4"></span></button></div><h2>Cùng dòng sản phẩm</h2><div class="series">{series}</div></body></html>"#
    );
    let x = run(
        "https://shop.example.vn/vn/san-pham/hmi-gt1020-lbdw2_58762",
        &body,
    );
    assert_ne!(x.kind, PageKind::Listing, "{:?}", x.notes);
}

/// A product filter component whose body and content are named for the
/// filters and hold the filtered list of pictured cards: the list; the
/// facets beside it stay out.
#[test]
fn pictured_cards_inside_a_block_named_for_the_filters_are_the_list() {
    let cards: String = (1..=9)
        .map(|i| {
            format!(
                r#"<tm-product-item><a class="product-image" href="/peralni/neo-wm-{i}-0924087{i}"><img src="/i/{i}.webp" alt="NEO WM-{i}"></a><a class="title" href="/peralni/neo-wm-{i}-0924087{i}">Пералня NEO WM-{i}</a><div class="price">{i}89.21 лв.</div></tm-product-item>"#
            )
        })
        .collect();
    let facets: String = (1..=4)
        .map(|i| format!(r#"<li><a href="/peralni?price={i}00-{i}99">{i}00 - {i}99 лв.</a></li>"#))
        .collect();
    let body = format!(
        r#"<html lang="bg"><head><title>Перални</title></head><body><main><h1>Перални</h1><tm-product-filter><div class="filter-aside"><ul class="facets">{facets}</ul></div><div class="filter-body"><div class="filter-content" data-list="">{cards}</div></div></tm-product-filter></main></body></html>"#
    );
    let x = run("https://shop.example.bg/peralni", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 9);
}

/// A collection's page typed `og:type` "product.group" (a group of
/// products, as Shopify types its collections) with five cards: a listing.
#[test]
fn a_page_typed_as_a_group_of_products_is_a_listing() {
    let cards: String = ["Chewing Contrail", "Green Ambiance", "Peanut Bullet", "Smoking Tuxedo", "Quattro"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                r#"<div class="grid__item"><a href="/collections/all/products/flavour-{i}" class="product-card"><div class="product-card__image"><img src="//cdn.example.com/p/{i}.jpg" alt="{name}"></div><div class="product-card__info"><div class="product-card__name">{name}</div><div class="product-card__price"><span class="visually-hidden">Regular price</span><span class="money">$2{i}.99 CAD</span></div></div><div class="product-card__overlay"><span class="btn">View</span></div></a></div>"#
            )
        })
        .collect();
    let body = format!(
        r#"<html><head><meta property="og:type" content="product.group"><meta property="og:title" content="Vapes Collection"></head><body><main><h1 class="section-header__title">Vapes Collection</h1><div class="grid grid--uniform">{cards}</div></main></body></html>"#
    );
    let x = run("https://shop.example.ca/collections/all", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 5, "{:?}", x.records);
    assert_eq!(get(&x.records[4], "price"), Some("24.99"));
}

/// A shop's category whose cards show no price, only a "Quick View" link
/// classed as a button, under a header whose menus each hold the basket's
/// total ("$0.00" in an "elementor-menu-cart"): the cards are the list; the
/// basket's total is no price of the menus' links.
#[test]
fn unpriced_cards_with_a_quick_view_under_a_header_with_the_basket_total() {
    let menu = |n: usize| {
        format!(
            r##"<div class="elementor-column"><ul class="elementor-nav-menu menu-{n}"><li><a href="/about-us/">About</a></li><li><a href="/members-area/">Members</a></li></ul><div class="elementor-menu-cart__toggle"><a href="#" class="elementor-button"><span class="elementor-button-text"><span class="woocommerce-Price-amount amount"><bdi><span class="woocommerce-Price-currencySymbol">&#36;</span>0.00</bdi></span></span></a></div></div>"##
        )
    };
    let cards: String = ["Mythical Milk", "Cherry Limeade", "Virgo", "Nova", "Anglo Libre", "Blue Razz", "Mango Tango", "Peach Rings"]
        .iter()
        .map(|name| {
            let slug = name.to_lowercase().replace(' ', "-");
            format!(
                r##"<li class="ast-col-sm-12 product type-product"><div class="astra-shop-thumbnail-wrap"><a href="/shop/{slug}/"><img src="/wp-content/uploads/{slug}-200x200.jpg" alt=""></a></div><div class="astra-shop-summary-wrap"><a href="/shop/{slug}/" class="ast-loop-product__link"><h2 class="woocommerce-loop-product__title">{name}</h2></a><div class="ast-qv-button-wrap"><a href="#" class="button ast-quick-view-button" data-product_id="35">Quick View</a></div></div></li>"##
            )
        })
        .collect();
    let body = format!(
        r#"<html><head><title>Beverage</title></head><body><div class="elementor-location-header">{}{}</div><main><h1>Beverage</h1><ul class="products columns-4">{cards}</ul></main></body></html>"#,
        menu(1),
        menu(2)
    );
    let x = run(
        "https://www.shop.example.co/product-category/beverage/",
        &body,
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8, "{:?}", x.records);
    assert_eq!(get(&x.records[0], "name"), Some("Mythical Milk"));
    assert_eq!(get(&x.records[0], "price"), None);
}

/// A copy of a shop whose table rows link their products by relative
/// paths that climb first ("../../../../../catalog/..."), some filed one folder
/// deeper than others, and rows of the same shape with an empty price
/// cell: every row is the list, the unpriced ones too.
#[test]
fn unpriced_rows_of_a_table_whose_links_climb_and_differ_by_a_folder() {
    let row = |slug: &str, price: &str| {
        format!(
            r#"<tr class="product-list-table__item"><td class="product-list-table__item-name"> {slug} </td><td class="product-list-table__item-image"><a href="../../../../../catalog/supplies/{slug}/index.html"><img src="../../../../../img/{slug}.png" alt=""></a></td><td class="product-list-table__item-price">{price}</td><td class="product-list-table__item-more"><a class="site-button" href="../../../../../catalog/supplies/{slug}/index.html">Подробнее</a></td></tr>"#
        )
    };
    let mut rows = String::new();
    for (i, slug) in [
        "fertilizers/perlite",
        "fertilizers/azofoska",
        "peat",
        "fertilizers/urea",
        "bark",
    ]
    .iter()
    .enumerate()
    {
        rows.push_str(&row(
            slug,
            &format!(r#"<span class="price">2{i}.90&nbsp;BYN</span>"#),
        ));
    }
    for slug in [
        "complemet-cucumbers",
        "complemet-orchid",
        "complemet-tomatoes",
    ] {
        rows.push_str(&row(slug, ""));
    }
    let body = format!(
        r#"<html><head><title>Удобрения</title></head><body><main><h1>Удобрения</h1><table class="product-list-table"><tbody>{rows}</tbody></table></main></body></html>"#
    );
    let x = run(
        "https://shop.example.by/catalog/supplies/fertilizers/page/1/index.html",
        &body,
    );
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8, "{:?}", x.records);
    assert_eq!(get(&x.records[7], "price"), None);
    assert_eq!(
        get(&x.records[7], "url"),
        Some("https://shop.example.by/catalog/supplies/complemet-tomatoes/index.html")
    );
}
