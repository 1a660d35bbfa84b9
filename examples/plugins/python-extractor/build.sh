#!/usr/bin/env bash
# Builds app.py into a WebAssembly component of the `extractor` world.
#
#   ./build.sh [OUT.wasm]
#
# OUT defaults to target/wasm32-wasip2/plugin/python_extractor.wasm at the
# workspace root, beside the Rust components. componentize-py (pinned below)
# is installed on first use into a virtual environment under target/; the
# only other requirement is python3 with its venv module.
set -euo pipefail

# The version is pinned: it decides the CPython build inside the component
# and the component-model encoding, both checked against the host's wasmtime.
COMPONENTIZE_PY_VERSION=0.25.1

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-$root/target/wasm32-wasip2/plugin/python_extractor.wasm}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac

venv="$root/target/componentize-py"
tool="$venv/bin/componentize-py"
if ! "$tool" --version 2>/dev/null | grep -qx "componentize-py $COMPONENTIZE_PY_VERSION"; then
    echo "build.sh: installing componentize-py $COMPONENTIZE_PY_VERSION into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "componentize-py==$COMPONENTIZE_PY_VERSION"
fi

cd "$here"
# The parsing logic's own tests, with the ordinary interpreter.
PYTHONDONTWRITEBYTECODE=1 python3 -m unittest --quiet test_app
mkdir -p "$(dirname "$out")"
# Written beside OUT and renamed, so that a failed build leaves no component.
"$tool" -d ../../../wit/0.1.0 -w extractor componentize app -o "$out.tmp"
mv "$out.tmp" "$out"
