#!/usr/bin/env bash
# Sets up everything (tools/test-deps.sh: the packages only the tests need;
# tools/setup.sh: the build's) and runs every test suite:
#   1. the release build's full suite: unit, fit, modules, integration,
#      faults, bad-input, net, mpi, loggp, and the SoftRoCE guests (one
#      test in suites softroce and softroce2: guest A boots once for the
#      one-guest list, guest B joins it for the two-guest list);
#   2. the same code under AddressSanitizer and UndefinedBehaviorSanitizer:
#      every test but the guests (suites softroce and softroce2), the build
#      and install as an unprivileged user (install-user: a release build of
#      its own, already run in step 1), the MPI
#      suites mpi and trace (Open MPI is not instrumented: ASan reports its
#      allocations as leaks and mpirun would have to preload the runtime;
#      the trace reader alone still runs, suite trace-dump), the suites
#      that test scripts rather than C++ (plot, slurm, reframe, completion), the
#      coverage tests that repeat one sanitized path over 100 seeds
#      (virtual-rates) or many times (repeats: ngx check's rates over 100
#      pairs, every collective through LogGOPSim) and the tests
#      that compare timings with ground truth or run mpirun (suites net-realtime,
#      loggp-realtime, nodecomm-realtime, strided-realtime, overhead-realtime,
#      passes-realtime and mpi-realtime, which the sanitizers slow: they measure
#      in real time);
#   3. bounded libFuzzer runs of every parser of user input (clang).
# The builds of steps 2 and 3 run while step 1's suite does (see
# background_builds below).
# Exits non-zero if anything fails.
#
#     bash tools/test-all.sh [--require-all]
#
# In CI (CI=true in the environment, or --require-all) every feature is
# required: the builds are configured with -Dmpi=enabled -Dibverbs=enabled,
# and a test that ends SKIP fails the run, named with its reason, unless it is
# listed in tools/ci-tolerated-skips.txt. Elsewhere a skip stays a skip.
set -euo pipefail
cd "$(dirname "$0")/.."
require_all=
case ${CI:-} in true | 1 | yes) require_all=1 ;; esac
for arg in "$@"; do
    case $arg in
        --require-all) require_all=1 ;;
        *) echo "test-all: unknown argument '$arg' (expected --require-all)" >&2; exit 2 ;;
    esac
done
features=()
[ -z "$require_all" ] || features=(-Dmpi=enabled -Dibverbs=enabled)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One compiler cache for every build of the run (meson uses ccache when it is
# installed; tools/test-deps.sh installs it): the install test's build as
# another user (tests/install/user-install.sh) then compiles only what its
# prefix changes. Paths under the tree are hashed relative to it.
export CCACHE_DIR=/var/cache/ngx-ccache CCACHE_BASEDIR=$PWD
start=$(date +%s)
step() { echo "== $* ($(($(date +%s) - start)) s)"; }

# The closing line counts every test of the meson runs that took place
# (skipped ones are those that exited 77), whatever the outcome; its form
# "N passed, N failed, N skipped" is parsed by CI. With --require-all a skip
# not on the tolerated list counts as failed and makes the run fail; the
# tolerated ones are printed above the closing line. Exits 1 on such a skip.
summary() {
    python3 - "$require_all" "$start" tools/ci-tolerated-skips.txt \
        build/meson-logs/testlog.json build/meson-logs/netbound.json build-asan/meson-logs/testlog.json <<'PY'
import json, os, sys, time

require_all, start, tolerated_path, logs = sys.argv[1] == "1", float(sys.argv[2]), sys.argv[3], sys.argv[4:]


def tolerated_skips(path):
    """TEST-NAME -> reason, from the list file ('#' starts a comment)."""
    reasons = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, reason = line.partition(" ")
            reasons[name] = reason.strip()
    return reasons


def skip_reason(test):
    """The last line of the test's output that says why (scripts print SKIP: ...)."""
    lines = [l.strip() for l in (test.get("stdout") or "").splitlines() if l.strip()]
    said = [l for l in lines if "skip" in l.lower()]
    return (said or lines or ["(no output)"])[-1]


def print_suite_times(build, tests):
    """Seconds per suite (a test counts in its first suite) and in all, longest first.
    Meson names a test "project:suite+suite / name"."""
    per_suite = {}
    for test in tests:
        suite = test["name"].split(" / ")[0].split(":")[-1].split("+")[0]
        count, seconds = per_suite.get(suite, (0, 0.0))
        per_suite[suite] = (count + 1, seconds + float(test.get("duration") or 0))
    print(f"time per suite, {build}:")
    for suite, (count, seconds) in sorted(per_suite.items(), key=lambda item: -item[1][1]):
        print(f"  {suite:<20} {count:4d} tests {seconds:8.1f} s")
    print(f"  {'all':<20} {len(tests):4d} tests {sum(s for _, s in per_suite.values()):8.1f} s")


tolerated = tolerated_skips(tolerated_path)
passed = failed = skipped = 0
refused, allowed = [], []
for path in logs:
    if not os.path.exists(path):
        continue
    build = os.path.dirname(os.path.dirname(path))
    if os.path.basename(path) != "testlog.json":
        build += " (" + os.path.basename(path).removesuffix(".json") + ")"
    tests = [json.loads(line) for line in open(path) if line.strip()]
    print_suite_times(build, tests)
    for test in tests:
        result = test.get("result", "")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result != "SKIP":
            failed += 1
        elif require_all and test["name"].split(" / ")[-1] not in tolerated:
            failed += 1
            refused.append(f"{build}: {test['name']}: {skip_reason(test)}")
        else:
            skipped += 1
            bare = test["name"].split(" / ")[-1]  # meson names it "project:suites / name"
            if bare in tolerated:
                allowed.append(f"{build}: {test['name']}: {tolerated[bare]}")
print(f"whole run: {time.time() - start:.0f} s")
for line in refused:
    print(f"FAIL (skipped in CI, not tolerated): {line}")
for line in allowed:
    print(f"tolerated skip: {line}")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if refused else 0)
PY
}
finish() {
    local rc=$?
    # A build still running in the background when a stage failed.
    [ -z "${builds:-}" ] || kill -- -"$builds" 2>/dev/null || true
    summary || rc=1
    exit $rc
}
rm -f build/meson-logs/testlog.json build/meson-logs/netbound.json build-asan/meson-logs/testlog.json
trap finish EXIT

step "packages"
bash tools/test-deps.sh
# The build's packages too, before two builds set up at once (tools/setup.sh
# installs what is missing; two apt-get runs would contend for its lock).
source tools/packages.sh
ngx_install_packages test-all "${ngx_build_packages[@]}"

step "format"
bash tools/check-format.sh

# The sanitized build (-O1, as AddressSanitizer's authors advise: the
# sanitized suites run about twice as fast as at -O0, every check kept)
# compiles while the release build and suite run, and the fuzz targets while the
# sanitized suites run, each at idle priority (SCHED_IDLE: a test's process
# that wakes takes the CPU at once) on the CPU time the suite leaves unused;
# their output goes to build-asan.log and build-fuzz.log.
# in_background LOG COMMAND...: starts COMMAND so, in a process group of its
# own (which finish() stops whole if a stage fails); its pid in $builds.
in_background() {
    local log=$1
    shift
    set -m
    chrt -i 0 nice -n 19 "$@" >"$log" 2>&1 &
    builds=$!
    set +m
}
# wait_for_build LOG: waits for the build in the background; its log's end if it failed.
wait_for_build() {
    if ! wait "$builds"; then
        tail -40 "$1"
        echo "test-all: a build in the background failed (its output: $1)" >&2
        exit 1
    fi
    builds=
}
in_background build-asan.log bash tools/setup.sh build-asan -Dbuildtype=debug -Doptimization=1 \
    -Db_sanitize=address,undefined -Db_lundef=false "${features[@]}"

step "release build (the sanitized build beside it at idle priority)"
bash tools/setup.sh build "${features[@]}"

step "release suite (the sanitized build beside it at idle priority)"
meson test -C build --print-errorlogs --num-processes 1 --no-suite coll-netbound

# The one check that asserts an accuracy figure in real time, because the
# network sets its time (docs/testing.md), runs with nothing beside it: even
# at idle priority a build made its ranks wait for a CPU.
step "network-bound cluster check (after the sanitized build, nothing beside it)"
wait_for_build build-asan.log
meson test -C build --print-errorlogs --suite coll-netbound --logbase netbound

step "ASan + UBSan suites (the fuzz targets build beside them)"
FUZZ_BUILD_ONLY=1 in_background build-fuzz.log bash tests/fuzz/run.sh build-fuzz
NGX_TEST_SANITIZED=1 meson test -C build-asan --print-errorlogs --num-processes 1 --timeout-multiplier 3 \
    --no-suite softroce --no-suite softroce2 --no-suite install-user --no-suite mpi --no-suite trace --no-suite plot --no-suite slurm --no-suite reframe --no-suite completion --no-suite virtual-rates --no-suite repeats --no-suite net-realtime --no-suite loggp-realtime \
    --no-suite nodecomm-realtime --no-suite strided-realtime --no-suite overhead-realtime --no-suite passes-realtime --no-suite mpi-realtime

step "fuzzing"
wait_for_build build-fuzz.log
bash tests/fuzz/run.sh build-fuzz 10  # 10 s a target, one target per CPU at a time
step "all suites passed"
