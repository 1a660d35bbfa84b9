#!/usr/bin/env python3
"""A webhook receiver that verifies Standard Webhooks signatures.

    FNHOST_WEBHOOK_SECRET=whsec_... python3 webhook_receiver.py [PORT]

Answers 2xx quickly and dedupes on the message id (deliveries are
at-least-once). Needs the `standardwebhooks` package. Each verified message
is printed as one JSON line on stdout.
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from standardwebhooks.webhooks import Webhook

SECRET = os.environ["FNHOST_WEBHOOK_SECRET"]
seen = set()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        try:
            # Verify the raw bytes before any JSON parsing; stale timestamps are refused.
            message = Webhook(SECRET).verify(body, dict(self.headers))
        except Exception as e:  # noqa: BLE001 - any failure is a refusal
            self.send_response(400)
            self.end_headers()
            self.wfile.write(f"bad signature: {e}".encode())
            return
        self.send_response(204)
        self.end_headers()
        if message["id"] in seen:
            return
        seen.add(message["id"])
        print(json.dumps({"id": message["id"], "type": message["type"], "data": message["data"]}), flush=True)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 9000
    HTTPServer(("127.0.0.1", port), Handler).serve_forever()
