//! One small page per class of miss seen on two more sets of shops the
//! rules were not written against (listing sets m and n): lists their
//! markup misdescribes, members' and instalment prices, currencies the
//! markup misspells or the page's script decides, and filters named for
//! the list they filter.

use crate::listing_tests::{get, run};
use crate::PageKind;

/// Cards of `n` products, each linked at `/p/{i}` with `query` after the
/// path, priced in `$`.
fn cards(n: usize, query: &str) -> String {
    (1..=n)
        .map(|i| {
            format!(
                "<li class=\"card\"><a href=\"/p/{i}{query}\"><img src=\"/i/{i}.jpg\" alt=\"\">Lamp {i}</a>\
                 <span class=\"price\">${i}9.00</span></li>"
            )
        })
        .collect()
}

fn item_list(urls: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = urls
        .enumerate()
        .map(|(i, u)| {
            format!(
                "{{\"@type\":\"ListItem\",\"position\":{},\"name\":\"Lamp\",\"url\":\"{u}\"}}",
                i + 1
            )
        })
        .collect();
    format!(
        "<script type=\"application/ld+json\">{{\"@context\":\"http://schema.org\",\"@type\":\"ItemList\",\"itemListElement\":[{}]}}</script>",
        items.join(",")
    )
}

/// A product the markup describes with no offer, not the page's own.
const FEATURED: &str = "<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"Product\",\
    \"name\":\"Featured lamp\",\"url\":\"https://lamps.example.com/p/featured\",\"image\":\"https://lamps.example.com/i/f.jpg\"}</script>";

#[test]
fn an_item_list_of_products_the_page_does_not_show_gives_way_to_its_cards() {
    let other = item_list((100..110).map(|i| format!("https://lamps.example.com/p/{i}")));
    let body = format!(
        "<html><head>{other}{FEATURED}</head><body><h1>Lamps</h1><ul class=\"results\">{}</ul></body></html>",
        cards(12, "")
    );
    let x = run("https://lamps.example.com/c/lamps", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 12, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "price"), Some("19.00"));
}

#[test]
fn an_item_list_of_the_first_cards_gives_way_to_all_of_them() {
    // The markup names the first ten without the query the cards' links add.
    let first = item_list((1..=10).map(|i| format!("https://lamps.example.com/p/{i}")));
    let body = format!(
        "<html><head>{first}{FEATURED}</head><body><h1>Lamps</h1><ul class=\"results\">{}</ul></body></html>",
        cards(30, "?trk=abc")
    );
    let x = run("https://lamps.example.com/search?q=lamp", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 30, "{:?}", x.notes);
    // Naming all the cards, the list is read from the markup's order.
    let all = item_list((1..=5).map(|i| format!("https://lamps.example.com/p/{i}")));
    let body = format!(
        "<html><head>{all}</head><body><h1>Lamps</h1><ul class=\"results\">{}</ul></body></html>",
        cards(5, "?trk=abc")
    );
    let x = run("https://lamps.example.com/search?q=lamp", &body);
    assert_eq!(x.records.len(), 5, "{:?}", x.notes);
    assert!(x.notes[0].contains("ItemList"), "{:?}", x.notes);
}

#[test]
fn a_long_list_is_a_listing_whatever_its_og_type_says() {
    let page = |n: usize| {
        format!(
            "<html><head><meta property=\"og:type\" content=\"product\"></head><body><h1>Hard disks</h1>\
             <ul class=\"results\">{}</ul></body></html>",
            cards(n, "")
        )
    };
    let x = run("https://disks.example.com/hdd/c", &page(12));
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 12);
    // A few cards under a product's tags: the tags stand.
    let x = run("https://disks.example.com/hdd/c", &page(3));
    assert_ne!(x.kind, PageKind::Listing, "{:?}", x.notes);
}

#[test]
fn a_members_price_gives_way_to_everyones_and_instalments_are_no_price() {
    let card = |i: usize| {
        format!(
            "<li class=\"card\"><a href=\"/p/{i}\">Buds {i}</a>\
             <span class=\"campaign\">Peşin fiyatına <span>3 x</span> <span>{i}63 TL</span></span>\
             <div class=\"price-area isPremiumCampaign\"><div class=\"label\">Premium ile</div>\
             <div class=\"info\"><span class=\"originalPrice\"><s>{i}.191,28 TL</s></span>\
             <div class=\"finalPrice\">{i}.091<span class=\"fraction\">,28 TL</span></div></div></div></li>"
        )
    };
    let body = format!(
        "<html lang=\"tr\"><body><h1>Kulaklık</h1><ul class=\"results\">{}</ul></body></html>",
        (1..=6).map(card).collect::<String>()
    );
    let x = run("https://shop.example.com.tr/ara?q=kulaklik", &body);
    assert_eq!(x.records.len(), 6, "{:?}", x.notes);
    for (i, r) in x.records.iter().enumerate() {
        assert_eq!(get(r, "price"), Some(format!("{}191.28", i + 1).as_str()));
        assert_eq!(get(r, "currency"), Some("TRY"));
    }
}

#[test]
fn a_currency_is_a_code_of_iso_4217_or_what_the_page_shows() {
    // Microdata with a misspelt code, the hryvnia shown beside the amount.
    let body = "<html><body><h1>Battery BL-44JN</h1>\
        <div itemscope itemtype=\"http://schema.org/Product\"><span itemprop=\"name\">Battery BL-44JN</span>\
        <div itemprop=\"offers\" itemscope itemtype=\"http://schema.org/Offer\">\
        <meta content=\"UAN\" itemprop=\"priceCurrency\"><span content=\"253\" itemprop=\"price\" class=\"totalPrice\">253.0 грн</span>\
        </div></div><button>Купить</button></body></html>";
    let x = run("http://parts.example.com/product/30317/", body);
    assert_eq!(x.kind, PageKind::Product, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "price"), Some("253"));
    assert_eq!(get(&x.records[0], "currency"), Some("UAH"));
    // "Lei" as Romanian shops write it.
    let body = format!(
        "<html><body><h1>Hard disks</h1><div id=\"products\">{}</div></body></html>",
        (1..=6)
            .map(|i| format!(
                "<div class=\"product-holder\"><a href=\"/hdd-{i}/pd/\">HDD {i}</a>\
                 <span class=\"money-int\">2{i}4</span><sup>99</sup> <span>Lei</span></div>"
            ))
            .collect::<String>()
    );
    let x = run("http://shop.example.com/hdd/c", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "price"), Some("214.99"));
    assert_eq!(get(&x.records[0], "currency"), Some("RON"));
}

#[test]
fn a_yen_sign_on_a_page_written_in_chinese_is_the_yuan() {
    let card = |i: usize| {
        format!("<li class=\"card\"><a href=\"/detail/{i}\">官方正品 智能手机 全网通 双卡双待 {i}号</a><span class=\"price\">¥{i}299</span></li>")
    };
    // No language stated: the text's script says it.
    let body = format!(
        "<html><body><h1>手机</h1><p>蘑菇街 手机 频道 精选 商品 推荐 官方 正品 保证 全场 包邮 优惠 活动 进行 中 欢迎 选购</p>\
         <ul class=\"results\">{}</ul></body></html>",
        (1..=6).map(card).collect::<String>()
    );
    let x = run("http://www.shop.example.com/book/phones", &body);
    assert_eq!(x.records.len(), 6, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "currency"), Some("CNY"));
    // With kana it is Japanese.
    let ja = body.replace(
        "<h1>手机</h1>",
        "<h1>スマートフォン カテゴリー ページ です よ ね</h1>",
    );
    let x = run("http://www.shop.example.com/book/phones", &ja);
    assert_eq!(get(&x.records[0], "currency"), Some("JPY"));
}

#[test]
fn a_list_inside_an_element_named_for_its_facets_is_the_main_list() {
    let body = format!(
        "<html><body><h1>Shampoo</h1>\
         <div class=\"sidebar\"><div class=\"facets\"><label>Under $10 (4)</label></div></div>\
         <div class=\"ajax_facet_grid col-sm-9\"><div id=\"main\">{}</div></div>\
         <div id=\"filterPrice\"><p id=\"priceRange\">$5 - $70</p><span class=\"left\">$8.99</span>\
         <span class=\"right\">$69.99</span></div></body></html>",
        (1..=8)
            .map(|i| format!(
                "<div class=\"col-md-3\"><div class=\"item\"><a href=\"/products/s-{i}.html\">Shampoo {i}</a>\
                 <span class=\"price\">${i}.19</span></div></div>"
            ))
            .collect::<String>()
    );
    let x = run("https://shop.example.com/categories/shampoo.html", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8, "{:?}", x.notes);
}

#[test]
fn rows_of_cards_keep_their_first_and_sold_out_cards() {
    let card = |i: usize, class: &str| {
        let price = if class == "sold_out" {
            "<span class=\"meta availability\">Out of stock</span>".to_string()
        } else {
            format!("<span class=\"price\"><ins>£3{i}.95</ins></span>")
        };
        format!(
            "<li class=\" {class} \"><span class=\"prod\"><a href=\"/shorts/Shorts-{i}?q=||hb0{i}|||\">\
             <img src=\"/i/{i}.jpg\"></a><h3><a href=\"/shorts/Shorts-{i}?q=||hb0{i}|||\">Shorts {i}</a></h3>{price}</span></li>"
        )
    };
    let row = |a: usize, classes: [&str; 3]| {
        format!(
            "<ul class=\"teasers\">{}{}{}</ul>",
            card(a, classes[0]),
            card(a + 1, classes[1]),
            card(a + 2, classes[2])
        )
    };
    let body = format!(
        "<html lang=\"en\"><body><h1>Shorts</h1><div id=\"listing\">{}{}{}</div></body></html>",
        row(1, ["first", "", ""]),
        row(4, ["first", "", ""]),
        row(7, ["first", "sold_out", "sold_out"])
    );
    let x = run("https://www.shirts.example.co.uk/mens/shorts", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 9, "{:?}", x.notes);
    assert_eq!(get(&x.records[8], "price"), None);
    assert_eq!(get(&x.records[8], "name"), Some("Shorts 9"));
}

#[test]
fn a_side_bar_of_featured_products_is_not_the_list() {
    let rows: String = (0..4)
        .map(|r| {
            let cells: String = (1..=3)
                .map(|c| {
                    let i = r * 3 + c;
                    format!(
                        "<td class=\"item-container\"><div class=\"item\"><a href=\"/jelly-{i}.aspx\">Jelly {i}</a>\
                         <div class=\"cost\"><span>Price:</span> <span class=\"value\">${i}.19</span></div></div></td>"
                    )
                })
                .collect();
            format!("<tr>{cells}</tr>")
        })
        .collect();
    let picks: String = (1..=10)
        .map(|i| {
            format!(
                "<div class=\"featured-products-item\"><a href=\"cheese-{i}.aspx\">Cheese {i}</a>\
                 <div class=\"featured-products-item-price\">${i}.29</div></div>"
            )
        })
        .collect();
    let body = format!(
        "<html lang=\"en\"><body><h1>Pickles</h1><table class=\"product-list\">{rows}</table>\
         <table class=\"module\"><tr><td class=\"module-body\">{picks}</td></tr></table></body></html>"
    );
    let x = run("http://www.cheese.example.com/pickles.aspx", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 12, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "name"), Some("Jelly 1"));
}

#[test]
fn a_card_that_leads_to_the_page_itself_makes_it_that_products_page() {
    let cards: String = ["french-vanilla_601576_11", "decaf_601569_11", "hazelnut_601583_11"]
        .iter()
        .map(|slug| {
            format!(
                "<div class=\"gridSku\"><h3><a href=\"/{slug}/\">Coffee {slug}</a></h3><span class=\"price\">$8.99</span></div>"
            )
        })
        .collect();
    let body = format!(
        "<html lang=\"en\"><body><h1>French Vanilla Ground Coffee</h1><div class=\"grid\">{cards}</div></body></html>"
    );
    let x = run("http://shop.example.com/french-vanilla_601576_11/", &body);
    assert_ne!(x.kind, PageKind::Listing, "{:?}", x.notes);
}

#[test]
fn whole_amounts_grouped_with_cents_apart_and_savings_in_parentheses() {
    let card = |i: usize| {
        format!(
            "<div class=\"product-holder\"><a href=\"/hdd-{i}/pd/\">HDD {i}</a>\
             <span class=\"old\"><span class=\"money-int\">1.2{i}9</span><sup class=\"money-decimal\">99</sup> <span>Lei</span></span>\
             <span class=\"discount\">(-15 Lei)</span>\
             <span class=\"price-over\"><span class=\"money-int\">1.0{i}9</span><sup class=\"money-decimal\">99</sup> <span>Lei</span></span></div>"
        )
    };
    let body = format!(
        "<html><body><h1>Hard disks</h1><div id=\"products\">{}</div></body></html>",
        (1..=6).map(card).collect::<String>()
    );
    let x = run("http://shop.example.com/hdd/c", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "price"), Some("1019.99"));
    assert_eq!(get(&x.records[0], "currency"), Some("RON"));
}

#[test]
fn goodrelations_rdfa_on_the_document_element_is_the_pages_offer() {
    // The offer is the whole document; its price specification is linked
    // by a `rel` on an ancestor of the nested `typeof` (RDFa chaining).
    let body = "<html xmlns:gr=\"http://purl.org/goodrelations/v1#\" typeof=\"gr:Offering\"><body>\
        <h1 property=\"gr:name\">French Vanilla Ground Coffee, 1-lb</h1>\
        <div id=\"buyTogether\"><h4>Often Bought With This Item</h4><span class=\"bothPrice\">Price for both:</span>\
        <span class=\"addToCartSpecialPrice\">$17.98</span></div>\
        <div id=\"priceBox\" rel=\"gr:hasPriceSpecification\"><div class=\"border\"><div typeof=\"gr:UnitPriceSpecification\">\
        <dl><dt>Price</dt><dd><span property=\"gr:hasCurrencyValue\" content=\"8.99\">$8.99</span>\
        <span property=\"gr:hasCurrency\" content=\"USD\"></span></dd></dl></div></div></div>\
        <button>Add to cart</button></body></html>";
    let x = run("http://shop.example.com/french-vanilla_601576_11/", body);
    assert_eq!(x.kind, PageKind::Product, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "price"), Some("8.99"), "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "currency"), Some("USD"));
    assert!(x.notes.iter().any(|n| n == "rdfa"), "{:?}", x.notes);
}

#[test]
fn cards_that_lead_back_to_the_list_under_other_parameters_are_not_products() {
    // A search's results, with a related search, a promotion of a filter
    // and the pager's first page in the same list.
    let page = "https://lamps.example.com/search?q=lamp";
    let views = "<li class=\"card\"><a href=\"/search?q=lamp&amp;cond=refurb\"><img src=\"/i/r.jpg\" alt=\"\">Refurbished lamps</a>\
         <span class=\"price\">$19.00</span></li>\
         <li class=\"card\"><a href=\"/search?q=desk+lamp\">Related searches</a></li>\
         <li class=\"card\"><a href=\"/search?q=lamp&amp;page=1\">Page 1</a></li>";
    let body = format!(
        "<html><body><h1>lamp</h1><ul class=\"results\">{}{views}</ul></body></html>",
        cards(9, "")
    );
    let x = run(page, &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 9, "{:?}", x.records);
    assert!(x
        .records
        .iter()
        .all(|r| get(r, "url").is_some_and(|u| u.contains("/p/"))));

    // Where products are the list's path with a query of their own, every
    // card is kept.
    let shop = "https://lamps.example.com/index.php?route=product/category&path=20";
    let body = format!(
        "<html><body><h1>Lamps</h1><ul class=\"results\">{}</ul></body></html>",
        (1..=6)
            .map(|i| format!(
                "<li class=\"card\"><a href=\"/index.php?route=product/product&amp;product_id={i}\">Lamp {i}</a>\
                 <span class=\"price\">${i}9.00</span></li>"
            ))
            .collect::<String>()
    );
    let x = run(shop, &body);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
}

#[test]
fn loyalty_card_prices_give_way_to_everyones() {
    // The price with a loyalty card labelled beside it, and everyone's
    // price in a block of its own; both blocks carry the card's modifier.
    let card = |i: usize| {
        format!(
            r#"<li class="pt-grid-item"><article class="pt"><h2><a href="/gol-ui/product/p{i}" class="pt__link">Biscuits {i}</a></h2>
        <div class="pt__cost"><div class="pt__cost__contextual--wrapper"><span class="pt__cost__contextual pt__cost__contextual--with-nectar-not-associated"><span class="pt__cost--price">£1.00</span></span><span class="pt__with-or-without-nectar">with Nectar</span></div>
        <div class="pt__cost__retail-price__wrapper"><span class="pt__cost__retail-price pt__cost__retail-price--with-nectar-not-associated">£1.60</span><span class="pt__cost__unit-price-per-measure">93p / 100g</span></div></div>
        <button>Add</button></article></li>"#
        )
    };
    let body = format!(
        "<html><body><h1>Biscuits</h1><ul class=\"grid\">{}</ul></body></html>",
        (1..=6).map(card).collect::<String>()
    );
    let x = run(
        "https://www.shop.example.co.uk/gol-ui/groceries/biscuits",
        &body,
    );
    assert_eq!(x.records.len(), 6, "{:?}", x.notes);
    assert!(
        x.records.iter().all(|r| get(r, "price") == Some("1.60")),
        "{:?}",
        x.records
    );

    // A card's offer says "Clubcard Price"; its buy box has everyone's.
    let card = |i: usize| {
        format!(
            r#"<li class="product-list--list-item"><h3><a href="/groceries/en-GB/products/{i}">Teacake {i}</a></h3>
        <div class="promotions"><span class="offer-text">£1.70 Clubcard Price</span><span class="offer-secondary-text">(£1.29/100g)</span></div>
        <div class="buybox"><p class="price">£2.00</p><p class="unit">£1.52/100g</p></div><button>Add</button></li>"#
        )
    };
    let body = format!(
        "<html><body><h1>Biscuits</h1><ul class=\"grid\">{}</ul></body></html>",
        (1..=6).map(card).collect::<String>()
    );
    let x = run(
        "https://www.shop.example.com/groceries/en-GB/shop/biscuits",
        &body,
    );
    assert!(
        x.records.iter().all(|r| get(r, "price") == Some("2.00")),
        "{:?}",
        x.records
    );

    // A scheme's price in German ("mit PAYBACK"), everyone's beside it.
    let card = |i: usize| {
        format!(
            r#"<li class="tile"><a href="/p/{i}">Shampoo {i}</a><span class="offer">2,49 € mit PAYBACK</span>
        <span class="price">2,99 €</span><button>In den Warenkorb</button></li>"#
        )
    };
    let body = format!(
        "<html lang=\"de\"><body><h1>Shampoo</h1><ul class=\"grid\">{}</ul></body></html>",
        (1..=6).map(card).collect::<String>()
    );
    let x = run("https://www.shop.example.de/c/shampoo", &body);
    assert!(
        x.records.iter().all(|r| get(r, "price") == Some("2.99")),
        "{:?}",
        x.records
    );
}

#[test]
fn an_amount_in_pence_alone_is_hundredths_of_a_pound() {
    let card = |i: usize| {
        format!(
            r#"<li class="card"><a href="/product/p{i}">Rich tea {i}</a><span class="price">4{i}p</span><span class="unit">23p / 100g</span></li>"#
        )
    };
    let body = format!(
        "<html><body><h1>Biscuits</h1><ul class=\"grid\">{}</ul></body></html>",
        (1..=6).map(card).collect::<String>()
    );
    let x = run("https://www.shop.example.co.uk/biscuits", &body);
    assert_eq!(get(&x.records[0], "price"), Some("0.41"));
    assert_eq!(get(&x.records[0], "currency"), Some("GBP"));
}

#[test]
fn a_heading_the_names_of_several_products_hold_is_their_category() {
    // Microdata products without links, each named "<category> <model>".
    let card = |i: usize| {
        format!(
            r#"<div class="single-product" itemscope itemtype="http://schema.org/Product"><img itemprop="image" src="/i/{i}.jpg" alt="">
        <span itemprop="name">Sejlersko Model {i}</span><div itemprop="offers" itemscope itemtype="http://schema.org/Offer">
        <span itemprop="price">{i}99.00</span><meta itemprop="priceCurrency" content="DKK"></div></div>"#
        )
    };
    let body = format!(
        "<html><body><h1>Sejlersko</h1><div class=\"list-of-products\">{}</div></body></html>",
        (1..=8).map(card).collect::<String>()
    );
    let x = run("https://shoes.example.dk/sko/sejlersko/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8);
}

#[test]
fn masked_links_and_a_price_struck_as_drawn() {
    // Cards whose links are spans with an href for a script to follow; the
    // current price's id says "old_price", the former one is drawn struck.
    let card = |i: usize| {
        format!(
            r#"<td><div class="borderless_box"><span class="secondary_link" href="/angebot/{i}/" title="Sofa {i}"><img alt="Sofa {i}" src="/i/{i}.jpg"></span>
        <div class="product_title"><span class="secondary_link" href="/angebot/{i}/">Sofa {i}</span></div>
        <div class="price"><span style="text-decoration: line-through">{i}99,99 €</span>
        <span class="secondary_link" id="secondary_link_old_price" href="/angebot/{i}/">{i}49,99 €*</span></div></div></td>"#
        )
    };
    let body = format!(
        "<html><body><h1>Sofas</h1><table><tr>{}</tr></table></body></html>",
        (1..=8).map(card).collect::<String>()
    );
    let x = run("https://www.moebel.example.de/wohnen/sofas/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 8, "{:?}", x.records);
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://www.moebel.example.de/angebot/1/")
    );
    assert_eq!(get(&x.records[0], "price"), Some("149.99"));
}
