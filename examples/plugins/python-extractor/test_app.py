"""Tests of the parsing logic, run with an ordinary interpreter:
python3 -m unittest test_app (build.sh runs them before every build)."""

import unittest

from app import availability, decimal, read_page

LISTING = """<!doctype html>
<html><head><title>Kettles - Example Market</title></head><body>
<div class="product" data-sku="ES-1001">
  <a class="name" href="/products/es-1001">Trail   Kettle
    1.2 L</a>
  <span class="price" data-currency="eur">1,024.90</span>
  <span class="stock">In stock</span>
</div>
<div class="product" data-sku="ES-1002">
  <h2 class="name">Camp Mug</h2><br><img src="mug.png"/>
  <a href="https://example-market.test/products/es-1002">details</a>
  <span class="price" data-currency="EUR">7</span>
  <span class="stock">Sold out</span>
</div>
<div class="product" data-sku="ES-1003">
  <span class="price" data-currency="EUR">3.50</span>
</div>
<a rel="next" href="?page=2">Next</a>
</body></html>"""


class ReadPage(unittest.TestCase):
    def test_reads_every_product_of_a_listing(self):
        records, complete, links, notes = read_page("https://example-market.test/catalog/kettles", LISTING)
        self.assertEqual(
            records,
            [
                {
                    "name": "Trail Kettle 1.2 L",
                    "sku": "ES-1001",
                    "url": "https://example-market.test/products/es-1001",
                    "price": "1024.90",
                    "currency": "EUR",
                    "availability": "InStock",
                },
                {
                    "name": "Camp Mug",
                    "sku": "ES-1002",
                    "url": "https://example-market.test/products/es-1002",
                    "price": "7",
                    "currency": "EUR",
                    "availability": "OutOfStock",
                },
            ],
        )
        self.assertEqual(links, ["https://example-market.test/catalog/kettles?page=2"])
        self.assertFalse(complete)
        self.assertEqual(notes, ["example-market", "skipped 1 products without a name"])

    def test_a_last_page_without_gaps_is_complete(self):
        body = '<div class="product" data-sku="A"><span class="name">A</span></div>'
        records, complete, links, _ = read_page("https://example-market.test/", body)
        self.assertEqual(records, [{"name": "A", "sku": "A"}])
        self.assertTrue(complete)
        self.assertEqual(links, [])

    def test_a_page_without_products_gives_no_records(self):
        records, complete, _, _ = read_page("https://example-market.test/about", "<p>About us</p>")
        self.assertEqual(records, [])
        self.assertTrue(complete)


class Values(unittest.TestCase):
    def test_prices_are_plain_decimals_or_nothing(self):
        self.assertEqual(decimal(" 1,299.00 "), "1299.00")
        self.assertEqual(decimal("12"), "12")
        self.assertIsNone(decimal("€12"))
        self.assertIsNone(decimal("12."))
        self.assertIsNone(decimal(""))

    def test_stock_wording_maps_to_schema_org(self):
        self.assertEqual(availability("In stock"), "InStock")
        self.assertEqual(availability("OUT OF STOCK"), "OutOfStock")
        self.assertEqual(availability("Only 2 left"), "LimitedAvailability")
        self.assertEqual(availability("Pre-order now"), "PreOrder")
        self.assertEqual(availability("Backorder"), "BackOrder")
        self.assertIsNone(availability("Ask us"))


if __name__ == "__main__":
    unittest.main()
