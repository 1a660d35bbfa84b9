//! One small page per class of miss seen on shops the rules were not
//! written against, for amounts: cards without a price, free items,
//! regional currency spellings and bare signs, which price is current,
//! locale number formats (which list is the page's: `list_class_tests`).

use crate::listing_tests::{get, run};
use crate::{Extraction, PageKind};
use serde_json::json;

/// A page of six cards, each made by `card`, in a result list.
pub(crate) fn grid(lang: &str, card: impl Fn(usize) -> String) -> String {
    let cards: String = (1..=6).map(card).collect();
    format!(
        "<html lang=\"{lang}\"><body><h1>Results</h1><ul class=\"results\">{cards}</ul></body></html>"
    )
}

pub(crate) fn prices(x: &Extraction) -> Vec<Option<&str>> {
    x.records.iter().map(|r| get(r, "price")).collect()
}

pub(crate) fn currencies(x: &Extraction) -> Vec<Option<&str>> {
    x.records.iter().map(|r| get(r, "currency")).collect()
}

#[test]
fn cards_without_a_price_are_products_of_the_list() {
    let body = grid("en", |i| {
        let price = match i {
            2 => "<span class=\"note\">Call for price</span>".to_string(),
            5 => "<span class=\"stock\">Sold out</span>".to_string(),
            _ => format!("<span class=\"price\">${i}9.00</span>"),
        };
        format!("<li class=\"card\"><a href=\"/p/item-{i}\"><img src=\"/i/{i}.jpg\" alt=\"\">Lamp {i}</a>{price}</li>")
    });
    let x = run("https://lamps.example.com/c/lamps", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(
        prices(&x),
        [
            Some("19.00"),
            None,
            Some("39.00"),
            Some("49.00"),
            None,
            Some("69.00")
        ]
    );
    assert_eq!(get(&x.records[1], "name"), Some("Lamp 2"));
    assert_eq!(
        get(&x.records[1], "url"),
        Some("https://lamps.example.com/p/item-2")
    );
    // Every row says the list's currency.
    assert!(currencies(&x).iter().all(|c| *c == Some("USD")));
    assert_eq!(get(&x.records[4], "availability"), Some("OutOfStock"));
}

#[test]
fn free_items_cost_nothing() {
    let body = grid("en", |i| {
        let price = match i {
            1 => "<div class=\"search_price\">Free to Play</div>".to_string(),
            4 => "<div class=\"search_price\">Free</div>".to_string(),
            _ => format!("<div class=\"search_price\">CDN$ {i}.99</div>"),
        };
        format!("<li class=\"row\"><a href=\"/app/{i}00/\">Game {i}</a>{price}</li>")
    });
    let x = run("https://store.example.com/search/?term=games", &body);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(
        prices(&x),
        [
            Some("0.00"),
            Some("2.99"),
            Some("3.99"),
            Some("0.00"),
            Some("5.99"),
            Some("6.99")
        ]
    );
    assert!(
        currencies(&x).iter().all(|c| *c == Some("CAD")),
        "{:?}",
        x.records
    );
}

#[test]
fn regional_dollar_spellings_name_their_currency() {
    for (sign, code) in [
        ("CDN$", "CAD"),
        ("CAD$", "CAD"),
        ("C$", "CAD"),
        ("CA$", "CAD"),
        ("CDN $", "CAD"),
        ("A$", "AUD"),
        ("AU$", "AUD"),
        ("NZ$", "NZD"),
        ("HK$", "HKD"),
        ("S$", "SGD"),
        ("SG$", "SGD"),
        ("US$", "USD"),
        ("US $", "USD"),
        ("R$", "BRL"),
        ("MX$", "MXN"),
        ("NT$", "TWD"),
    ] {
        let body = grid("en", |i| {
            format!("<li class=\"card\"><a href=\"/p/{i}\">Item {i}</a><span class=\"price\">{sign}{i}2.50</span></li>")
        });
        // A page that would otherwise read a bare "$" as US dollars.
        let x = run("https://shop.example.com/all", &body);
        assert_eq!(x.records.len(), 6, "{sign}");
        assert_eq!(get(&x.records[0], "currency"), Some(code), "{sign}");
        assert_eq!(get(&x.records[0], "price"), Some("12.50"), "{sign}");
    }
}

#[test]
fn a_bare_sign_is_resolved_by_the_page_or_left_unresolved() {
    let card = |i: usize| {
        format!("<li class=\"card\"><a href=\"/p/{i}\">Item {i}</a><span class=\"price\">${i}2.50</span></li>")
    };
    // The region in the URL.
    let x = run("https://shop.example.com/en-ca/search", &grid("en", card));
    assert_eq!(get(&x.records[0], "currency"), Some("CAD"));
    // og:locale.
    let body = grid("en", card).replace(
        "<body>",
        "<head><meta property=\"og:locale\" content=\"en_AU\"></head><body>",
    );
    let x = run("https://shop.example.com/search", &body);
    assert_eq!(get(&x.records[0], "currency"), Some("AUD"));
    // A country domain.
    let x = run("https://shop.example.com.mx/buscar", &grid("es", card));
    assert_eq!(get(&x.records[0], "currency"), Some("MXN"));
    // Spanish on a generic domain: several countries write "$".
    let x = run("https://shop.example.com/buscar", &grid("es", card));
    assert_eq!(x.records.len(), 6);
    assert_eq!(get(&x.records[0], "currency"), None);
    // "kr" by the page's language.
    let kr = |i: usize| {
        format!("<li class=\"card\"><a href=\"/p/{i}\">Vare {i}</a><span class=\"price\">1 2{i}9,00 kr</span></li>")
    };
    let x = run("https://shop.example.com/sok", &grid("nb", kr));
    assert_eq!(get(&x.records[0], "currency"), Some("NOK"));
    assert_eq!(get(&x.records[0], "price"), Some("1219.00"));
    let x = run("https://shop.example.com/sok", &grid("", kr));
    assert_eq!(get(&x.records[0], "currency"), None);
}

#[test]
fn locale_number_formats() {
    for (text, value) in [
        ("¥31,182", "31182"),
        ("34.000 Ft", "34000"),
        ("1 299,00 kr", "1299.00"),
        ("R$ 1.299,90", "1299.90"),
        ("1.299,- €", "1299"),
        ("$1,234.56", "1234.56"),
        ("CHF 1'234.50", "1234.50"),
    ] {
        let p = crate::money::parse_price(text).unwrap_or_else(|| panic!("{text}"));
        let got: f64 = p.value.parse().unwrap();
        let want: f64 = value.parse().unwrap();
        assert_eq!(got, want, "{text}");
    }
}

#[test]
fn former_and_members_prices_are_not_current() {
    let body = grid("en-GB", |i| {
        match i {
        1 => "<li class=\"card\"><a href=\"/p/1\">Kettle 1</a><span>was £45.00</span> <span>£30.00</span></li>".into(),
        2 => "<li class=\"card\"><a href=\"/p/2\">Kettle 2</a><del>£50.00</del> <span>£35.00</span></li>".into(),
        3 => "<li class=\"card\"><a href=\"/p/3\">Kettle 3</a><span>RRP £60.00</span> <span>£40.00</span></li>".into(),
        4 => "<li class=\"card\"><a href=\"/p/4\">Kettle 4</a><span class=\"member-price\">Club price £20.00</span> <span class=\"price\">£25.00</span></li>".into(),
        _ => format!("<li class=\"card\"><a href=\"/p/{i}\">Kettle {i}</a><span class=\"price\">£{i}5.00</span></li>"),
    }
    });
    let x = run("https://shop.example.co.uk/kettles", &body);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(
        prices(&x),
        [
            Some("30.00"),
            Some("35.00"),
            Some("40.00"),
            Some("25.00"),
            Some("55.00"),
            Some("65.00")
        ]
    );
    assert!(currencies(&x).iter().all(|c| *c == Some("GBP")));
}

#[test]
fn the_price_a_shopper_pays_includes_tax() {
    let body = grid("de", |i| {
        format!("<li class=\"card\"><a href=\"/p/{i}\">Tisch {i}</a><span class=\"price-excl\">{i}0,00 € exkl. MwSt.</span><span class=\"price-incl\">{i}1,90 € inkl. MwSt.</span></li>")
    });
    let x = run("https://shop.example.de/tische", &body);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(
        get(&x.records[0], "price"),
        Some("11.90"),
        "{:?}",
        x.records[0]
    );
    let body = grid("en-GB", |i| {
        format!("<li class=\"card\"><a href=\"/p/{i}\">Desk {i}</a><span>£{i}0.00 ex VAT</span><span>£{i}2.00 inc VAT</span></li>")
    });
    let x = run("https://shop.example.co.uk/desks", &body);
    assert_eq!(
        get(&x.records[0], "price"),
        Some("12.00"),
        "{:?}",
        x.records[0]
    );
}

#[test]
fn cents_in_their_own_element_stay_with_the_amount() {
    let body = grid("en", |i| {
        format!("<li class=\"card\"><a href=\"/p/{i}\">Drill {i}</a><span class=\"price\"><span class=\"currency\">$</span><span class=\"whole\">{i}9</span><span class=\"cents\">97</span></span></li>")
    });
    let x = run("https://tools.example.com/drills", &body);
    assert_eq!(
        get(&x.records[0], "price"),
        Some("19.97"),
        "{:?}",
        x.records[0]
    );
}

#[test]
fn an_amount_in_a_cards_name_is_not_its_price() {
    // Whole-card links labelled with the product's name; two names hold an
    // amount of their own ("$900 OFF", "- $9495").
    let body = grid("en", |i| {
        let name = match i {
            2 => "Turbo E-Bike ($900 OFF)".to_string(),
            4 => format!("Adventure Bike, Low Miles - ${i}495"),
            _ => format!("Mountain Bike {i}"),
        };
        format!(
            "<li><a aria-label=\"{name}\" href=\"/listing/{i}\"><img alt=\"{name}\" src=\"/i/{i}.jpg\"><div class=\"line-clamp-2\">{name}</div><div><span role=\"link\">Springfield</span></div><div aria-label=\"Price ${i},599.00\">${i},599.00</div></a></li>"
        )
    });
    let x = run("https://classifieds.example.com/search?q=bike", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(get(&x.records[1], "name"), Some("Turbo E-Bike ($900 OFF)"));
    assert_eq!(get(&x.records[1], "price"), Some("2599.00"));
    assert_eq!(get(&x.records[3], "price"), Some("4599.00"));
    assert_eq!(
        get(&x.records[3], "name"),
        Some("Adventure Bike, Low Miles - $4495")
    );
    // The title is the product link's own text, amounts and all; the card's
    // price stands apart.
    let body = grid("en", |i| {
        format!(
            "<p class=\"row\"><a href=\"/cto/33{i}.html\">we buy cars for cash!!${i}00-${i}000-786416</a>\
             <span class=\"itemsep\"> - </span><span class=\"itempp\"> ${i}000</span></p>"
        )
    });
    let x = run("https://city.classifieds.example/cto/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[2], Some("3000"));
}

#[test]
fn a_list_whose_cards_show_no_price_is_still_a_list() {
    // An app store's search: each card an icon, a name, a rating and a link
    // to its product page; no card shows an amount.
    let body = grid("en", |i| {
        format!(
            "<li class=\"app\"><a href=\"/store/apps/details?id=com.example.game{i}\">\
             <img src=\"/icons/{i}.png\" alt=\"\"><span class=\"title\">Unicorn Game {i}</span></a>\
             <span class=\"rating\">4.{i} stars</span></li>"
        )
    });
    let x = run("https://apps.example.com/store/search?q=unicorn", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    assert_eq!(get(&x.records[2], "name"), Some("Unicorn Game 3"));
    assert_eq!(
        get(&x.records[2], "url"),
        Some("https://apps.example.com/store/apps/details?id=com.example.game3")
    );
    assert!(prices(&x).iter().all(Option::is_none));
    // Cover art drawn by style (no <img>), the cards on several sites of one
    // domain: a music tag page.
    let body = grid("en", |i| {
        format!(
            "<li class=\"item\"><a href=\"https://artist{i}.music.example/album/record-{i}\">\
             <div class=\"album-art\"></div><div class=\"itemtext\">Record {i}</div></a></li>"
        )
    });
    let x = run("https://music.example/tag/ambient", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6);
    // A row of category tiles and a blog index are no catalog, priced or not.
    for (path, name) in [("/c/lamps-", "Lamps"), ("/blog/2024/05/post-", "Our story")] {
        let body = grid("en", |i| {
            format!("<li class=\"tile\"><a href=\"{path}{i}\"><img src=\"/t/{i}.jpg\" alt=\"\">{name} {i}</a></li>")
        });
        let x = run("https://lamps.example.com/", &body);
        assert_ne!(x.kind, PageKind::Listing, "{path}: {:?}", x.records);
    }
}

#[test]
fn a_price_per_measure_is_not_the_price_of_the_item() {
    let body = grid("en-GB", |i| {
        format!(
            "<li class=\"product\"><a href=\"/shop/berries-{i}.html\">Berries {i}00g</a>\
             <div class=\"pricing\"><p class=\"pricePerUnit\">£1.7{i}<abbr>/</abbr><abbr>unit</abbr></p>\
             <p class=\"pricePerMeasure\">£8.7{i}<abbr>/</abbr><abbr>kg</abbr></p></div></li>"
        )
    });
    let x = run("https://grocer.example.co.uk/berries", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[0], Some("1.71"));
    assert!(currencies(&x).iter().all(|c| *c == Some("GBP")));
    // The comparison price first, in the amount's own text.
    let body = grid("de", |i| {
        format!(
            "<li class=\"product\"><a href=\"/p/kaffee-{i}\">Kaffee {i}</a>\
             <span class=\"base\">12,4{i} € / 1 kg</span><span class=\"price\">6,2{i} €</span></li>"
        )
    });
    let x = run("https://kaffee.example.de/kaffee", &body);
    assert_eq!(prices(&x)[1], Some("6.22"));
}

#[test]
fn a_give_away_costs_nothing() {
    let body = grid("no", |i| {
        let price = if i == 3 {
            "<span class=\"price\">Gis bort</span>".to_string()
        } else {
            format!("<span class=\"price\">{i} 200 kr</span>")
        };
        format!("<li class=\"result\"><a href=\"/item/10000{i}\"><img src=\"/{i}.jpg\" alt=\"\">Skisko {i}</a>{price}</li>")
    });
    let x = run("https://torget.example.no/search?q=skisko", &body);
    assert_eq!(
        prices(&x),
        [
            Some("1200"),
            Some("2200"),
            Some("0.00"),
            Some("4200"),
            Some("5200"),
            Some("6200")
        ]
    );
}

#[test]
fn state_products_without_a_name_key_are_read_when_the_page_shows_their_prices() {
    // The state links each product and prints its price; the cards show
    // the names and prices but link nothing (script navigation).
    let listings: Vec<serde_json::Value> = (1..=4)
        .map(|i| json!({"id": format!("a{i}"), "url": format!("/offer/car-{i}-a{i}"), "price": {"priceFormatted": format!("€ {i}.440"), "suggestedRetailPrice": "€ 18.490"}, "vehicle": {"make": "Car", "model": format!("M{i}")}}))
        .collect();
    let state = json!({"props": {"pageProps": {"listings": listings}}});
    let cards: String = (1..=4)
        .map(|i| format!("<article class=\"listing\"><h2>Car M{i}</h2><p class=\"price\">€ {i}.440</p><p class=\"rrp\">€ 18.490</p></article>"))
        .collect();
    let body = format!(
        "<html lang=\"nl\"><body><main>{cards}</main>\
         <script id=\"__NEXT_DATA__\" type=\"application/json\">{state}</script></body></html>"
    );
    let x = run("https://cars.example.nl/lst", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 4, "{:?}", x.records);
    assert_eq!(
        get(&x.records[2], "url"),
        Some("https://cars.example.nl/offer/car-3-a3")
    );
    assert_eq!(get(&x.records[2], "price"), Some("3440"));
    assert_eq!(get(&x.records[2], "currency"), Some("EUR"));
}

#[test]
fn a_currency_word_in_its_own_element_stays_with_its_amount() {
    // "2 401 471 <span>грн</span> / 89 815 $": the first figure, in
    // hryvnias, is the price; the dollar figure is its conversion.
    let body = grid("uk", |i| {
        format!(
            "<section class=\"ticket\"><a href=\"/flat-{i}0000{i}.html\"><img src=\"/{i}.jpg\" alt=\"\">Flat {i}</a>\
             <div class=\"price\"><b class=\"green\">2 40{i} 471 <span>грн</span></b><span> / 89 81{i} $</span></div></section>"
        )
    });
    let x = run("https://homes.example.ua/uk/sale/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[0], Some("2401471"));
    assert_eq!(currencies(&x)[0], Some("UAH"));
}

#[test]
fn a_base_price_after_the_price_does_not_unmake_it() {
    // "8,25 €" then "(11,00 € / l)": the comparison price follows the price
    // in its own text; the price stays the price.
    let body = grid("de", |i| {
        format!(
            "<div class=\"artikel\"><h2><a href=\"/wein/{i}-joven.php\">201{i} Joven</a></h2>\
             <span class=\"preis\">{i},25 €</span><b>pro 0,75 l</b><span class=\"grundpreis\">(1{i},00 € / l)</span></div>"
        )
    });
    let x = run("https://wein.example.de/rioja/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[0], Some("1.25"));
}

#[test]
fn three_side_bar_boxes_with_prices_are_no_list() {
    // A product page without markup whose side bar holds three priced boxes
    // that lead to pages of different shapes (a search, an ad, a partner).
    let body = "<html lang=\"ru\"><body><div class=\"left\">\
        <div class=\"box\"><a href=\"/?search=moto&price=10\">Подбор мотоцикла</a><span>от 10 $</span></div>\
        <div class=\"box\"><a href=\"/suzuki/DR-Z_400_375743.html\">Мотоцикл</a><span>3450 $</span></div>\
        <div class=\"box\"><a href=\"/go/redirect.php?url=partner\">Полезные сайты</a><span>40 $</span></div></div>\
        <div class=\"content\"><h1>Suzuki DR-Z 400</h1><p>Пробег 12 000 км, один владелец.</p>\
        </div></body></html>";
    let x = run("https://moto.example.ua/suzuki/DR-Z_400_375743.html", body);
    assert_ne!(x.kind, PageKind::Listing, "{:?}", x.records);
}

#[test]
fn an_amount_in_a_cards_description_is_not_its_price() {
    let body = grid("en", |i| {
        format!(
            "<div class=\"item\"><a href=\"/shopping/product/{i}00{i}\"><h3>Apex Silver Gaming PC {i}</h3></a>\
             <div class=\"desc\">Voted the #1 <em>gaming PC</em> under $600 in 2018 by countless reviewers, the best ...</div>\
             <span class=\"price\">$6{i}9.95</span></div>"
        )
    });
    let x = run("https://shopping.example.com/search?q=gaming+pc", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[0], Some("619.95"));
}

#[test]
fn dinars_are_written_with_three_decimals() {
    // "169,000 DT" is 169 Tunisian dinars; "2 075,000 DT" 2075; "2099 DT"
    // a whole number of them.
    let body = grid("fr", |i| {
        let price = match i {
            1 => "169,000 DT".to_string(),
            2 => "2 075,000 DT".to_string(),
            3 => "2099 DT".to_string(),
            _ => format!("{i}9,500 TND"),
        };
        format!("<li class=\"product\"><a href=\"/pc/portable-{i}00{i}.html\">Portable {i}</a><span class=\"price\">{price}</span></li>")
    });
    let x = run("https://www.pc.example.tn/portables", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    let values: Vec<f64> = prices(&x)
        .iter()
        .map(|p| p.unwrap().parse().unwrap())
        .collect();
    assert_eq!(values[..4], [169.0, 2075.0, 2099.0, 49.5]);
    assert!(
        currencies(&x).iter().all(|c| *c == Some("TND")),
        "{:?}",
        currencies(&x)
    );
}

#[test]
fn an_empty_carts_total_is_not_the_pages_price() {
    // "0,000 DT" by the heading (an empty cart's total, written with three
    // decimals): nothing is no page's price, so the list below is the page's.
    let cards: String = (1..=6)
        .map(|i| format!("<li class=\"product\"><a href=\"/smartphones/9500{i}-phone-{i}.html\">Phone {i}</a><span class=\"price\">{i}59,000 DT</span></li>"))
        .collect();
    let body = format!(
        "<html lang=\"fr\"><body><h1>Smartphone Android</h1><div><span class=\"price\">0,000 DT</span></div>\
         <ul class=\"products\">{cards}</ul></body></html>"
    );
    let x = run("https://shop.example.tn/130-smartphones", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.records);
    assert_eq!(x.records.len(), 6);
}

#[test]
fn a_markup_price_the_card_does_not_show_gives_way_to_the_cards_price() {
    // Each card's markup states the site's estimate; the card shows the
    // price paid and, struck, the asking price. Card 6's markup states the
    // shown price and stays.
    let body = grid("en", |i| {
        let stated = if i == 6 { 975 } else { 983 };
        let ld = json!({"@context": "https://schema.org", "@type": "Product", "name": format!("{i}8 Colgate Ave"),
            "url": format!("https://homes.example.ca/listing/{i}8-colgate"),
            "offers": {"@type": "Offer", "price": stated * 1000 + i, "priceCurrency": "CAD"}});
        format!(
            "<li class=\"listing-card\"><script type=\"application/ld+json\">{ld}</script>\
             <h3><a href=\"/listing/{i}8-colgate\">{i}8 Colgate Ave</a></h3>\
             <span class=\"line-through\">$998,00{i}</span> <span class=\"special\">$975,00{i}</span></li>"
        )
    });
    let x = run("https://homes.example.ca/sold/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(x.records.len(), 6, "{:?}", x.records);
    let paid: Vec<Option<f64>> = prices(&x)
        .iter()
        .map(|p| p.and_then(|p| p.parse().ok()))
        .collect();
    assert_eq!(paid[0], Some(975_001.0));
    assert_eq!(paid[5], Some(975_006.0));
}

#[test]
fn an_amount_with_a_minus_is_a_saving_even_in_an_element_named_discount() {
    // A badge "-50,000 TND" named "discount" over the picture; the price
    // and the struck regular price below.
    let body = grid("fr", |i| {
        format!(
            "<article class=\"product\"><a href=\"/phones/{i}-phone-{i}.html\"><img src=\"/{i}.jpg\" alt=\"\"></a>\
             <div class=\"product-flags\"><span class=\"product-flag discount\"><span>-50,000 TND</span></span>\
             <span class=\"sale-badge\">-  TND {i}</span></div>\
             <h5 class=\"product-name\"><a href=\"/phones/{i}-phone-{i}.html\">Phone {i}</a></h5>\
             <span class=\"price product-price\">1 5{i}9,000 TND</span><span class=\"regular-price\">1 6{i}9,000 TND</span></article>"
        )
    });
    let x = run("https://shop.example.tn/25-phones", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[2], Some("1539.000"));
}

#[test]
fn a_screen_reader_line_that_names_the_initial_price_is_a_former_price() {
    // A shop platform's struck and current prices, each repeated in a line
    // for screen readers, in French.
    let body = grid("fr", |i| {
        format!(
            "<li class=\"product\"><a href=\"/produit/souris-{i}/\"><img src=\"/{i}.jpg\" alt=\"\"><h3>Souris {i}</h3></a>\
             <p class=\"price\"><del aria-hidden=\"true\"><span class=\"amount\">{i}6,90 TND</span></del>\
             <span class=\"screen-reader-text\">Le prix initial était : {i}6,90 TND.</span>\
             <ins aria-hidden=\"true\"><span class=\"amount\">{i}3,90 TND</span></ins>\
             <span class=\"screen-reader-text\">Le prix actuel est : {i}3,90 TND.</span></p></li>"
        )
    });
    let x = run("https://wiki.example.tn/souris/", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    let paid: Vec<Option<f64>> = prices(&x)
        .iter()
        .map(|p| p.and_then(|p| p.parse().ok()))
        .collect();
    assert_eq!(paid[0], Some(13.9), "{:?}", x.records);
    assert_eq!(paid[4], Some(53.9));
}

#[test]
fn a_sentence_that_opens_with_the_amounts_currency_leaves_the_amount_the_price() {
    // "<b>1.594,52</b> € | Am Falkenberg 11M, 12524 Berlin": the euro sign
    // is the bold amount's; the house number is no price. A count before a
    // price of its own ("1" "€ 633,75") stays a count.
    let body = grid("de", |i| {
        format!(
            "<li class=\"flat\"><button><b>3,0</b> Zimmer, <b>94,35</b> m², <b>1.{i}94,52</b> &euro; | Am Falkenberg 1{i}M, 12524 Berlin</button>\
             <a href=\"https://homes.example.de/properties/W{i}-0502.html\">Alle Details</a><span class=\"offers\"> 1 </span></li>"
        )
    });
    let x = run("https://flats.example.de/wohnungsfinder", &body);
    assert_eq!(x.kind, PageKind::Listing, "{:?}", x.notes);
    assert_eq!(prices(&x)[2], Some("1394.52"), "{:?}", x.records);
}
