#!/bin/bash
# real.sh MODULE: a real run of the bw pattern over tcp or shm completes
# with every size reported, functional checks only (real time is this
# machine's, not a figure to assert): positive bandwidths within their own
# intervals, MiB/s = MB/s x 10^6 / 2^20, a message rate of W per window,
# 2 pairs reporting a total rate of both, and with the run's own fit
# (--bw-fit) a finite positive prediction on every row and the fitted model
# in the JSON (no accuracy bound: real time).
source "$(dirname "$0")/common.sh"
module=${1:?usage: real.sh tcp|shm}
"$NGX" --list-modules 2>/dev/null | grep -q "^  $module " || skip "module $module not built"
bw_run "$SCRATCH/one.txt" -m "$module" -x bw -s 1,4Ki,1Mi -c 8 --warmup 1 --bw-window 16 --timeout 20 \
    -o "$SCRATCH/one.json" || { cat "$SCRATCH/one.txt"; fail "bw over $module: exit $?"; }
bw_run "$SCRATCH/two.txt" --pairs 2 -m "$module" -x bw -s 64 -c 8 --warmup 1 --bw-window 16 --timeout 20 \
    -o "$SCRATCH/two.json" || { cat "$SCRATCH/two.txt"; fail "bw with 2 pairs over $module: exit $?"; }
bw_run "$SCRATCH/fit.txt" -m "$module" -x bw -s 1,64,4Ki,64Ki,1Mi -c 8 --warmup 1 --bw-window 16 --bw-fit \
    --timeout 20 -o "$SCRATCH/fit.json" || { cat "$SCRATCH/fit.txt"; fail "bw --bw-fit over $module: exit $?"; }
python3 - "$SCRATCH" <<'PY' || fail "the rows"
import json, math, sys
scratch = sys.argv[1]
run = json.load(open(f"{scratch}/one.json"))
assert run["status"] == "complete", run["status"]
rows = run["results"]
assert [r["size_bytes"] for r in rows] == [1, 4096, 1 << 20], [r["size_bytes"] for r in rows]
for r in rows:
    assert r["count"] >= 8, r
    assert r["bandwidth_MBps"] > 0, r
    assert r["bandwidth_ci95_lo_MBps"] <= r["bandwidth_MBps"] <= r["bandwidth_ci95_hi_MBps"], r
    assert abs(r["bandwidth_MiBps"] - r["bandwidth_MBps"] * 1e6 / 2**20) <= 1e-9 * r["bandwidth_MBps"], r
    assert abs(r["message_rate_per_s"] - 16e6 / r["median_us"]) <= 1e-9 * r["message_rate_per_s"], r
rows = json.load(open(f"{scratch}/two.json"))["results"]
assert [r["pairs"] for r in rows] == [1, 2], rows
for r in rows:
    assert r["message_rate_total_per_s"] > 0 and r["message_rate_per_pair_per_s"] > 0, r
    assert abs(r["message_rate_total_per_s"] - r["pairs"] * r["message_rate_per_pair_per_s"]) <= 1e-6 * r["message_rate_total_per_s"], r
run = json.load(open(f"{scratch}/fit.json"))
assert run["status"] == "complete", run["status"]
assert run["model"]["kind"] == "loggp" and run["model"]["source"].startswith("this run's fit"), run["model"]
rows = run["results"]
assert [r["size_bytes"] for r in rows] == [1, 64, 4096, 1 << 16, 1 << 20], [r["size_bytes"] for r in rows]
for r in rows:
    for key in ("predicted_us", "predicted_MBps", "predicted_message_rate_per_s"):
        assert isinstance(r[key], (int, float)) and math.isfinite(r[key]) and r[key] > 0, (key, r)
    assert math.isfinite(r["error_pct"]), r
print("--bw-fit:", [(r["size_bytes"], round(r["error_pct"], 1)) for r in rows])
print("sizes:", [(r["size_bytes"], round(r["bandwidth_MBps"], 1)) for r in json.load(open(f"{scratch}/one.json"))["results"]])
PY
echo PASS
