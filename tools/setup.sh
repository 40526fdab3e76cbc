#!/usr/bin/env bash
# Sets up a Debian 12 machine for building and running ngx: installs what
# building and running needs (tools/packages.sh, ngx_build_packages; as root,
# and only when something is missing: with everything installed anyone may
# run it), configures and builds into ./build (or the folder given as $1,
# with meson options after it), and leaves ./ngx, a link to the program built
# in ./build. It installs nothing that only the tests need and starts no
# daemon (tools/test-deps.sh, which tools/test-all.sh runs, adds the test
# packages). Without root or on another system: docs/install.md.
#
#   bash tools/setup.sh && ./ngx
#
#   bash tools/setup.sh                    # ./build, release
#   bash tools/setup.sh build-asan -Db_sanitize=address,undefined
#   bash tools/setup.sh --print-packages   # the packages it installs, one a line
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/packages.sh
if [ "${1:-}" = --print-packages ]; then
    printf '%s\n' "${ngx_build_packages[@]}"
    exit 0
fi
build=${1:-build}
shift || true

ngx_install_packages setup "${ngx_build_packages[@]}"

if [ -f "$build/build.ninja" ]; then
    meson setup --reconfigure "$build" "$@" >/dev/null
else
    meson setup "$build" "$@" >/dev/null
fi
ninja -C "$build"
# ./ngx at the repository root, the name the README's commands use (ignored by git).
if [ "$build" = build ]; then
    ln -sfn build/ngx ngx
fi
