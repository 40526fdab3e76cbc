#!/usr/bin/env bash
# The core is two libraries and data flows one way: libngxapp (the engine:
# CLI, loaders, session, bootstraps) links libngxplugin (what plugins use),
# never the reverse; the measuring library libngxmeasure sits on
# libngxplugin. Checked on the files a package would install:
#   - every installed pattern plugin needs libngxplugin (itself or through
#     libngxmeasure) and not libngxapp, and calls no function of libngxapp;
#   - libngxmeasure needs libngxplugin and not libngxapp, and calls no
#     function of libngxapp; ngx-measure.pc hands out -lngxmeasure and
#     requires ngx-pattern;
#   - no installed module needs either (modules speak the C ABI only);
#   - libngxplugin needs no libngxapp and leaves no symbol for it to define;
#   - ngx-pattern.pc hands out libngxplugin, not libngxapp;
#   - libngxmodels (models/) is installed with its headers, needs no libngxapp
#     and calls nothing of it, and ngx-models.pc hands it out;
#   - no source of the plugin library includes a header of the engine
#     (core/src): its quoted includes resolve next to it, in core/plugin.
source "$(dirname "$0")/stage.sh"
command -v readelf >/dev/null && command -v nm >/dev/null ||
    { echo "SKIP: readelf and nm (binutils) are not installed"; exit 77; }

lib="$work/root$prefix/$libdir"
fail() { echo "FAIL: $*"; exit 1; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

plugin_lib=$(ls "$lib"/libngxplugin.so.* 2>/dev/null | head -n 1)
app_lib=$(ls "$lib"/libngxapp.so.* 2>/dev/null | head -n 1)
measure_lib=$(ls "$lib"/libngxmeasure.so.* 2>/dev/null | head -n 1)
test -n "$plugin_lib" || fail "libngxplugin is not installed in $lib"
test -n "$app_lib" || fail "libngxapp is not installed in $lib"
test -n "$measure_lib" || fail "libngxmeasure is not installed in $lib"
test ! -e "$lib/libngxcore.so" || fail "the old libngxcore is still installed"

# Plugins are loaded into ngx, where an engine symbol would resolve without a
# NEEDED entry: none may leave one of its own (strong) definitions undefined.
# (Weak ones are inline and template code that every user carries a copy of.)
app_symbols=$(nm -D --defined-only "$app_lib" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u)
uses_engine() { comm -12 <(nm -D --undefined-only "$1" | awk '{print $NF}' | sort -u) <(echo "$app_symbols"); }

list=$(needed "$measure_lib")
grep -qx 'libngxplugin\.so\.[0-9.]*' <<<"$list" || fail "libngxmeasure does not need libngxplugin: $list"
! grep -q '^libngxapp' <<<"$list" || fail "libngxmeasure needs the engine (libngxapp)"
used=$(uses_engine "$measure_lib")
test -z "$used" || fail "libngxmeasure calls into libngxapp: $used"

patterns=("$lib"/ngx/patterns/ngx_pattern_*.so)
test -e "${patterns[0]}" || fail "no pattern installed in $lib/ngx/patterns"
for so in "${patterns[@]}"; do
    list=$(needed "$so")
    grep -qx 'libngx\(plugin\|measure\)\.so\.[0-9.]*' <<<"$list" ||
        fail "$(basename "$so") needs neither libngxplugin nor libngxmeasure: $list"
    ! grep -q '^libngxapp' <<<"$list" || fail "$(basename "$so") needs the engine (libngxapp)"
    used=$(uses_engine "$so")
    test -z "$used" || fail "$(basename "$so") calls into libngxapp: $used"
done

modules=("$lib"/ngx/modules/ngx_*.so)
test -e "${modules[0]}" || fail "no module installed in $lib/ngx/modules"
for so in "${modules[@]}"; do
    ! needed "$so" | grep -q '^libngx\(app\|plugin\)' || fail "module $(basename "$so") needs a core library: $(needed "$so")"
    used=$(uses_engine "$so")
    test -z "$used" || fail "module $(basename "$so") calls into libngxapp: $used"
done

! needed "$plugin_lib" | grep -q '^libngxapp' || fail "libngxplugin needs libngxapp"
needed "$app_lib" | grep -qx 'libngxplugin\.so\.[0-9.]*' || fail "libngxapp does not link libngxplugin"
# Symbols libngxplugin leaves undefined that libngxapp defines: a call against the flow.
backwards=$(uses_engine "$plugin_lib")
test -z "$backwards" || fail "libngxplugin uses symbols of libngxapp: $backwards"

flags=$(PKG_CONFIG_SYSROOT_DIR="$work/root" PKG_CONFIG_PATH="$pc" pkg-config --libs ngx-pattern)
grep -q -- '-lngxplugin' <<<"$flags" || fail "pkg-config ngx-pattern gives '$flags', without -lngxplugin"
! grep -q -- '-lngxapp' <<<"$flags" || fail "pkg-config ngx-pattern hands out the engine: '$flags'"
flags=$(PKG_CONFIG_SYSROOT_DIR="$work/root" PKG_CONFIG_PATH="$pc" pkg-config --libs ngx-measure)
grep -q -- '-lngxmeasure' <<<"$flags" && grep -q -- '-lngxplugin' <<<"$flags" ||
    fail "pkg-config ngx-measure gives '$flags', without -lngxmeasure and -lngxplugin"
! grep -q -- '-lngxapp' <<<"$flags" || fail "pkg-config ngx-measure hands out the engine: '$flags'"

# The models room: one installed library beside libngxplugin, with its headers.
models_lib=$(ls "$lib"/libngxmodels.so.* 2>/dev/null | head -n 1)
test -n "$models_lib" || fail "libngxmodels is not installed in $lib"
! needed "$models_lib" | grep -q '^libngxapp' || fail "libngxmodels needs libngxapp"
backwards=$(uses_engine "$models_lib")
test -z "$backwards" || fail "libngxmodels uses symbols of libngxapp: $backwards"
for header in base/least_squares.hpp loggp/loggp.hpp loggp/loggp_offline.hpp maxrate/maxrate_model.hpp; do
    test -f "$work/root$prefix/include/ngx/models/$header" || fail "include/ngx/models/$header is not installed"
done
flags=$(PKG_CONFIG_SYSROOT_DIR="$work/root" PKG_CONFIG_PATH="$pc" pkg-config --libs ngx-models)
grep -q -- '-lngxmodels' <<<"$flags" || fail "pkg-config ngx-models gives '$flags', without -lngxmodels"
# A model's installed header compiles with what ngx-models.pc gives (its includes name their folder).
cflags=$(PKG_CONFIG_SYSROOT_DIR="$work/root" PKG_CONFIG_PATH="$pc" pkg-config --cflags ngx-models)
echo '#include <ngx/models/loggp/loggp_model.hpp>' >"$work/models.cpp"
# shellcheck disable=SC2086 # the flags are words
c++ -std=c++20 -fsyntax-only $cflags "$work/models.cpp" || fail "include/ngx/models/loggp/loggp_model.hpp does not compile with '$cflags'"

# Every quoted include of core/plugin names a file there (or the generated ngx_config.h).
plugin_src="$NGX_SOURCE_ROOT/core/plugin"
for file in "$plugin_src"/*.cpp "$plugin_src"/*.hpp; do
    while read -r header; do
        [ "$header" = ngx_config.h ] || { [[ $header != */* ]] && [ -f "$plugin_src/$header" ]; } ||
            fail "$(basename "$file") includes \"$header\", which is not in core/plugin (an engine header?)"
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done
echo "PASS: ${#patterns[@]} patterns need libngxplugin (or libngxmeasure on it) only, libngxmeasure libngxplugin only, ${#modules[@]} modules no core library," \
    "libngxplugin nothing of libngxapp, ngx-pattern.pc gives -lngxplugin, libngxmodels installed apart from the" \
    "engine, core/plugin includes no engine header"
