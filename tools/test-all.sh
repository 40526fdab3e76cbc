#!/usr/bin/env bash
# Sets up everything and runs every test suite:
#   1. the release build's full suite: unit, fit, modules, integration,
#      faults, bad-input, net, mpi, loggp and the SoftRoCE guest;
#   2. the same code under AddressSanitizer and UndefinedBehaviorSanitizer
#      (all suites but the guest, MPI, whose library is not instrumented, and
#      the timing-accuracy suites net and loggp, which sanitizers slow down);
#   3. bounded libFuzzer runs of every parser of user input (clang).
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
start=$(date +%s)
step() { echo "== $* ($(($(date +%s) - start)) s)"; }

# The closing line counts every test of the meson runs that took place
# (skipped ones are those that exited 77), whatever the outcome.
summary() {
    python3 - build/meson-logs/testlog.json build-asan/meson-logs/testlog.json <<'PY' || true
import json, os, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    for line in open(path):
        result = json.loads(line).get("result", "")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
}
rm -f build/meson-logs/testlog.json build-asan/meson-logs/testlog.json
trap summary EXIT

step "format"
bash tools/check-format.sh

step "release build and full suite"
bash tools/setup.sh build
meson test -C build --print-errorlogs --num-processes 1

step "ASan + UBSan build and suites"
bash tools/setup.sh build-asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false
meson test -C build-asan --print-errorlogs --num-processes 1 --timeout-multiplier 3 \
    --no-suite softroce --no-suite mpi --no-suite net --no-suite loggp

step "fuzzing"
if ! command -v clang++ >/dev/null || ! dpkg-query -W libclang-rt-14-dev >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
bash tests/fuzz/run.sh build-fuzz 30
step "all suites passed"
