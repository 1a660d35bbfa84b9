//! Unit tests of product pages: each rule with a small real-shaped page.
//! (Stock, listings and links: `page_tests`.)

use crate::money::{parse_machine_price, parse_price};
use crate::text::normalize_availability;
use crate::{extract, Extraction, Page, Request};
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

pub(crate) fn main_record(url: &str, body: &str) -> crate::record::Record {
    let x = run(url, body);
    assert!(!x.records.is_empty(), "no record; notes: {:?}", x.notes);
    x.records[0].clone()
}

pub(crate) fn get<'a>(r: &'a crate::record::Record, k: &str) -> Option<&'a str> {
    r.value(k)
}

pub(crate) fn product_page(inner: &str) -> String {
    format!("<!doctype html><html><head><title>Shop</title></head><body><header><nav><a href=\"/\">Home</a></nav></header><main>{inner}</main><footer>© Shop</footer></body></html>")
}

// ---------------------------------------------------------------- prices

pub(crate) fn price_of(text: &str) -> (String, Option<String>) {
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
fn a_classified_ads_number_is_its_reference() {
    let body = product_page(
        r#"<h1>Продам 2к квартиру в центре</h1><strong class="price">45 000 $</strong>
        <ul><li>Опубликовано 12 мая</li><li>Номер объявления: 582663760</li></ul>"#,
    );
    let r = main_record(
        "https://ads.example.ua/obyavlenie/kvartira-IDDqNsA.html",
        &body,
    );
    assert_eq!(get(&r, "sku"), Some("582663760"));
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
