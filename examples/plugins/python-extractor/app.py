"""An example site-specific extractor, in Python, for the made-up shop
example-market.test. Its pages use the same markup as the Rust example's
example-shop.test:

    <div class="product" data-sku="ES-1001">
      <a class="name" href="/products/es-1001">Trail Kettle 1.2 L</a>
      <span class="price" data-currency="EUR">1,024.90</span>
      <span class="stock">In stock</span>
    </div>
    ...
    <a rel="next" href="/catalog?page=2">Next</a>

componentize-py turns this module into a WebAssembly component of the
`extractor` world (see build.sh). The parsing is plain Python using only the
standard library, so it can also be tried with an ordinary interpreter:

    python3 app.py < page.html
"""

import json
from html.parser import HTMLParser
from urllib.parse import urljoin

# Elements that never have an end tag.
VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input",
    "link", "meta", "param", "source", "track", "wbr",
}

# The fields read inside a product, by class name.
FIELDS = ("name", "price", "stock")


class ShopParser(HTMLParser):
    """Collects the products and the next-page links of one page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.products = []  # one dict per div.product[data-sku]
        self.next_links = []
        self._product = None  # the product being read
        self._depth = 0  # open elements inside the product
        self._field = None  # (field, depth) whose text is being collected

    def handle_starttag(self, tag, attrs):
        attrs = {k: (v or "") for k, v in attrs}
        classes = attrs.get("class", "").split()
        if tag in ("a", "link") and "next" in attrs.get("rel", "").split() and attrs.get("href"):
            self.next_links.append(attrs["href"])
        if self._product is None:
            if tag == "div" and "product" in classes and "data-sku" in attrs:
                self._product = {
                    "sku": attrs["data-sku"].strip(),
                    "text": {},  # field -> text pieces
                    "href": None,  # the name's own link
                    "first_link": None,  # the first link inside the product
                    "currency": None,
                }
                self._depth = 1
            return
        if tag in VOID:
            return
        self._depth += 1
        for field in FIELDS:
            if field in classes and field not in self._product["text"] and self._field is None:
                self._field = (field, self._depth)
                self._product["text"][field] = []
                if field == "price":
                    self._product["currency"] = attrs.get("data-currency")
                if field == "name" and attrs.get("href"):
                    self._product["href"] = attrs["href"]
        if tag == "a" and attrs.get("href") and self._product["first_link"] is None:
            self._product["first_link"] = attrs["href"]

    def handle_startendtag(self, tag, attrs):
        # <br/>, <img .../>: nothing to open.
        if tag not in VOID:
            self.handle_starttag(tag, attrs)
            self.handle_endtag(tag)
        else:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if self._product is None or tag in VOID:
            return
        if self._field is not None and self._field[1] == self._depth:
            self._field = None
        self._depth -= 1
        if self._depth == 0:
            self.products.append(self._product)
            self._product = None

    def handle_data(self, data):
        if self._field is not None:
            self._product["text"][self._field[0]].append(data)


def collapse(parts):
    """Text with runs of whitespace collapsed to one space."""
    return " ".join(" ".join(parts).split())


def decimal(text):
    """The shop writes prices as plain decimals with optional thousands
    commas ("1,024.90"); anything else is not a price we understand."""
    plain = "".join(c for c in text if not c.isspace() and c != ",")
    whole, dot, fraction = plain.partition(".")

    def digits(s):
        return s != "" and all("0" <= c <= "9" for c in s)

    if digits(whole) and (not dot or digits(fraction)):
        return plain
    return None


def currency_code(code):
    """An ISO 4217 code: three ASCII letters, upper-cased."""
    code = (code or "").strip()
    if len(code) == 3 and all(c.isascii() and c.isalpha() for c in code):
        return code.upper()
    return None


def availability(text):
    """The shop's stock wording as a schema.org availability short name."""
    text = text.lower().strip()
    if text.startswith("out of stock") or text.startswith("sold out"):
        return "OutOfStock"
    if text.startswith("in stock"):
        return "InStock"
    if text.startswith("only") and text.endswith("left"):
        return "LimitedAvailability"
    if text.startswith("pre-order") or text.startswith("preorder"):
        return "PreOrder"
    if text.startswith("back-order") or text.startswith("backorder"):
        return "BackOrder"
    return None


def read_page(url, body):
    """Returns (records, complete, links, notes) for one page."""
    parser = ShopParser()
    parser.feed(body)
    parser.close()
    records = []
    skipped = 0
    for product in parser.products:
        name = collapse(product["text"].get("name", []))
        if not name or not product["sku"]:
            skipped += 1
            continue
        record = {"name": name, "sku": product["sku"]}
        # The product link: the name itself when it is a link, else the
        # first link inside the product.
        href = product["href"] or product["first_link"]
        if href:
            record["url"] = urljoin(url, href.strip())
        if "price" in product["text"]:
            price = decimal(collapse(product["text"]["price"]))
            if price is not None:
                record["price"] = price
            currency = currency_code(product["currency"])
            if currency is not None:
                record["currency"] = currency
        if "stock" in product["text"]:
            value = availability(collapse(product["text"]["stock"]))
            if value is not None:
                record["availability"] = value
        records.append(record)
    notes = ["example-market"]
    if skipped:
        notes.append(f"skipped {skipped} products without a name")
    links = [urljoin(url, href.strip()) for href in parser.next_links]
    complete = skipped == 0 and not links
    return records, complete, links, notes


try:
    # Present only when componentize-py builds the component (or after
    # `componentize-py -d ../../../wit/0.1.0 -w extractor bindings .`).
    from wit_world import exports
    from wit_world.exports.extraction import ExtractionResult, Request
    from wit_world.imports.types import Claim, Page
    from componentize_py_types import Err
except ImportError:
    exports = None

if exports is not None:

    class Extraction(exports.Extraction):
        """The `extraction` interface of the `extractor` world. componentize-py
        finds the class by the interface's name."""

        def extract(self, page: Page, request: Request) -> ExtractionResult:
            # An error is raised as Err(message): it becomes the `err` of
            # `result<extraction-result, string>`.
            if page.status >= 400:
                raise Err(f"the page was served with status {page.status}")
            records, complete, links, notes = read_page(page.url, page.body)
            return ExtractionResult(
                # Records cross the boundary as JSON text, one object each.
                records=[json.dumps(r, ensure_ascii=False) for r in records],
                claim=Claim.COMPLETE if complete else Claim.PARTIAL,
                links=links,
                notes=notes,
            )


if __name__ == "__main__":
    import sys

    records, complete, links, notes = read_page("https://example-market.test/", sys.stdin.read())
    print(json.dumps({"records": records, "complete": complete, "links": links, "notes": notes}, indent=2))
