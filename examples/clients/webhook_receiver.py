#!/usr/bin/env python3
"""A webhook receiver that verifies Standard Webhooks signatures.

    FNHOST_WEBHOOK_SECRET=whsec_... python3 webhook_receiver.py [PORT]

Answers 2xx quickly and dedupes on the message id (deliveries are
at-least-once). Needs the `standardwebhooks` package. Each verified message
(the whole envelope: id, type, created, data) is printed as one JSON line on
stdout, after a first line `listening on PORT` (PORT 0 picks a free one).

fnhost delivers to https URLs only. Put the receiver behind your TLS proxy,
or let it serve https itself: set FNHOST_TLS_CERT and FNHOST_TLS_KEY to PEM
files.
"""
import json
import os
import ssl
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
        print(json.dumps(message), flush=True)

    def log_message(self, *args):
        pass


def serve(port):
    server = HTTPServer(("127.0.0.1", port), Handler)
    cert, key = os.environ.get("FNHOST_TLS_CERT"), os.environ.get("FNHOST_TLS_KEY")
    if cert and key:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve(int(sys.argv[1]) if len(sys.argv) > 1 else 9000)
