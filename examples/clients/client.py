#!/usr/bin/env python3
"""Run a session, stream its events, and verify a receipt.

    FNHOST_KEY=fn_test_... python3 client.py [BASE_URL]

Needs the `requests` and `cryptography` packages. Exits non-zero if the
session does not end or a receipt does not verify.
"""
import base64
import json
import os
import sys

import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

BASE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080/v1"
KEY = os.environ["FNHOST_KEY"]
HEADERS = {"Authorization": f"Bearer {KEY}"}
QUERY = os.environ.get("FNHOST_QUERY", "tents under $200 from outdoor-gear.example")


def stream_events(session_id, last_event_id=None):
    """Yield (id, phase, entry) from the session's event stream until it ends."""
    headers = dict(HEADERS, Accept="text/event-stream")
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    with requests.get(f"{BASE}/sessions/{session_id}/stream", headers=headers, stream=True, timeout=120) as r:
        r.raise_for_status()
        event = {}
        for line in r.iter_lines(decode_unicode=True):
            if line == "":
                if "data" in event:
                    yield event.get("id"), event.get("event"), json.loads(event["data"])
                event = {}
            elif not line.startswith(":") and ":" in line:
                field, value = line.split(":", 1)
                event[field] = value.lstrip(" ")


def verify_receipt(receipt, keys):
    """A receipt verifies against the signing key it names, over its canonical JSON."""
    signature = receipt["signature"]
    key = next(k for k in keys if k["id"] == signature["key_id"])
    body = {k: v for k, v in receipt.items() if k != "signature"}
    message = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key["public_key"]))
    public.verify(base64.b64decode(signature["value"]), message)  # raises if it does not verify


def main():
    created = requests.post(f"{BASE}/sessions", headers=HEADERS, json={"query": QUERY, "max_spend_usd": 0.5}, timeout=30)
    created.raise_for_status()
    session = created.json()
    print("session", session["id"], session["status"])
    terminal = None
    for seq, phase, entry in stream_events(session["id"]):
        print(f"  event {seq} {phase}")
        terminal = entry
    if terminal is None or terminal["phase"] not in ("answered", "abstain", "error", "stopped"):
        sys.exit("the stream ended without a terminal event")
    result = requests.get(f"{BASE}/sessions/{session['id']}/result", headers=HEADERS, params={"wait": 60}, timeout=90).json()
    print("status", result["status"], "qualified", result["qualified"], "records", result["records"])
    keys = requests.get(f"{BASE}/signing-keys", headers=HEADERS, timeout=30).json()["data"]
    receipts = requests.get(f"{BASE}/sessions/{session['id']}/receipts", headers=HEADERS, params={"limit": 100}, timeout=30).json()["data"]
    for receipt in receipts:
        verify_receipt(receipt, keys)
    print(f"{len(receipts)} receipts verified")
    if result["status"] == "answered" and not receipts:
        sys.exit("an answered session without receipts")


if __name__ == "__main__":
    main()
