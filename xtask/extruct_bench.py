"""Pages per second of extruct over saved page folders, for the bench.

Usage: python extruct_bench.py DIR [DIR...]; each DIR holds pages/<id>.html[.gz]
and urls.json. Prints one line per folder and one for all: pages, MB, seconds,
pages/s, MB/s. One process, as extruct is used.
"""
import gzip
import json
import os
import sys
import time

import extruct


def pages(folder):
    urls = json.load(open(os.path.join(folder, "urls.json")))
    out = []
    for name in sorted(os.listdir(os.path.join(folder, "pages"))):
        path = os.path.join(folder, "pages", name)
        if name.endswith(".html.gz"):
            raw = gzip.open(path).read()
            pid = name[: -len(".html.gz")]
        elif name.endswith(".html"):
            raw = open(path, "rb").read()
            pid = name[: -len(".html")]
        else:
            continue
        out.append((urls.get(pid, ""), raw.decode("utf-8", "replace"), os.path.getsize(path)))
    return out


total_pages, total_bytes, total_secs = 0, 0, 0.0
for folder in sys.argv[1:]:
    batch = pages(folder)
    started = time.perf_counter()
    for url, html, _ in batch:
        try:
            extruct.extract(html, base_url=url)
        except Exception:
            pass
    secs = time.perf_counter() - started
    size = sum(b for _, _, b in batch)
    total_pages, total_bytes, total_secs = total_pages + len(batch), total_bytes + size, total_secs + secs
    print(f"extruct {folder}: {len(batch)} pages, {size / 1e6:.1f} MB, {secs:.2f} s, "
          f"{len(batch) / secs:.1f} pages/s, {size / 1e6 / secs:.2f} MB/s")
print(f"extruct all: {total_pages} pages, {total_bytes / 1e6:.1f} MB, {total_secs:.2f} s, "
      f"{total_pages / total_secs:.1f} pages/s, {total_bytes / 1e6 / total_secs:.2f} MB/s")
