#!/bin/bash
# bench/overhead/loghssp.sh: how well LoGH{sS}P (Al-Tawil and Moritz 1998,
# eqs. 8-9) fitted from a shm run and a tcp run across two network
# namespaces predicts a message size left out of the fit, over R rounds.
# Each round is one run of tests/overhead/loghssp.sh (root: namespaces),
# whose real part fits 1 B, 1, 16 and 64 KiB and predicts 32 KiB; the
# round's "held out" lines are collected here and summarized per equation
# (median, min, max of the error against the measured minimum).
#
#     bench/overhead/loghssp.sh [BUILD_DIR] [-r ROUNDS]
set -u
build=./build rounds=5
while [[ $# -gt 0 ]]; do
    case $1 in
    -r|--rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -*) echo "loghssp.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "loghssp.sh: -r wants a positive whole number, not '$rounds'" >&2; exit 2; }
build=$(cd "$build" 2>/dev/null && pwd) && [[ -x $build/ngx ]] ||
    { echo "loghssp.sh: no ngx in the build directory (meson setup BUILD && ninja -C BUILD)" >&2; exit 2; }
source_root=$(cd "$(dirname "$0")/../.." && pwd)
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
echo "# LoGH{sS}P held-out size x $rounds, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
    out=$(NGX=$build/ngx NGX_MODULE_PATH=$build/modules NGX_PATTERN_PATH=$build/patterns NGX_BUILD_ROOT=$build \
        NGX_SOURCE_ROOT=$source_root timeout -k 5 300 bash "$source_root/tests/overhead/loghssp.sh" 2>&1)
    rc=$?
    # the last two "held out" lines are the real part's (the first is the sim's)
    echo "$out" | grep "^held out" | tail -2 | tee -a "$lines" | sed "s/^/round $r: /"
    [[ $rc == 0 ]] || echo "round $r: the test failed (exit $rc)"
done
python3 - "$lines" <<'PY'
import re, statistics, sys
errors = {}
for line in open(sys.argv[1]):
    m = re.search(r"eq\. \((\d)\).*error ([-+0-9.]+)%", line)
    if m:
        errors.setdefault(m.group(1), []).append(float(m.group(2)))
for eq, e in sorted(errors.items()):
    print(f"eq. ({eq}): {len(e)} rounds, error median {statistics.median(e):+.1f}%, "
          f"min {min(e):+.1f}%, max {max(e):+.1f}%")
PY
