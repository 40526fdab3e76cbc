#!/usr/bin/env bash
# Sets up everything and runs every test suite: the release build's full
# suite (unit, fit, modules, integration, faults, bad input, net, MPI and
# the SoftRoCE guest), then the same code under AddressSanitizer and
# UndefinedBehaviorSanitizer (every suite but the guest and the timing-only
# network self-tests). Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bash tools/setup.sh build
meson test -C build --print-errorlogs --num-processes 1

bash tools/setup.sh build-asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false
meson test -C build-asan --print-errorlogs --num-processes 1 \
    --no-suite softroce --no-suite net --timeout-multiplier 3
