# Sourced by the out-of-tree example tests: installs ngx into a staging root
# as a package would ($work/root, with $prefix, $libdir and $pc, the
# pkg-config folder) and builds an example folder against it alone.
set -euo pipefail
: "${NGX:?}" "${NGX_BUILD_ROOT:?}" "${NGX_SOURCE_ROOT:?}"
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config is not installed"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

meson install -C "$NGX_BUILD_ROOT" --destdir "$work/root" --no-rebuild --quiet >/dev/null
read -r prefix libdir < <(meson introspect --buildoptions "$NGX_BUILD_ROOT" |
    python3 -c 'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o["prefix"], o["libdir"])')
pc="$work/root$prefix/$libdir/pkgconfig"

# build_example DIR: meson setup + ninja of DIR into $work/build, warnings fail.
build_example() {
    PKG_CONFIG_SYSROOT_DIR="$work/root" PKG_CONFIG_PATH="$pc" \
        meson setup "$work/build" "$1" >"$work/setup.log" 2>&1 ||
        { cat "$work/setup.log"; echo "FAIL: meson setup of $1"; exit 1; }
    ninja -C "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; echo "FAIL: build of $1"; exit 1; }
    if grep -q "warning:" "$work/build.log"; then cat "$work/build.log"; echo "FAIL: warnings"; exit 1; fi
}
