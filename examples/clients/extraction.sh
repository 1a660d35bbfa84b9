#!/usr/bin/env bash
# A URL-first extraction and its refresh, with curl (preview switches
# `extractions` and `refresh`; also `receipts` for the lookup at the end).
#
#   FNHOST_KEY=fn_test_... ./extraction.sh [BASE_URL] [PAGE_URL]
#
# With a test key the page is replayed from the fixture recordings.
set -euo pipefail
BASE=${1:-http://127.0.0.1:8080/v1}
PAGE=${2:-https://outdoor-gear.example/tents/}
KEY=${FNHOST_KEY:?set FNHOST_KEY to an API key}
auth=(-H "Authorization: Bearer $KEY")
json=(-H "Content-Type: application/json")
id_of() { sed -n 's/.*"id":"\(ext_[A-Za-z0-9]*\)".*/\1/p'; }

echo "== extract every product the page shows (reserves max_spend_usd)"
created=$(curl -sS "${auth[@]}" "${json[@]}" -H "Idempotency-Key: extraction-$$" "$BASE/extractions" \
  -d "{\"url\": \"$PAGE\", \"entity\": \"product\", \"max_spend_usd\": 0.05}")
echo "$created"
id=$(printf '%s' "$created" | id_of)
[ -n "$id" ] || { echo "no extraction id" >&2; exit 1; }

echo "== its result (long-poll, up to 60 s)"
result=$(curl -sS "${auth[@]}" "$BASE/extractions/$id/result?wait=60")
echo "$result"

echo "== refresh from the record when it is younger than an hour (\$0, no fetch)"
curl -sS "${auth[@]}" "${json[@]}" "$BASE/extractions/$id/refresh" -d '{"max_age_s": 3600}'; echo

echo "== refresh by reading the page again: the diff says what changed"
again=$(curl -sS "${auth[@]}" "${json[@]}" "$BASE/extractions/$id/refresh" -d '{}')
again_id=$(printf '%s' "$again" | id_of)
curl -sS "${auth[@]}" "$BASE/extractions/$again_id/result?wait=60" > /dev/null
curl -sS "${auth[@]}" "$BASE/extractions/$again_id"; echo

echo "== the receipt behind the first delivery"
receipt=$(printf '%s' "$result" | sed -n 's/.*"receipt_id":"\(rcpt_[A-Za-z0-9]*\)".*/\1/p' | head -1)
[ -n "$receipt" ] && { curl -sS "${auth[@]}" "$BASE/receipts/$receipt"; echo; }
true
