//! One small page per class of miss seen on a set of product pages the
//! rules were not written against (product-pages-c): class names that only
//! look like a former price, a former price the meta tags name, a
//! product no longer sold, and brands and codes in tables of details.

use crate::tests::{get, main_record, product_page, run};
use crate::PageKind;

#[test]
fn a_price_classed_for_its_type_weight_is_no_former_price() {
    // "priceNoBold" holds "old"; the shipping beside it is no sale price.
    let body = product_page(
        r#"<div itemscope itemtype="http://schema.org/Book"><h1 itemprop="name">A Game of Thrones</h1>
        <div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="price" content="4.86"><meta itemprop="priceCurrency" content="USD"></div>
        <div class="bb-pricing"><span class="priceNoBold x-large">US$ 4.86</span></div>
        <div class="bb-shipping"><b>Shipping:</b> <span class="price no-wrap">US$ 3.99</span></div></div>"#,
    );
    let r = main_record("https://books.example.com/9780553573404/plp", &body);
    assert_eq!(get(&r, "price"), Some("4.86"));
}

#[test]
fn a_markup_price_the_meta_tags_call_standard_gives_way_to_their_current_one() {
    let body = format!(
        r#"<!doctype html><html><head><title>Keystick sconce</title>
        <meta property="og:price:standard_amount" content="150.00"><meta property="product:price:amount" content="120.00">
        <meta property="product:price:currency" content="USD">
        <script type="application/ld+json">{{"@context":"https://schema.org","@type":"Product","name":"Keystick sconce","sku":"A1686",
        "offers":{{"@type":"Offer","priceCurrency":"USD","price":"150.00"}}}}</script></head>
        <body><main><h1>Keystick sconce</h1><div id="app"></div></main></body></html>"#
    );
    let r = main_record("https://lights.example.com/products/keystick", &body);
    assert_eq!(get(&r, "price"), Some("120.00"));
    // Without the standard amount stated, the markup's price stands.
    let body = body.replace(
        r#"<meta property="og:price:standard_amount" content="150.00">"#,
        "",
    );
    let r = main_record("https://lights.example.com/products/keystick", &body);
    assert_eq!(get(&r, "price"), Some("150.00"));
}

#[test]
fn a_product_no_longer_sold_is_still_its_page_product() {
    let body = format!(
        r#"<!doctype html><html><head><title>Tully sconce</title>
        <script type="application/ld+json">{{"@context":"https://schema.org","@type":"Product","name":"Tully Sconce",
        "image":"https://lights.example.com/i/tully.jpg","offers":{{"@type":"Offer","priceCurrency":"USD","price":{{}},
        "availability":"http://schema.org/OutOfStock"}}}}</script></head>
        <body><main><h1>Tully Sconce</h1><span class="product-price"><span class="price-state nla">No longer available</span></span></main></body></html>"#
    );
    let x = run("https://lights.example.com/products/tully-sconce/", &body);
    assert_eq!(x.kind, PageKind::Product, "{:?}", x.notes);
    assert_eq!(get(&x.records[0], "availability"), Some("OutOfStock"));
    assert_eq!(get(&x.records[0], "price"), None);
    // The markup's currency belongs to no price.
    assert_eq!(get(&x.records[0], "currency"), None);
}

#[test]
fn a_table_of_details_names_the_brand_and_the_codes() {
    let body = product_page(
        r#"<h1>60 x 24 maple bench top</h1><span class="price">$329.99</span>
        <ul class="specs"><li><span>FINISH</span><span>Unfinished</span></li>
        <li><span>BRAND</span><span>John Boos</span></li>
        <li><span>MANUFACTURERS PART NUMBER</span><span>IST003-O</span></li></ul>"#,
    );
    let r = main_record("https://tools.example.com/p/bench-top", &body);
    assert_eq!(get(&r, "brand"), Some("John Boos"));
    assert_eq!(get(&r, "mpn"), Some("IST003-O"));

    // Czech labels, each in a cell of its own.
    let body = product_page(
        r#"<h1>Kartáček Whitening</h1><span class="price">189 Kč</span>
        <div class="product__note"><div><span class="strong">Kód zboží:</span></div><div>19521</div></div>
        <div class="product__note"><div><span class="strong">Značka:</span></div><div>Swissdent</div></div>"#,
    );
    let r = main_record("https://shop.example.cz/kartacek-p59057", &body);
    assert_eq!(get(&r, "sku"), Some("19521"));
    assert_eq!(get(&r, "brand"), Some("Swissdent"));

    // A filter's "Brand" heading over its options is no row of details.
    let body = product_page(
        r#"<h1>Lamp</h1><span class="price">$19.00</span>
        <div class="filters"><div class="facet"><h3>Brand</h3><ul><li><a href="?b=1">Acme</a></li>
        <li><a href="?b=2">Lumen</a></li><li><a href="?b=3">Brite</a></li><li><a href="?b=4">Glow</a></li>
        <li><a href="?b=5">Flare</a></li><li><a href="?b=6">Beam</a></li><li><a href="?b=7">Ray</a></li></ul></div></div>"#,
    );
    let r = main_record("https://lamps.example.com/p/lamp", &body);
    assert_eq!(get(&r, "brand"), None);
}

#[test]
fn a_url_code_of_a_letter_and_digits_is_the_number_the_page_gives() {
    let page = |value: &str| {
        product_page(&format!(
            r#"<h1>Soldering station</h1><span class="price">599 Kč</span>
            <a href="/Soldering-station/p100224517">Soldering station</a><a href="/Soldering-station/p100224517#reviews">Reviews</a>
            <a href="/Soldering-station/p100224517?print=1">Print</a><input type="hidden" name="productCode" value="{value}">"#
        ))
    };
    let url = "https://shop.example.cz/Soldering-station/p100224517";
    assert_eq!(
        get(&main_record(url, &page("100224517")), "sku"),
        Some("100224517")
    );
    assert_eq!(
        get(&main_record(url, &page("7")), "sku"),
        Some("p100224517")
    );
}

#[test]
fn a_gtin_of_zeros_is_a_placeholder() {
    let body = product_page(
        r#"<div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Toner</h1>
        <meta itemprop="gtin14" content="00000000000000"><meta itemprop="sku" content="5301079">
        <div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="price" content="199.00"><meta itemprop="priceCurrency" content="USD"></div></div>"#,
    );
    let r = main_record(
        "https://shop.example.com/item-details.asp?EdpNo=5301079",
        &body,
    );
    assert_eq!(get(&r, "gtin"), None);
    assert_eq!(get(&r, "sku"), Some("5301079"));
}

#[test]
fn a_shell_prompt_and_a_choice_of_sums_are_no_product_price() {
    // A tutorial: the prompt's "$" stands apart from the command's number.
    let body = product_page(
        r#"<h1>Copying files from the drive</h1><p>Connect the adapter, then list the drive:</p>
        <pre class="terminal"><span>$ cbmctrl dir 8</span></pre><p>The listing shows every file.</p>"#,
    );
    let x = run("https://blog.example.de/xum1541-linux.html", &body);
    assert_eq!(x.kind, PageKind::Other, "{:?}", x.records);
    // A donation form's sums.
    let body = product_page(
        r#"<h1>Live more sustainably</h1><p>Ten ideas for every day.</p>
        <form><div class="donate-amount"><span>10€ 15€ 40€ 50€ 80€ 120€</span></div><button>Donate</button></form>"#,
    );
    let x = run(
        "https://ngo.example.de/engagieren/nachhaltiger-leben",
        &body,
    );
    assert_eq!(x.kind, PageKind::Other, "{:?}", x.records);
    // One price beside its former ones still is one.
    let body = product_page(
        r#"<h1>Desk lamp</h1><div class="offer"><span>Was $20 Now $15 Save $5</span></div><button>Add to cart</button>"#,
    );
    let r = main_record("https://shop.example.com/p/desk-lamp", &body);
    assert_eq!(get(&r, "price"), Some("15"));
}
