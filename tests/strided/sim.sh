#!/usr/bin/env bash
# The sim module with a configured strided cost (--sim-strided c us per
# element at each end): the strided pattern's log3P fit must give it back,
# l_mw(s, d) / (2 s/e) = c within 3% at every stride > 1 and size, and
# predict the remote strided times within 3%. Measured once more before
# failing (a shared machine can stretch a simulated deadline).
source "$(dirname "$0")/common.sh"
c=0.02
# "virtual": the sim in virtual time: exact truth, 0.1%, one attempt.
clock=() tol=0.03
[[ ${1:-} == virtual ]] && clock=(--sim-clock virtual) tol=0.001
measure_and_check() {
    ngx_deadline 200 -m sim "${clock[@]}" --sim-strided $c -x strided -s 4Ki,8Ki,16Ki --strides 1,4,16 -c 100 \
        -o "$SCRATCH/sim.json" >"$SCRATCH/sim.txt" 2>&1 || { cat "$SCRATCH/sim.txt"; fail "sim strided run failed"; }
    python3 - "$SCRATCH/sim.json" "$c" "$tol" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c, tol = float(sys.argv[2]), float(sys.argv[3])
m = d["model"]["models"]["log3p"]
worst = 0
for t in m["strided"]:
    if t["stride_elements"] <= 1:
        continue
    for s, l in zip(t["sizes"], t["l_mw_us"]):
        got = l / (2 * s / m["element_bytes"])
        worst = max(worst, abs(got - c) / c)
        print(f"  stride {t['stride_elements']:g}, {s:g} B: c = {got:.5f} us/element")
grid = m["error_on_grid"]["max_relative"]
print(f"  worst relative error of c {worst:.4f}; log3P's largest error on the grid {grid:.4f}")
sys.exit(0 if worst < tol and grid < tol else 1)
PY
}
measure_and_check || { [[ ${#clock[@]} == 0 ]] && echo "measuring once more" && measure_and_check; } ||
    fail "configured strided cost not recovered within $tol"
echo PASS
