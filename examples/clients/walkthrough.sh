#!/usr/bin/env bash
# From a key to an answered session and its receipts, with curl.
#
#   FNHOST_KEY=fn_test_... ./walkthrough.sh [BASE_URL]
#
# With a test key the run replays the fixture site outdoor-gear.example and
# never touches the network.
set -euo pipefail
BASE=${1:-http://127.0.0.1:8080/v1}
KEY=${FNHOST_KEY:?set FNHOST_KEY to an API key}
auth=(-H "Authorization: Bearer $KEY")
json=(-H "Content-Type: application/json")

echo "== balance"
curl -sS "${auth[@]}" "$BASE/balance"; echo

echo "== estimate (free)"
curl -sS "${auth[@]}" "${json[@]}" "$BASE/sessions/estimate" \
  -d '{"query": "tents under $200 from outdoor-gear.example"}'; echo

echo "== create a session (reserves max_spend_usd)"
session=$(curl -sS "${auth[@]}" "${json[@]}" -H "Idempotency-Key: walkthrough-$$" "$BASE/sessions" \
  -d '{"query": "tents under $200 from outdoor-gear.example", "max_spend_usd": 0.5}')
echo "$session"
id=$(printf '%s' "$session" | sed -n 's/.*"id":"\(ses_[A-Za-z0-9]*\)".*/\1/p')
[ -n "$id" ] || { echo "no session id" >&2; exit 1; }

echo "== wait for the result (long-poll, up to 60 s)"
curl -sS "${auth[@]}" "$BASE/sessions/$id/result?wait=60"; echo

echo "== receipts (verify them with the keys at /signing-keys)"
curl -sS "${auth[@]}" "$BASE/sessions/$id/receipts"; echo
curl -sS "${auth[@]}" "$BASE/signing-keys"; echo

echo "== balance after: only receipts were settled"
curl -sS "${auth[@]}" "$BASE/balance"; echo
