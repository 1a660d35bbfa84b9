#!/usr/bin/env python3
"""Extract every product of a page, refresh it, and verify its receipt.

    FNHOST_KEY=fn_test_... python3 extraction.py [BASE_URL] [PAGE_URL]

Needs the preview switches `extractions`, `refresh` and `receipts`, and the
`requests` and `cryptography` packages. Exits non-zero if the extraction is
not delivered or its receipt does not verify.
"""
import base64
import json
import os
import sys

import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

BASE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080/v1"
PAGE = sys.argv[2] if len(sys.argv) > 2 else "https://outdoor-gear.example/tents/"
HEADERS = {"Authorization": f"Bearer {os.environ['FNHOST_KEY']}"}


def call(method, path, **kwargs):
    r = requests.request(method, f"{BASE}{path}", headers=HEADERS, timeout=90, **kwargs)
    if r.status_code >= 400:
        sys.exit(f"{method} {path}: {r.status_code} {r.text}")
    return r.json()


def result(extraction_id):
    """The result once the extraction has ended (long-poll)."""
    return call("GET", f"/extractions/{extraction_id}/result", params={"wait": 60})


def verify_receipt(receipt, keys):
    """A receipt verifies against the signing key it names, over its canonical JSON."""
    signature = receipt["signature"]
    key = next(k for k in keys if k["id"] == signature["key_id"])
    body = {k: v for k, v in receipt.items() if k != "signature"}
    message = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key["public_key"]))
    public.verify(base64.b64decode(signature["value"]), message)  # raises if it does not verify


def main():
    created = call("POST", "/extractions", json={"url": PAGE, "entity": "product", "max_spend_usd": 0.05})
    print("extraction", created["id"], created["status"])
    first = result(created["id"])
    print("status", first["status"], "records", first["records"], "spend", first["spend_usd"])
    if first["status"] != "delivered":
        sys.exit("the extraction was not delivered")
    for row in first["rows"][:5]:
        print("  ", row.get("name"), row.get("price"), row.get("currency"))

    served = call("POST", f"/extractions/{created['id']}/refresh", json={"max_age_s": 3600})
    print("refresh from record:", served["served_from"], "spend", served["spend_usd"])

    again = call("POST", f"/extractions/{created['id']}/refresh", json={})
    result(again["id"])
    again = call("GET", f"/extractions/{again['id']}")
    print("refresh read again:", again["status"], "diff", json.dumps(again["diff"], sort_keys=True))

    keys = call("GET", "/signing-keys")["data"]
    receipt_id = call("GET", f"/extractions/{created['id']}")["receipt_id"]
    receipt = call("GET", f"/receipts/{receipt_id}")
    verify_receipt(receipt, keys)
    print("receipt", receipt["id"], "verified")


if __name__ == "__main__":
    main()
