#!/usr/bin/env bash
# Builds the out-of-tree example module (modules/example) against ngx's
# installed headers, found through pkg-config as ngx-module, and loads it
# through NGX_MODULE_PATH: the path a third-party module takes.
set -euo pipefail
: "${NGX:?}" "${NGX_BUILD_ROOT:?}" "${NGX_SOURCE_ROOT:?}"
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config is not installed"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Install into a staging root, as a package would.
meson install -C "$NGX_BUILD_ROOT" --destdir "$work/root" --no-rebuild --quiet >/dev/null
read -r prefix libdir < <(meson introspect --buildoptions "$NGX_BUILD_ROOT" |
    python3 -c 'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o["prefix"], o["libdir"])')
pc="$work/root$prefix/$libdir/pkgconfig"
test -f "$pc/ngx-module.pc" || { echo "FAIL: ngx-module.pc not installed in $pc"; exit 1; }
test -f "$work/root$prefix/include/ngx/module.h" || { echo "FAIL: module.h not installed"; exit 1; }

# Build the example against the staged headers only.
PKG_CONFIG_SYSROOT_DIR="$work/root" PKG_CONFIG_PATH="$pc" \
    meson setup "$work/build" "$NGX_SOURCE_ROOT/modules/example" >"$work/setup.log" 2>&1 ||
    { cat "$work/setup.log"; echo "FAIL: meson setup of the example module"; exit 1; }
ninja -C "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; echo "FAIL: build"; exit 1; }
if grep -q "warning:" "$work/build.log"; then cat "$work/build.log"; echo "FAIL: warnings"; exit 1; fi

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
