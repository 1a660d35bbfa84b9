//! Unit tests of stock, listings, links and odd input, each rule with a
//! small real-shaped page.

use crate::tests::{get, main_record, price_of, product_page, run};
use crate::{extract, Page, Request};
use serde_json::json;

// ---------------------------------------------------------------- availability

fn availability_of(url: &str, inner: &str) -> Option<String> {
    let body = product_page(inner);
    let x = run(url, &body);
    x.records
        .first()
        .and_then(|r| get(r, "availability").map(String::from))
}

#[test]
fn buy_buttons_in_several_languages() {
    for (url, button) in [
        (
            "https://shop.example.de/p",
            r#"<button type="submit">In den Warenkorb</button>"#,
        ),
        (
            "https://shop.example.fr/p",
            r#"<button class="btn">Ajouter au panier</button>"#,
        ),
        (
            "https://shop.example.com/p",
            r#"<input type="submit" value="Add to Cart">"#,
        ),
        (
            "https://shop.example.it/p",
            r#"<button>Aggiungi al carrello</button>"#,
        ),
        (
            "https://shop.example.co.uk/p",
            r#"<button id="add-to-basket-button">Add to your basket</button>"#,
        ),
    ] {
        let inner = format!(r#"<h1>Item</h1><span class="sku">SKU: X-100</span>{button}"#);
        assert_eq!(
            availability_of(url, &inner).as_deref(),
            Some("InStock"),
            "{button}"
        );
    }
}

#[test]
fn disabled_buy_button_does_not_count() {
    let inner = r#"<h1>Item</h1><p>SKU: X-100</p><button disabled>Add to cart</button>"#;
    assert_eq!(availability_of("https://shop.example.com/p", inner), None);
}

#[test]
fn stock_texts_in_several_languages() {
    for (text, want) in [
        ("Auf Lager", "InStock"),
        ("In stock.", "InStock"),
        ("Nur noch 1 auf Lager", "InStock"),
        ("Out of stock", "OutOfStock"),
        ("Derzeit nicht verfügbar.", "OutOfStock"),
        ("Épuisé", "OutOfStock"),
        ("Agotado", "OutOfStock"),
        ("Esaurito", "OutOfStock"),
        ("Нет в наличии", "OutOfStock"),
        ("Attualmente non disponibile", "OutOfStock"),
        ("En stock", "InStock"),
    ] {
        let inner = format!(
            r#"<h1>Item</h1><p>SKU: X-100</p><div id="availability"><span>{text}</span></div>"#
        );
        assert_eq!(
            availability_of("https://shop.example.com/p", &inner).as_deref(),
            Some(want),
            "{text}"
        );
    }
}

#[test]
fn stock_word_inside_a_sentence_is_not_a_statement() {
    let inner = r#"<h1>Item</h1><p>SKU: X-100</p><p>为了避免让消费者因缺貨与调货等待太久，请下单前请先询问是否有现货。</p>"#;
    assert_eq!(availability_of("https://shop.example.com/p", inner), None);
}

#[test]
fn no_stock_signal_is_not_out_of_stock() {
    // A price and nothing about stock: offered, so InStock (noted as inferred).
    let body = product_page(r#"<h1>Item</h1><span class="price">12,00 €</span>"#);
    let x = run("https://shop.example.de/p", &body);
    assert_eq!(get(&x.records[0], "availability"), Some("InStock"));
    assert!(x.notes.iter().any(|n| n.contains("inferred")));
    // No price, no stock text: nothing is claimed.
    let inner = r#"<h1>Item</h1><p>SKU: X-100</p>"#;
    assert_eq!(availability_of("https://shop.example.com/p", inner), None);
}

// ---------------------------------------------------------------- listings and links

fn listing_jsonld(n: usize) -> String {
    let items: Vec<String> = (1..=n)
        .map(|i| {
            format!(
                r#"{{"@type":"ListItem","position":{i},"item":{{"@type":"Product","name":"Shoe {i}","url":"/p/shoe-{i}","sku":"S{i}","offers":{{"@type":"Offer","price":"{i}9.90","priceCurrency":"EUR"}}}}}}"#
            )
        })
        .collect();
    format!(
        r#"<script type="application/ld+json">{{"@type":"ItemList","itemListElement":[{}]}}</script>"#,
        items.join(",")
    )
}

#[test]
fn listing_gives_one_record_per_product() {
    let body = product_page(&format!("<h1>Shoes</h1>{}", listing_jsonld(3)));
    let x = run("https://shop.example.de/c/shoes", &body);
    assert_eq!(x.records.len(), 3);
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://shop.example.de/p/shoe-1")
    );
    assert_eq!(get(&x.records[2], "price"), Some("39.90"));
    assert_eq!(get(&x.records[1], "currency"), Some("EUR"));
    assert!(x.complete, "no pagination: the page holds the whole list");
}

#[test]
fn paginated_listing_claims_partial_and_links_next_page() {
    let body = product_page(&format!(
        r#"<h1>Shoes</h1>{}<nav class="pagination"><a href="?page=1">1</a><a href="?page=2">2</a><a rel="next" href="/c/shoes?page=2">Next</a></nav>"#,
        listing_jsonld(3)
    ));
    let x = run("https://shop.example.de/c/shoes", &body);
    assert_eq!(x.records.len(), 3);
    assert!(!x.complete);
    assert_eq!(x.links[0], "https://shop.example.de/c/shoes?page=2");
}

#[test]
fn microdata_listing() {
    let cards: String = (1..=4)
        .map(|i| {
            format!(
                r#"<div itemscope itemtype="http://schema.org/Product"><a itemprop="url" href="/p/{i}"><span itemprop="name">Lamp {i}</span></a>
                <div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="price" content="{i}0.00"><meta itemprop="priceCurrency" content="EUR"></div></div>"#
            )
        })
        .collect();
    let body = product_page(&format!(
        "<h1>Lamps</h1>{cards}<a class=\"next\" href=\"/lamps/page/2\">Weiter</a>"
    ));
    let x = run("https://shop.example.de/lamps", &body);
    assert_eq!(x.records.len(), 4);
    assert_eq!(get(&x.records[3], "name"), Some("Lamp 4"));
    assert!(!x.complete);
}

#[test]
fn product_page_with_related_products_is_not_a_listing() {
    let related: String = (1..=4)
        .map(|i| format!(r#"<div itemscope itemtype="http://schema.org/Product"><span itemprop="name">Other {i}</span><meta itemprop="price" content="{i}.00"></div>"#))
        .collect();
    let body = product_page(&format!(
        r#"<div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Main lamp</h1><meta itemprop="price" content="99.00"><meta itemprop="priceCurrency" content="EUR"></div>{related}"#
    ));
    let x = run("https://shop.example.de/p/main-lamp", &body);
    assert_eq!(x.records.len(), 1);
    assert_eq!(get(&x.records[0], "name"), Some("Main lamp"));
    assert_eq!(get(&x.records[0], "price"), Some("99.00"));
    assert!(x.complete);
}

#[test]
fn links_are_absolute_deduplicated_and_bounded() {
    let mut inner = String::from(
        r#"<h1>Cat</h1><a href="/c/a">A</a><a href="/c/a#top">A again</a><a href="https://other.example.org/x">away</a>
        <a href="mailto:x@y.z">mail</a><a href="javascript:void(0)">js</a><a href="../b">B</a>"#,
    );
    for i in 0..300 {
        inner.push_str(&format!(r#"<a href="/p/{i}">p{i}</a>"#));
    }
    let body = product_page(&inner);
    let x = run("https://shop.example.com/c/list/", &body);
    assert!(x.links.len() <= 100);
    assert!(x
        .links
        .contains(&"https://shop.example.com/c/a".to_string()));
    assert!(x
        .links
        .contains(&"https://shop.example.com/c/b".to_string()));
    assert!(x
        .links
        .iter()
        .all(|l| l.starts_with("https://shop.example.com/")));
    let mut sorted = x.links.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), x.links.len(), "links are unique");
}

#[test]
fn empty_page_gives_no_record() {
    let x = run(
        "https://shop.example.com/",
        "<html><body><p>Hello</p></body></html>",
    );
    assert!(x.records.is_empty());
}

#[test]
fn listing_without_markup_from_repeated_cards() {
    let cards: String = (1..=5)
        .map(|i| {
            format!(
                r#"<li class="product-card"><a href="/p/item-{i}"><img src="/img/{i}.jpg" alt="Item {i}"></a>
                <h3 class="product-card__title">Item {i}</h3><span class="product-card__price">{i}9,99 €</span></li>"#
            )
        })
        .collect();
    let body = product_page(&format!(
        r#"<h1>Kategorie</h1><ul class="grid">{cards}</ul><a class="pagination-next" href="/kategorie?page=2">Weiter</a>"#
    ));
    let x = run("https://shop.example.de/kategorie", &body);
    assert_eq!(x.records.len(), 5, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "name"), Some("Item 1"));
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://shop.example.de/p/item-1")
    );
    assert_eq!(get(&x.records[4], "price"), Some("59.99"));
    assert_eq!(get(&x.records[4], "currency"), Some("EUR"));
    assert!(!x.complete);
    assert_eq!(x.links[0], "https://shop.example.de/kategorie?page=2");
}

#[test]
fn odd_input_does_not_panic() {
    for body in [
        "",
        "<",
        "<html><body><script type=\"application/ld+json\">{\"@type\":\"Product\",\"name\":\"ü\",\"offers\":{\"price\":\"€\"}</script>",
        "<div itemscope itemtype=\"http://schema.org/Product\"><div itemscope itemprop=\"offers\">",
        "<p>SKU:</p><p>ISBN: é</p><span class=\"price\">,,,.. €</span><span class=\"price\">1.2.3,4,5 €</span>",
        "<h1>x</h1><span class=\"price\">9999999999999999999999999999 €</span>",
    ] {
        let _ = run("https://shop.example.com/p", body);
        let _ = run("not a url", body);
    }
}

#[test]
fn brand_from_store_links_and_labels() {
    use crate::brand::clean_brand;
    assert_eq!(
        clean_brand("Visit the Gothamite Store").as_deref(),
        Some("Gothamite")
    );
    assert_eq!(
        clean_brand("Besuchen Sie den WELEDA-Store").as_deref(),
        Some("WELEDA")
    );
    assert_eq!(clean_brand("Marque : KONMAY").as_deref(), Some("KONMAY"));
    assert_eq!(
        clean_brand("Brand: 365 by Whole Foods Market").as_deref(),
        Some("365 by Whole Foods Market")
    );
    assert_eq!(clean_brand("Gothamite"), None);
    let body = product_page(
        r#"<h1>Socks</h1><a id="bylineInfo" href="/stores/x">Visit the Gothamite Store</a><span class="price">$9.99</span>"#,
    );
    let r = main_record("https://www.shop.example.com/dp/X1", &body);
    assert_eq!(get(&r, "brand"), Some("Gothamite"));
    // A markup brand that carries its label.
    let body = product_page(
        r#"<div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Micro-ondas</h1>
        <span itemprop="brand">Ver mais artigos da Marca: Panasonic</span><meta itemprop="price" content="109.00"></div>"#,
    );
    let r = main_record("https://shop.example.pt/products/micro", &body);
    assert_eq!(get(&r, "brand"), Some("Panasonic"));
}

#[test]
fn woocommerce_sale_block_and_microdata_text_price() {
    let body = product_page(
        r#"<h1 class="product_title">Mug</h1><p class="price"><del aria-hidden="true"><span class="woocommerce-Price-amount amount"><bdi>20,00&nbsp;<span class="woocommerce-Price-currencySymbol">&euro;</span></bdi></span></del> <ins><span class="woocommerce-Price-amount amount"><bdi>15,00&nbsp;<span class="woocommerce-Price-currencySymbol">&euro;</span></bdi></span></ins></p>"#,
    );
    let r = main_record("https://shop.example.de/produkt/mug/", &body);
    assert_eq!(get(&r, "price"), Some("15.00"));

    let body = product_page(
        r#"<div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Sofa</h1>
        <span itemprop="price">€ 1.299,-</span><meta itemprop="priceCurrency" content="EUR"></div>"#,
    );
    let r = main_record("https://shop.example.nl/sofa", &body);
    assert_eq!(get(&r, "price"), Some("1299"));
}

#[test]
fn hinted_currency_fills_a_page_without_one() {
    let hints = json!({"currency": "CAD", "language": "en"});
    let req = Request {
        entity: "product",
        guidance: None,
        hints: &hints,
    };
    let body = product_page(r#"<h1>Toque</h1><span class="price">24.99</span>"#);
    let page = Page {
        url: "https://shop.example.com/toque",
        status: 200,
        content_type: None,
        body: &body,
    };
    let x = extract(&page, &req).unwrap();
    assert_eq!(get(&x.records[0], "price"), Some("24.99"));
    assert_eq!(get(&x.records[0], "currency"), Some("CAD"));
}

#[test]
fn itemlist_urls_become_links_after_next_page() {
    let body = product_page(
        r#"<h1>Chairs</h1><script type="application/ld+json">{"@context":"https://schema.org","@type":"ItemList",
        "itemListElement":[{"@type":"ListItem","position":1,"url":"/p/chair-1"},{"@type":"ListItem","position":2,"url":"https://shop.example.com/p/chair-2"}]}</script>
        <a href="/about">About</a><link rel="next" href="/chairs?page=2">"#,
    );
    let x = run("https://shop.example.com/chairs", &body);
    assert_eq!(
        &x.links[..3],
        &[
            "https://shop.example.com/chairs?page=2".to_string(),
            "https://shop.example.com/p/chair-1".to_string(),
            "https://shop.example.com/p/chair-2".to_string()
        ]
    );
    assert!(x.records.is_empty());
}

#[test]
fn price_with_currency_as_decimal_separator_and_more_symbols() {
    assert_eq!(price_of("12€50"), ("12.50".into(), Some("EUR".into())));
    assert_eq!(
        price_of("₱1,299.00"),
        ("1299.00".into(), Some("PHP".into()))
    );
    assert_eq!(price_of("RM 59.90"), ("59.90".into(), Some("MYR".into())));
}

#[test]
fn logo_h1_in_header_is_not_the_main_heading() {
    let body = r#"<html><body><header><h1><a href="/">Shop</a></h1><span class="cart-price">0,00 €</span>
      <div class="promo"><span class="price">5,00 €</span></div></header>
      <main><h1>Lamp</h1><div class="product-price">49,00 €</div></main></body></html>"#;
    let r = main_record("https://shop.example.de/lamp", body);
    assert_eq!(get(&r, "price"), Some("49.00"));
}

#[test]
fn title_anchors_prices_without_h1() {
    let body = r#"<html><head><meta property="og:title" content="Velvet armchair, green"></head><body>
      <div class="teaser"><span class="price">€ 15,00</span></div>
      <div class="p-title">Velvet armchair, green</div><div class="p-price">€ 349,00</div>
      <div class="teaser"><span class="price">€ 25,00</span></div>
      <div class="teaser"><span class="price">€ 35,00</span></div></body></html>"#;
    let r = main_record("https://shop.example.ie/armchair", body);
    assert_eq!(get(&r, "price"), Some("349.00"));
}

#[test]
fn letter_currency_marks_are_words() {
    assert_eq!(price_of("8 knives from 12,00 €").0, "12.00");
    assert_eq!(price_of("149 kn").1.as_deref(), Some("HRK"));
    assert_eq!(price_of("199 kr").1.as_deref(), Some("SEK"));
}

#[test]
fn current_price_after_former_price_in_one_text() {
    use crate::money::parse_current_price;
    assert_eq!(
        parse_current_price("- 50 % statt 4.50 CHF 2.25")
            .map(|p| p.value)
            .as_deref(),
        Some("2.25")
    );
    assert_eq!(
        parse_current_price("was £20.00 now £15.00")
            .map(|p| p.value)
            .as_deref(),
        Some("15.00")
    );
    assert_eq!(
        parse_current_price("£15.00").map(|p| p.value).as_deref(),
        Some("15.00")
    );
}

#[test]
fn equal_neighbours_take_the_lower_price() {
    let body = product_page(
        r#"<h1>Смесь</h1><div><span data-tid="a1">1 529 ₽</span> <span data-tid="a2">899 ₽</span></div>"#,
    );
    let r = main_record("https://shop.example.ru/product/1", &body);
    assert_eq!(get(&r, "price"), Some("899"));
}

#[test]
fn short_article_label_and_sku_named_element() {
    let body = product_page(
        r#"<h1>Filzstift</h1><div data-testid="sku"><span>Art.</span><span>1049084</span></div><span class="price">CHF 19.50</span>"#,
    );
    let r = main_record("https://shop.example.ch/de/filzstift-24718", &body);
    assert_eq!(get(&r, "sku"), Some("1049084"));

    let body = product_page(
        r#"<h1>Pen</h1><div class="product-sku">PX-2201</div><span class="price">$4.50</span>"#,
    );
    let r = main_record("https://shop.example.com/pen", &body);
    assert_eq!(get(&r, "sku"), Some("PX-2201"));
}

#[test]
fn jsonld_product_group_reads_its_variants() {
    let body = product_page(
        r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"ProductGroup","name":"Tee","productGroupID":"T1",
        "brand":{"@type":"Brand","name":"Acme"},
        "hasVariant":[
          {"@type":"Product","name":"Tee S","sku":"T1-S","offers":{"@type":"Offer","price":"19.00","priceCurrency":"EUR","availability":"https://schema.org/OutOfStock"}},
          {"@type":"Product","name":"Tee M","sku":"T1-M","offers":{"@type":"Offer","price":"19.00","priceCurrency":"EUR","availability":"https://schema.org/InStock"}}]}</script>
        <h1>Tee</h1>"#,
    );
    let r = main_record("https://shop.example.de/tee", &body);
    assert_eq!(get(&r, "name"), Some("Tee"));
    assert_eq!(get(&r, "price"), Some("19.00"));
    assert_eq!(get(&r, "currency"), Some("EUR"));
    assert_eq!(get(&r, "availability"), Some("InStock"));
    assert_eq!(get(&r, "sku"), Some("T1-S"));
    assert_eq!(get(&r, "brand"), Some("Acme"));
}

#[test]
fn json_body_is_read_as_schema_data() {
    let hints = json!({});
    let req = Request {
        entity: "product",
        guidance: None,
        hints: &hints,
    };
    let body = r#"{"@type":"ItemList","itemListElement":[{"@type":"ListItem","item":{"@type":"Product","name":"A","url":"/p/a","offers":{"price":"1.50","priceCurrency":"EUR"}}},{"@type":"ListItem","item":{"@type":"Product","name":"B","offers":{"price":"2.50","priceCurrency":"EUR"}}}]}"#;
    let page = Page {
        url: "https://api.example.com/list",
        status: 200,
        content_type: Some("application/ld+json"),
        body,
    };
    let x = extract(&page, &req).unwrap();
    assert_eq!(x.records.len(), 2);
    assert_eq!(
        get(&x.records[0], "url"),
        Some("https://api.example.com/p/a")
    );
    assert_eq!(get(&x.records[1], "price"), Some("2.50"));
}

#[test]
fn currency_marks_detected() {
    use crate::money::has_currency_mark;
    for t in [
        "Fr. 12.50",
        "12 €",
        "$5",
        "199 kr",
        "EUR 5",
        "руб 10",
        "10 zł",
        "NT$294",
        "S/ 20",
    ] {
        assert!(has_currency_mark(t), "{t}");
    }
    for t in ["4.0 out of 5 stars", "Größe 42", "12 items"] {
        assert!(!has_currency_mark(t), "{t}");
    }
}

#[test]
fn find_and_words_agree_with_std() {
    use crate::text::{Find, Words};
    let long = format!("{}price-box{}", "x".repeat(1500), "ü".repeat(10));
    let hays = [
        "",
        "p",
        "product-price price--sale",
        "carousel-item js-related",
        "prix: 12,99 € — preis",
        "ppppprice",
        "特價 NT$1,299",
        long.as_str(),
    ];
    let needles = [
        "p", "price", "pprice", "related", "€", "特價", "x", "box", "ü", "", "zzz",
    ];
    for hay in hays {
        for needle in needles {
            assert_eq!(hay.find_str(needle), hay.find(needle), "{hay:?} {needle:?}");
            assert_eq!(hay.has(needle), hay.contains(needle), "{hay:?} {needle:?}");
        }
        static WORDS: Words = Words::new(&["price", "related", "€", "box", "pp"]);
        let words = ["price", "related", "€", "box", "pp"];
        assert_eq!(WORDS.any_in(hay), words.iter().any(|w| hay.contains(w)));
        let found = words
            .iter()
            .enumerate()
            .filter(|(_, w)| hay.contains(*w))
            .fold(0u64, |m, (i, _)| m | 1 << i);
        assert_eq!(WORDS.found_in(hay), found, "{hay:?}");
    }
}

#[test]
fn a_title_that_states_its_price() {
    // Classifieds write the price into the posting's title line.
    let body = "<html><head><title>1999 Mustang GT w/ '08 Engine Swap</title></head><body>\
        <h2 class=\"postingtitle\">1999 Mustang GT w/ '08 Engine Swap - $8500 (Homestead)</h2>\
        <section id=\"postingbody\">Runs great, 80k miles on the engine. Call 305 555 0199.</section>\
        </body></html>";
    let r = main_record("https://city.classifieds.example/cto/3437079882.html", body);
    assert_eq!(get(&r, "price"), Some("8500"));
    assert_eq!(get(&r, "currency"), Some("USD"));
}
