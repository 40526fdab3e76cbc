#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (as root) for ngx: installs the build
# and test dependencies from Debian's packages, then configures and builds
# into ./build (or the folder given as $1, with meson options after it),
# and leaves ./ngx, a link to the program built in ./build:
#
#   bash tools/setup.sh && ./ngx
#
#   bash tools/setup.sh                    # ./build, release
#   bash tools/setup.sh build-asan -Db_sanitize=address,undefined
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true

packages=(
    g++ meson ninja-build pkg-config python3
    libboost-program-options-dev libgtest-dev libgmock-dev nlohmann-json3-dev
    openmpi-bin libopenmpi-dev gfortran hpcc
    libibverbs-dev rdma-core ibverbs-providers
    iproute2 procps
    python3-matplotlib python3-jsonschema python3-venv
    slurmctld slurmd munge
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: missing packages ${missing[*]}; run as root or install them" >&2
        exit 1
    fi
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

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
