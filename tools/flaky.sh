#!/usr/bin/env bash
# Runs the release build's test suite R times in a row (default 3) on this
# machine and names every test that did not pass all R rounds: the check to
# run before a submission, since a test that fails once in three here will
# fail CI on some machine of this kind.
#
#     bash tools/flaky.sh [-r ROUNDS] [BUILD_DIR] [-- MESON_TEST_ARGS...]
#
#     bash tools/flaky.sh                              # build/, 3 rounds, every suite
#     bash tools/flaky.sh -r 5 build -- --suite overhead-realtime --suite strided-realtime
#
# Each round's meson log is kept as BUILD_DIR/meson-logs/testlog.round-N.json.
# Prints per round the passed/failed/skipped counts and its time, then one
# line per test whose outcomes differed or failed ("flaky" or "failing"),
# then "flaky: N" and exits 1 when N > 0 (0 otherwise; 2 for bad usage).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3 build=build
while [ $# -gt 0 ]; do
    case $1 in
        -r) [ $# -ge 2 ] || { echo "flaky: -r needs a count" >&2; exit 2; }
            rounds=$2; shift 2 ;;
        --) shift; break ;;
        -*) echo "flaky: unknown option '$1' (expected -r ROUNDS, BUILD_DIR, -- MESON_TEST_ARGS)" >&2; exit 2 ;;
        *) build=$1; shift ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "flaky: -r '$rounds': expected a count of at least 1" >&2; exit 2; }
[ -f "$build/build.ninja" ] || { echo "flaky: '$build' is not a configured build (bash tools/setup.sh $build)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ninja -C "$build" >/dev/null
logs=()
for ((round = 1; round <= rounds; round++)); do
    began=$(date +%s)
    echo "== round $round of $rounds (load $(cut -d' ' -f1-3 /proc/loadavg))"
    meson test -C "$build" --num-processes 1 "$@" >"$build/meson-logs/flaky-round-$round.txt" 2>&1 || true
    cp "$build/meson-logs/testlog.json" "$build/meson-logs/testlog.round-$round.json"
    logs+=("$build/meson-logs/testlog.round-$round.json")
    tail -n 12 "$build/meson-logs/flaky-round-$round.txt" | grep -E "^(Ok|Fail|Skipped|Timeout):" | tr '\n' ' '
    echo "($(($(date +%s) - began)) s)"
done
python3 - "${logs[@]}" <<'PY'
import json, sys

outcomes = {}  # test name -> outcome per round
for round_index, path in enumerate(sys.argv[1:]):
    for line in open(path):
        if line.strip():
            test = json.loads(line)
            outcomes.setdefault(test["name"], [None] * (len(sys.argv) - 1))[round_index] = test["result"]
flaky = 0
for name, results in sorted(outcomes.items()):
    seen = set(results)
    if seen <= {"OK", "EXPECTEDFAIL"} or seen == {"SKIP"}:
        continue
    flaky += 1
    kind = "failing" if not seen & {"OK", "EXPECTEDFAIL"} else "flaky"
    print(f"{kind}: {name}: {' '.join(str(r) for r in results)}")
print(f"{len(outcomes)} tests over {len(sys.argv) - 1} rounds; flaky: {flaky}")
sys.exit(1 if flaky else 0)
PY
