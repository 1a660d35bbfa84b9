//! Unit tests: each rule with a small real-shaped page.

use crate::money::{parse_machine_price, parse_price};
use crate::text::normalize_availability;
use crate::{extract, Extraction, Page, Request};
use serde_json::json;

fn run(url: &str, body: &str) -> Extraction {
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

fn main_record(url: &str, body: &str) -> crate::record::Record {
    let x = run(url, body);
    assert!(!x.records.is_empty(), "no record; notes: {:?}", x.notes);
    x.records[0].clone()
}

fn get<'a>(r: &'a crate::record::Record, k: &str) -> Option<&'a str> {
    r.value(k)
}

fn product_page(inner: &str) -> String {
    format!("<!doctype html><html><head><title>Shop</title></head><body><header><nav><a href=\"/\">Home</a></nav></header><main>{inner}</main><footer>© Shop</footer></body></html>")
}

// ---------------------------------------------------------------- prices

fn price_of(text: &str) -> (String, Option<String>) {
    let p = parse_price(text).unwrap_or_else(|| panic!("no price in {text:?}"));
    (p.value, p.currency)
}

#[test]
fn price_german_format() {
    assert_eq!(
        price_of("1.234,56 €"),
        ("1234.56".into(), Some("EUR".into()))
    );
}

#[test]
fn price_english_format() {
    assert_eq!(
        price_of("$1,234.56"),
        ("1234.56".into(), Some("USD".into()))
    );
}

#[test]
fn price_space_thousands() {
    assert_eq!(
        price_of("1 234,56 zł"),
        ("1234.56".into(), Some("PLN".into()))
    );
    assert_eq!(
        price_of("1\u{a0}234,56\u{a0}€"),
        ("1234.56".into(), Some("EUR".into()))
    );
    assert_eq!(
        price_of("2\u{202f}499 Kč"),
        ("2499".into(), Some("CZK".into()))
    );
}

#[test]
fn price_swiss_apostrophe() {
    assert_eq!(
        price_of("CHF 1'234.50"),
        ("1234.50".into(), Some("CHF".into()))
    );
}

#[test]
fn price_yen_and_won() {
    assert_eq!(price_of("¥1234"), ("1234".into(), Some("JPY".into())));
    assert_eq!(price_of("30,000원"), ("30000".into(), Some("KRW".into())));
}

#[test]
fn price_thousands_without_decimals() {
    assert_eq!(price_of("Rs 23,450").0, "23450");
    assert_eq!(price_of("1.234 €").0, "1234");
    assert_eq!(price_of("0,99 €").0, "0.99");
    assert_eq!(price_of("12,5 €").0, "12.5");
}

#[test]
fn price_range_takes_low_end() {
    assert_eq!(price_of("10,00 € - 20,00 €").0, "10.00");
    assert_eq!(price_of("$19.99–$29.99").0, "19.99");
}

#[test]
fn price_next_to_currency_among_numbers() {
    // "8 offers from 98,65 €": the number by the currency is the price.
    assert_eq!(price_of("8 Optionen von 98,65 €").0, "98.65");
}

#[test]
fn price_not_inside_codes() {
    assert!(parse_price("B07FW264WL").is_none());
}

#[test]
fn machine_prices_use_dot() {
    assert_eq!(parse_machine_price("1234.5").as_deref(), Some("1234.5"));
    assert_eq!(parse_machine_price("2.449").as_deref(), Some("2.449"));
    assert_eq!(parse_machine_price("1.234,56").as_deref(), Some("1234.56"));
    assert_eq!(parse_machine_price("").as_deref(), None);
}

#[test]
fn split_price_with_sup_cents() {
    let body = product_page(
        r#"<h1>Desk lamp</h1><div class="product-price"><span class="currency">€</span><span>12</span><sup>99</sup></div>"#,
    );
    let r = main_record("https://shop.example.de/p/lamp", &body);
    assert_eq!(get(&r, "price"), Some("12.99"));
    assert_eq!(get(&r, "currency"), Some("EUR"));
}

#[test]
fn split_price_whole_and_fraction_elements() {
    let body = product_page(
        r#"<h1 id="title">Gothamite socks</h1>
        <div id="corePrice"><span class="a-price" data-a-size="xl"><span class="a-offscreen">$87.11</span>
        <span aria-hidden="true"><span class="a-price-symbol">$</span><span class="a-price-whole">87<span class="a-price-decimal">.</span></span><span class="a-price-fraction">11</span></span></span></div>"#,
    );
    let r = main_record("https://www.shop.example.com/dp/X1", &body);
    assert_eq!(get(&r, "price"), Some("87.11"));
    assert_eq!(get(&r, "currency"), Some("USD"));
}

#[test]
fn sale_price_beats_struck_list_price() {
    let body = product_page(
        r#"<h1>Trail shoe</h1>
        <div class="prices"><del class="price price--old">€ 99,00</del>
        <span class="price price--sale">€ 79,00</span></div>
        <p class="shipping-cost">Versand: 4,95 €</p>"#,
    );
    let r = main_record("https://shop.example.de/p/shoe", &body);
    assert_eq!(get(&r, "price"), Some("79.00"));
}

#[test]
fn main_price_not_neighbour_products() {
    let body = product_page(
        r#"<h1>Potapljaška maska</h1>
        <ul class="list-unstyled"><li class="price"><span class="price-live">100.00€</span></li></ul>
        <div class="related-products">
          <div class="product-thumb"><h4><a href="/a">A</a></h4><div class="prices"><span class="price">150.00€</span></div></div>
          <div class="product-thumb"><h4><a href="/b">B</a></h4><div class="prices"><span class="price">50.00€</span></div></div>
          <div class="product-thumb"><h4><a href="/c">C</a></h4><div class="prices"><span class="price">55.00€</span></div></div>
        </div>"#,
    );
    let r = main_record("https://shop.example.si/maska", &body);
    assert_eq!(get(&r, "price"), Some("100.00"));
    assert_eq!(get(&r, "currency"), Some("EUR"));
}

#[test]
fn price_with_currency_in_next_element() {
    let body = product_page(
        r#"<h1>鵝肉鬆</h1><table><tr><td><del>420</del> 元</td></tr>
        <tr><td><strong>特價</strong> <span style="font:bold 27px Verdana;color:#ff0000">294</span><span> 元 </span></td></tr></table>"#,
    );
    let r = main_record("https://shop.example.com.tw/M1.htm", &body);
    assert_eq!(get(&r, "price"), Some("294"));
}

#[test]
fn currency_from_tld_and_language() {
    let body = product_page(r#"<h1>Tasse</h1><span class="price">12,99</span>"#);
    let r = main_record("https://shop.example.de/tasse", &body);
    assert_eq!(get(&r, "price"), Some("12.99"));
    assert_eq!(get(&r, "currency"), Some("EUR"));

    let body =
        r#"<html lang="ja"><body><h1>湯呑</h1><span class="price">¥1,200</span></body></html>"#;
    let r = main_record("https://shop.example.com/item/1", body);
    assert_eq!(get(&r, "price"), Some("1200"));
    assert_eq!(get(&r, "currency"), Some("JPY"));

    let body = product_page(r#"<h1>Zapatillas</h1><span class="price">$ 3.499</span>"#);
    let r = main_record("https://www.shop.example.com.ar/zapatillas", &body);
    assert_eq!(get(&r, "price"), Some("3499"));
    assert_eq!(get(&r, "currency"), Some("ARS"));
}

// ---------------------------------------------------------------- JSON-LD

#[test]
fn jsonld_product_with_offer() {
    let body = product_page(
        r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Shop"}</script>
        <script type="application/ld+json">{"@context":"https://schema.org/","@type":"Product","name":"Kärcher K 3",
        "sku":"2800395267","gtin13":"4054278533728","brand":{"@type":"Brand","name":"KÄRCHER"},
        "offers":{"@type":"Offer","price":"119.01","priceCurrency":"EUR","availability":"http://schema.org/InStock",
        "itemCondition":"https://schema.org/NewCondition"}}</script><h1>Kärcher K 3</h1>"#,
    );
    let r = main_record("https://shop.example.de/p/k3", &body);
    assert_eq!(get(&r, "price"), Some("119.01"));
    assert_eq!(get(&r, "currency"), Some("EUR"));
    assert_eq!(get(&r, "availability"), Some("InStock"));
    assert_eq!(get(&r, "sku"), Some("2800395267"));
    assert_eq!(get(&r, "gtin"), Some("4054278533728"));
    assert_eq!(get(&r, "brand"), Some("KÄRCHER"));
    assert_eq!(get(&r, "condition"), Some("NewCondition"));
}

#[test]
fn jsonld_repairs_comments_cdata_controls_and_trailing_commas() {
    let body = product_page(
        "<script type=\"application/ld+json\">//<![CDATA[\n{\n // product data\n \"@type\": \"Product\", /* main */\n \"name\": \"Line\none\",\n \"sku\": \"AB-1\",\n \"offers\": [{\"@type\": \"Offer\", \"price\": 10.5, \"priceCurrency\": \"GBP\",},],\n}\n//]]></script>",
    );
    let r = main_record("https://shop.example.co.uk/p/1", &body);
    assert_eq!(get(&r, "price"), Some("10.5"));
    assert_eq!(get(&r, "currency"), Some("GBP"));
    assert_eq!(get(&r, "sku"), Some("AB-1"));
    assert_eq!(get(&r, "name"), Some("Line one"));
}

#[test]
fn jsonld_html_comment_wrapper_and_lowercase_type() {
    let body = product_page(
        r#"<script type="application/ld+json"><!-- {"@type":"product","name":"Mini","sku":"83810610","offers":{"@type":"Offer","price":"49.00","availability":"InStock"}} --></script>"#,
    );
    let r = main_record("https://shop.example.com/mini", &body);
    assert_eq!(get(&r, "price"), Some("49.00"));
    assert_eq!(get(&r, "availability"), Some("InStock"));
}

#[test]
fn jsonld_graph_and_aggregate_offer() {
    let body = product_page(
        r#"<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
        {"@type":"WebPage","@id":"https://shop.example.com/p/1#page"},
        {"@type":"Product","name":"Tent","mpn":"T-200","productID":"isbn:9780552173742",
         "offers":{"@type":"AggregateOffer","lowPrice":"199.00","highPrice":"249.00","priceCurrency":"USD",
         "offers":[{"@type":"Offer","price":"199.00","availability":"https://schema.org/OutOfStock"},
                   {"@type":"Offer","price":"249.00","availability":"https://schema.org/InStock"}]}}]}</script>"#,
    );
    let r = main_record("https://shop.example.com/p/1", &body);
    assert_eq!(get(&r, "price"), Some("199.00"));
    assert_eq!(get(&r, "currency"), Some("USD"));
    assert_eq!(get(&r, "mpn"), Some("T-200"));
    assert_eq!(get(&r, "gtin"), Some("9780552173742"));
    // One of the priced offers is in stock: the product can be bought.
    assert_eq!(get(&r, "availability"), Some("InStock"));
}

#[test]
fn jsonld_main_product_is_the_page_url_not_related() {
    let body = product_page(
        r#"<script type="application/ld+json">[
        {"@type":"Product","name":"Other thing","url":"https://shop.example.com/p/other","offers":{"price":"5.00","priceCurrency":"EUR"}},
        {"@type":"Product","name":"This thing","url":"https://shop.example.com/p/this","sku":"THIS-1","offers":{"price":"7.00","priceCurrency":"EUR"}}
        ]</script><h1>This thing</h1>"#,
    );
    let r = main_record("https://shop.example.com/p/this?ref=home", &body);
    assert_eq!(get(&r, "sku"), Some("THIS-1"));
    assert_eq!(get(&r, "price"), Some("7.00"));
}

#[test]
fn jsonld_zero_price_offer_is_ignored() {
    let body = product_page(
        r#"<script type="application/ld+json">{"@type":"Product","name":"Perfume","sku":"101693",
        "offers":{"@type":"Offer","price":"0","availability":"http://schema.org/OutOfStock"}}</script>
        <h1>Perfume</h1><button type="submit" class="add-to-cart">Add to cart</button>"#,
    );
    let r = main_record("https://shop.example.co.il/Prod/101693/", &body);
    assert_eq!(get(&r, "price"), None);
    assert_eq!(get(&r, "availability"), Some("InStock"));
}

#[test]
fn markup_list_price_replaced_by_visible_sale_price() {
    let body = product_page(
        r#"<div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Fairy Oak</h1>
        <div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="price" content="18.00"><meta itemprop="priceCurrency" content="EUR"></div>
        <div class="price offers"><span class="actual-price">€ 17,10</span> <span class="barred">€ 18,00</span> -5%</div></div>"#,
    );
    let r = main_record("https://shop.example.it/libri/1", &body);
    assert_eq!(get(&r, "price"), Some("17.10"));
}

// ---------------------------------------------------------------- microdata, RDFa, OpenGraph

#[test]
fn microdata_product() {
    let body = product_page(
        r#"<div itemscope itemtype="https://schema.org/Product">
          <h1 itemprop="name">Sealy pillow</h1>
          <span itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Sealy</span></span>
          <span itemprop="sku">418295</span>
          <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
            <span itemprop="priceCurrency" content="USD">$</span><span itemprop="price" content="169.99">169.99</span>
            <link itemprop="availability" href="https://schema.org/InStock">
          </div>
        </div>"#,
    );
    let x = run("https://shop.example.com/prod/418295", &body);
    let r = &x.records[0];
    assert_eq!(get(r, "price"), Some("169.99"));
    assert_eq!(get(r, "currency"), Some("USD"));
    assert_eq!(get(r, "sku"), Some("418295"));
    assert_eq!(get(r, "brand"), Some("Sealy"));
    assert_eq!(get(r, "availability"), Some("InStock"));
    assert!(x.notes.iter().any(|n| n == "microdata"), "{:?}", x.notes);
}

#[test]
fn rdfa_product() {
    let body = product_page(
        r#"<div vocab="https://schema.org/" typeof="Product">
          <h1 property="name">Robot mower</h1>
          <span property="sku">763127</span>
          <div property="offers" typeof="Offer">
            <span property="price" content="978.00">978,00 €</span>
            <meta property="priceCurrency" content="EUR">
            <link property="availability" href="https://schema.org/InStock">
          </div>
        </div>"#,
    );
    let x = run("https://shop.example.ee/p/mower", &body);
    let r = &x.records[0];
    assert_eq!(get(r, "price"), Some("978.00"));
    assert_eq!(get(r, "sku"), Some("763127"));
    assert_eq!(get(r, "availability"), Some("InStock"));
    assert!(x.notes.iter().any(|n| n == "rdfa"), "{:?}", x.notes);
}

#[test]
fn opengraph_product_tags() {
    let body = r#"<html><head>
      <meta property="og:type" content="product">
      <meta property="og:title" content="Sound book">
      <meta property="product:price:amount" content="10800">
      <meta property="product:price:currency" content="KRW">
      <meta property="product:availability" content="in stock">
      <meta property="product:retailer_item_id" content="4548094738">
      <meta property="product:brand" content="Doodle">
    </head><body><h1>Sound book</h1></body></html>"#;
    let x = run("http://shop.example.co.kr/deal/4548094738", body);
    let r = &x.records[0];
    assert_eq!(get(r, "price"), Some("10800"));
    assert_eq!(get(r, "currency"), Some("KRW"));
    assert_eq!(get(r, "availability"), Some("InStock"));
    assert_eq!(get(r, "sku"), Some("4548094738"));
    assert_eq!(get(r, "brand"), Some("Doodle"));
    assert!(x.notes.iter().any(|n| n == "opengraph"), "{:?}", x.notes);
}

#[test]
fn availability_urls_normalized() {
    assert_eq!(
        normalize_availability("http://schema.org/InStock").as_deref(),
        Some("InStock")
    );
    assert_eq!(
        normalize_availability("https://schema.org/OutOfStock").as_deref(),
        Some("OutOfStock")
    );
    assert_eq!(
        normalize_availability("schema:PreOrder").as_deref(),
        Some("PreOrder")
    );
    assert_eq!(
        normalize_availability("BackOrder").as_deref(),
        Some("BackOrder")
    );
    assert_eq!(
        normalize_availability("Discontinued").as_deref(),
        Some("Discontinued")
    );
    assert_eq!(
        normalize_availability("in stock").as_deref(),
        Some("InStock")
    );
}

// ---------------------------------------------------------------- identifiers

#[test]
fn labelled_sku_german() {
    let body = product_page(
        r#"<h1>Filzstift</h1><span class="price">CHF 19.50</span><p>Art.-Nr.: 1049084</p>"#,
    );
    let r = main_record("https://shop.example.ch/de/filzstift", &body);
    assert_eq!(get(&r, "sku"), Some("1049084"));
}

#[test]
fn labelled_asin_in_table_and_model() {
    let body = product_page(
        r#"<h1>Sink</h1><span class="price">$34.98</span>
        <table id="productDetails"><tr><th>Item model number</th><td>HMP 2000</td></tr>
        <tr><th>ASIN</th><td>B001FK81PU</td></tr></table>"#,
    );
    let r = main_record("https://www.shop.example.com/dp/B001FK81PU", &body);
    assert_eq!(get(&r, "sku"), Some("B001FK81PU"));
    assert_eq!(get(&r, "mpn"), Some("HMP 2000"));
}

#[test]
fn labelled_reference_french_and_bullet_asin() {
    let body = product_page(
        r#"<h1>Montre</h1><span class="price">66,75 €</span>
        <ul><li><span class="a-text-bold">ASIN &rlm; : &lrm;</span><span>B082QBCYY8</span></li></ul>"#,
    );
    let r = main_record("https://www.shop.example.fr/dp/B082QBCYY8", &body);
    assert_eq!(get(&r, "sku"), Some("B082QBCYY8"));

    let body = product_page(
        r#"<h1>Chaise</h1><span class="price">49,00 €</span><div>Référence : CH-4410</div>"#,
    );
    let r = main_record("https://shop.example.fr/chaise", &body);
    assert_eq!(get(&r, "sku"), Some("CH-4410"));
}

#[test]
fn labelled_product_code_beats_internal_markup_id() {
    let body = product_page(
        r#"<script type="application/ld+json">{"@type":"Product","name":"Nest Mini","sku":"238368885",
        "offers":{"@type":"Offer","price":"49.00","priceCurrency":"GBP"}}</script>
        <h1>Nest Mini</h1><p class="product-code">Product code: 83810610</p>"#,
    );
    let r = main_record("https://shop.example.com/nest-mini/p4781720", &body);
    assert_eq!(get(&r, "sku"), Some("83810610"));
}

#[test]
fn sku_from_hidden_form_field_and_url() {
    let body = product_page(
        r#"<h1>Socks</h1><span class="price">$87.11</span>
        <form><input type="hidden" name="ASIN" value="B01GOH7PKA"></form>"#,
    );
    let r = main_record("https://www.shop.example.com/dp/B01GOH7PKA", &body);
    assert_eq!(get(&r, "sku"), Some("B01GOH7PKA"));

    // The identifier written in the URL and repeated by the page.
    let body = product_page(
        r#"<h1>iMac</h1><span class="price">4 386 €</span>
        <a href="/compare?add=112949990">compare</a><a href="/wish?id=112949990">wish</a>
        <div data-product="112949990"></div>"#,
    );
    let r = main_record(
        "https://shop.example.sk/pocitace/apple-imac-112949990",
        &body,
    );
    assert_eq!(get(&r, "sku"), Some("112949990"));
}

#[test]
fn sku_from_script_data_layer() {
    let body = product_page(
        r#"<script>window.dataLayer=[{"name":"Microondas","price":"109.00","sku":"1236291","brand":"Panasonic"}];</script>
        <h1>Microondas</h1><span class="price">109,00 €</span>"#,
    );
    let r = main_record("https://shop.example.pt/products/microondas", &body);
    assert_eq!(get(&r, "sku"), Some("1236291"));
}

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
