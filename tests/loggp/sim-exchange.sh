#!/bin/bash
# sim-exchange.sh [virtual]: the loggp pattern's exchange series (both ranks
# irecv + isend + wait, n exchanges back to back) recovers the known share of
# the sim's send overhead that occupies the CPU while the rank receives: the
# sim busy-waits all of o_s(s) = o_s + (s-1) O_s before the data leaves
# (modules/sim/sim.cpp), so every range's exchange_cpu_share must come out
# 1 (at least 1 - TOL*10: the share's grid is 1/1000, the parameters it is
# read with are fitted), with the exchanges reproduced within TOL, and the
# reading of all O_s as waiting (share 0) must miss them by more than
# O_s costs (checked on the run's own numbers, so the test can fail both
# ways). Sim set C of sim-lines.sh: L 5, o_s 2, o_r 1.5, g 6, G 0.002,
# O_s 0.0005, O_r 0.00025 us/B, 1 B..8 KiB.
source "$(dirname "$0")/common.sh"
lg_need_cpus
lg_need_module sim
TOL=0.03
lg_sim_clock "$@"
sim=("${SIM_CLOCK[@]}" --sim-L 5 --sim-os 2 --sim-or 1.5 --sim-g 6 --sim-G 0.002 --sim-O 0.0005 --sim-Or 0.00025
     --sim-S 0)
run() {
    ngx_run 150 -m sim -x loggp "${sim[@]}" -s 1-8Ki -c 50 --cpus 0,1 -o "$IT_DIR/run.json"
    [[ $RC == 0 ]] || { tail -5 "$IT_DIR/err"; return 1; }
    sed -n '/^# loggp parameters/,$p' "$IT_DIR/out"
}
check() {
    python3 - "$IT_DIR/run.json" "$TOL" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tol = float(sys.argv[2])
model = d.get("runs", [d])[0]["model"]
bad = []
for r in model["ranges"]:
    where = "%d..%d B" % (r["from_bytes"], r["to_bytes"])
    share, ex = r.get("exchange_cpu_share"), r.get("exchange")
    if share is None or ex is None:
        bad.append(where + ": no exchange_cpu_share (the exchange series did not run)")
        continue
    print("%s: exchange_cpu_share %.3f over %d sizes, mean error %.3f%% (all of O_s as CPU: %.3f%%)"
          % (where, share, ex["points"], 100 * ex["mean_relative"], 100 * ex["mean_relative_all_cpu"]))
    if share < 1 - 10 * tol:
        bad.append("%s: share %.3f, expected 1 (the sim's send overhead is all CPU)" % (where, share))
    if ex["mean_relative"] > tol:
        bad.append("%s: the exchanges are missed by %.3f%% on average" % (where, 100 * ex["mean_relative"]))
# The largest size: X_1 - X_0 = (s-1) O_s is what the share decides; the
# measured exchange must be nearer X_1 than X_0 by most of it.
big = [r for r in d.get("runs", [d])[0].get("results", []) if r.get("size_bytes") == 8192 and "exchange_us" in r]
if big:
    x = big[0]["exchange_us"]
    r = model["ranges"][-1]
    one_way = r["L_us"] + r["o_us"] + 8191 * r["O_us_per_byte"] + r["o_r_us"] + 8191 * r["O_r_us_per_byte"] \
        + 8191 * r["G_us_per_byte"]
    print("8 KiB: exchange %.3f us, one message of eq. (1) %.3f us, (s-1) O_s %.3f us" % (x, one_way, 8191 * 0.0005))
    if abs(x - one_way) > 0.25 * 8191 * 0.0005:
        bad.append("8 KiB: the exchange (%.3f us) is not one message of eq. (1) (%.3f us)" % (x, one_way))
else:
    bad.append("no exchange_us column at 8 KiB")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
}
lg_measure_and_check "sim exchanges: the share of O_s that is CPU time" run check
echo PASS
