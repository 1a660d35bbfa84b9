#!/usr/bin/env python3
"""Scores listing-page extraction against ground-truth.json.

Usage: python3 score.py predictions.json [ground-truth.json]

predictions.json is what `fnhost extract --list --dir datasets/listing-pages --out
predictions.json` writes: {id: {"kind": ..., "records": [{name, price, currency, url,
availability}, ...]}}. ground-truth.json defaults to the file next to this script.

Per page, predicted records are matched one-to-one to truth items: first by URL
(scheme and host lowercased, fragment dropped, trailing slash dropped, percent-escapes
decoded), then the remaining ones by name (casefolded, whitespace collapsed). A matched
item's price is right when it equals the truth numerically ("19.9" == "19.90"); items whose
truth price is null (the card shows none) are left out of price accuracy. Currency accuracy:
matched items whose predicted currency equals the truth's. The truth kind of every page is
"listing".
"""

import json
import re
import sys
import unicodedata
from decimal import Decimal, InvalidOperation
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

TRUTH_KIND = "listing"


def norm_url(url):
    if not isinstance(url, str) or not url.strip():
        return None
    parts = urlsplit(url.strip())
    path = unquote(parts.path).rstrip("/")
    query = unquote(parts.query)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, query, ""))


def norm_name(name):
    if not isinstance(name, str):
        return None
    name = unicodedata.normalize("NFC", name)
    name = " ".join(name.casefold().split())
    return name or None


def to_decimal(value):
    if value is None:
        return None
    if isinstance(value, (int, float)):
        value = str(value)
    if not isinstance(value, str):
        return None
    value = value.strip()
    if not re.fullmatch(r"[+-]?\d+(\.\d+)?", value):
        return None
    try:
        return Decimal(value)
    except InvalidOperation:
        return None


def match(truth_items, records):
    """Returns [(truth_index, record_index)], one-to-one, URL first, then name."""
    pairs = []
    used_truth, used_pred = set(), set()
    pred_urls = [norm_url(r.get("url")) for r in records]
    for ti, item in enumerate(truth_items):
        url = norm_url(item.get("url"))
        if url is None:
            continue
        for pi, purl in enumerate(pred_urls):
            if pi not in used_pred and purl == url:
                pairs.append((ti, pi))
                used_truth.add(ti)
                used_pred.add(pi)
                break
    pred_names = [norm_name(r.get("name")) for r in records]
    for ti, item in enumerate(truth_items):
        if ti in used_truth:
            continue
        name = norm_name(item.get("name"))
        if name is None:
            continue
        for pi, pname in enumerate(pred_names):
            if pi not in used_pred and pname == name:
                pairs.append((ti, pi))
                used_truth.add(ti)
                used_pred.add(pi)
                break
    return pairs


def ratio(a, b):
    return a / b if b else 0.0


def f1(p, r):
    return 2 * p * r / (p + r) if p + r else 0.0


def main(argv):
    if len(argv) < 2 or len(argv) > 3:
        sys.exit(__doc__.split("\n\n")[1])
    predictions = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    truth_path = Path(argv[2]) if len(argv) == 3 else Path(__file__).with_name("ground-truth.json")
    truth = json.loads(truth_path.read_text(encoding="utf-8"))

    header = f"{'page':<18} {'truth':>5} {'pred':>5} {'found':>5} {'P':>6} {'R':>6} {'F1':>6} {'price':>6}  kind"
    print(header)
    print("-" * len(header))
    tot_truth = tot_pred = tot_tp = tot_price = tot_priced = tot_cur = kind_ok = 0
    for page_id, page in truth.items():
        items = page["items"]
        pred = predictions.get(page_id)
        if not isinstance(pred, dict):
            pred = {"kind": "missing", "records": []}
        records = [r for r in (pred.get("records") or []) if isinstance(r, dict)]
        pairs = match(items, records)
        tp = len(pairs)
        price_ok = priced = 0
        for ti, pi in pairs:
            want = to_decimal(items[ti].get("price"))
            got = to_decimal(records[pi].get("price"))
            priced += want is not None
            if want is not None and got is not None and want == got:
                price_ok += 1
            tot_cur += records[pi].get("currency") == items[ti].get("currency")
        p, r = ratio(tp, len(records)), ratio(tp, len(items))
        kind = pred.get("kind")
        kind_ok += kind == TRUTH_KIND
        tot_truth += len(items)
        tot_pred += len(records)
        tot_tp += tp
        tot_price += price_ok
        tot_priced += priced
        price = f"{ratio(price_ok, priced):6.3f}" if priced else f"{'-':>6}"
        mark = "" if kind == TRUTH_KIND else "  <-"
        print(
            f"{page_id:<18} {len(items):>5} {len(records):>5} {tp:>5} {p:6.3f} {r:6.3f} "
            f"{f1(p, r):6.3f} {price}  {kind}{mark}"
        )
    extra = sorted(set(predictions) - set(truth))
    if extra:
        print(f"(ignored {len(extra)} predicted pages without ground truth: {', '.join(extra)})")
    p, r = ratio(tot_tp, tot_pred), ratio(tot_tp, tot_truth)
    print("-" * len(header))
    print(
        f"overall: items F1 {f1(p, r):.3f} (P {p:.3f} R {r:.3f}), "
        f"price accuracy {ratio(tot_price, tot_priced):.3f}, "
        f"currency accuracy {ratio(tot_cur, tot_tp):.3f}, kind {kind_ok}/{len(truth)}"
    )


if __name__ == "__main__":
    main(sys.argv)
