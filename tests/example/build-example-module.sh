#!/usr/bin/env bash
# Builds the out-of-tree example module (modules/example) against ngx's
# installed headers, found through pkg-config as ngx-module, and loads it
# through NGX_MODULE_PATH: the path a third-party module takes.
source "$(dirname "$0")/stage.sh"
test -f "$pc/ngx-module.pc" || { echo "FAIL: ngx-module.pc not installed in $pc"; exit 1; }
test -f "$work/root$prefix/include/ngx/module.h" || { echo "FAIL: module.h not installed"; exit 1; }

# Build the example against the staged headers only.
build_example "$NGX_SOURCE_ROOT/modules/example"

# ngx finds it through NGX_MODULE_PATH and measures with it.
export NGX_MODULE_PATH="$work/build"
"$NGX" --list-modules | grep -E "^  unix  " || { echo "FAIL: unix module not listed"; exit 1; }
"$NGX" -m unix -x pingpong -s 1-64Ki -c 100 --warmup 10 -o "$work/unix.json" >/dev/null
python3 - "$work/unix.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["module"] == "unix", doc["module"]
sizes = [r["size_bytes"] for r in doc["results"]]
assert sizes == [2**i for i in range(17)], sizes
assert all(r["median_us"] > 0 for r in doc["results"])
PY
"$NGX" -m unix --unix-name "$(printf 'x%.0s' {1..120})" -s 1 -c 1 2>"$work/err" && { echo "FAIL: long name accepted"; exit 1; } || code=$?
test "$code" = 2 && grep -q "unix-name" "$work/err" || { cat "$work/err"; echo "FAIL: bad option gave exit $code"; exit 1; }
echo "PASS: example module built out of tree, listed, measured, option validated"
