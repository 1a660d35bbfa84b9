// An example site-specific extractor, in JavaScript, for the made-up shop
// example-mall.test. Its pages use the same markup as the Rust and Python
// examples:
//
//   <div class="product" data-sku="ES-1001">
//     <a class="name" href="/products/es-1001">Trail Kettle 1.2 L</a>
//     <span class="price" data-currency="EUR">1,024.90</span>
//     <span class="stock">In stock</span>
//   </div>
//   ...
//   <a rel="next" href="/catalog?page=2">Next</a>
//
// componentize-js (see build.mjs) turns this module into a WebAssembly
// component of the `extractor` world of contract 0.2.0: it says what kind
// of page it read and which URLs continue the listing. The component holds
// no capability: it receives the page and returns data.

/** The text of an HTML fragment: tags dropped, entities of the shop decoded, spaces collapsed. */
function text(html) {
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}

/** An attribute's value in a start tag. */
function attr(tag, name) {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, "i").exec(tag);
  return m ? (m[2] ?? m[3]) : null;
}

/** The shop's prices: plain decimals with optional thousands commas. */
function decimal(s) {
  const plain = s.replace(/[\s,]/g, "");
  return /^\d+(\.\d+)?$/.test(plain) ? plain : null;
}

/** The shop's stock wording as a schema.org availability short name. */
function availability(s) {
  const t = s.toLowerCase();
  if (t.startsWith("out of stock") || t.startsWith("sold out")) return "OutOfStock";
  if (t.startsWith("in stock")) return "InStock";
  if (t.startsWith("only") && t.endsWith("left")) return "LimitedAvailability";
  if (t.startsWith("pre-order") || t.startsWith("preorder")) return "PreOrder";
  if (t.startsWith("back-order") || t.startsWith("backorder")) return "BackOrder";
  return null;
}

/** The inner HTML of the element starting at `start` (nested divs counted). */
function element(html, start) {
  const open = /<div\b|<\/div\s*>/gi;
  open.lastIndex = html.indexOf(">", start) + 1;
  let depth = 1;
  let m;
  while ((m = open.exec(html))) {
    depth += m[0].startsWith("</") ? -1 : 1;
    if (depth === 0) return html.slice(html.indexOf(">", start) + 1, m.index);
  }
  return html.slice(html.indexOf(">", start) + 1);
}

/** The first element with this class inside a fragment: its start tag and inner HTML. */
function field(html, cls) {
  const re = new RegExp(`<(\\w+)\\b[^>]*\\bclass\\s*=\\s*"[^"]*\\b${cls}\\b[^"]*"[^>]*>`, "i");
  const m = re.exec(html);
  if (!m) return null;
  const close = html.indexOf(`</${m[1]}`, m.index + m[0].length);
  return { tag: m[0], inner: html.slice(m.index + m[0].length, close < 0 ? undefined : close) };
}

/** Records, next pages and notes of one page of the shop. */
export function readPage(url, html) {
  const records = [];
  let skipped = 0;
  const productTag = /<div\b[^>]*\bclass\s*=\s*"[^"]*\bproduct\b[^"]*"[^>]*>/gi;
  let m;
  while ((m = productTag.exec(html))) {
    const sku = (attr(m[0], "data-sku") || "").trim();
    const inner = element(html, m.index);
    const name = field(inner, "name");
    const nameText = name ? text(name.inner) : "";
    if (!sku || !nameText) {
      skipped += 1;
      continue;
    }
    const record = { name: nameText, sku };
    const href = (name && attr(name.tag, "href")) || attr((/<a\b[^>]*>/i.exec(inner) || [""])[0], "href");
    if (href) record.url = new URL(href.trim(), url).href;
    const price = field(inner, "price");
    if (price) {
      const value = decimal(text(price.inner));
      if (value !== null) record.price = value;
      const currency = (attr(price.tag, "data-currency") || "").trim();
      if (/^[A-Za-z]{3}$/.test(currency)) record.currency = currency.toUpperCase();
    }
    const stock = field(inner, "stock");
    if (stock) {
      const value = availability(text(stock.inner));
      if (value !== null) record.availability = value;
    }
    records.push(record);
  }
  const nextPages = [];
  for (const a of html.matchAll(/<(?:a|link)\b[^>]*>/gi)) {
    const rel = (attr(a[0], "rel") || "").split(/\s+/);
    const href = attr(a[0], "href");
    if (rel.includes("next") && href) nextPages.push(new URL(href.trim(), url).href);
  }
  const notes = ["example-mall"];
  if (skipped) notes.push(`skipped ${skipped} products without a name`);
  return { records, nextPages, notes, complete: skipped === 0 && nextPages.length === 0 };
}

// The `extraction` interface of the `extractor` world. A thrown error is
// the `err` of `result<extraction-result, string>`.
export const extraction = {
  extract(page, request) {
    if (page.status >= 400) throw `the page was served with status ${page.status}`;
    const found = readPage(page.url, page.body);
    return {
      kind: found.records.length === 0 ? "other" : found.records.length === 1 && found.nextPages.length === 0 ? "product" : "listing",
      // Records cross the boundary as JSON text, one object each.
      records: found.records.map((r) => JSON.stringify(r)),
      claim: found.complete ? "complete" : "partial",
      nextPages: found.nextPages,
      links: [],
      notes: found.notes,
    };
  },
};
