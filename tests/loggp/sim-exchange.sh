#!/bin/bash
# sim-exchange.sh [virtual]: the loggp pattern's exchange series
# (--loggp-exchange yes: both ranks irecv + isend + wait, n exchanges back
# to back) recovers the known share of the sim's send overhead that occupies
# the CPU while the rank receives: the sim busy-waits all of o_s(s) =
# o_s + (s-1) O_s before the data leaves (docs/sim.md), so the
# exchange_cpu_share of the range of the largest sizes must come out 1 (at
# least 1 - 10 TOL: 0.99 in virtual time, where the fitted parameters are
# exact; 0.7 in real time), its exchanges reproduced within 3 TOL (0.3%,
# 9%), and the 8 KiB exchange must be one message of eq. (1) within a
# quarter of (s-1) O_s, so that reading O_s as waiting (share 0) fails it.
# Sim set C of sim-lines.sh: L 5, o_s 2, o_r 1.5, g 6, G 0.002, O_s 0.0005,
# O_r 0.00025 us/B, 1 B..8 KiB, no rendezvous (ngx's model of an exchange
# has no rendezvous handshake). And `--loggp-exchange yes` over tcp (no non-blocking
# calls) exits 2 naming the module.
source "$(dirname "$0")/truth.sh"
lg_need_cpus
lg_need_module sim
TOL=0.03
lg_sim_clock "$@"
sim=("${SIM_CLOCK[@]}" --sim-L 5 --sim-os 2 --sim-or 1.5 --sim-g 6 --sim-G 0.002 --sim-O 0.0005 --sim-Or 0.00025
     --sim-S 0)
run() {
    ngx_run 150 -m sim -x loggp --loggp-exchange yes "${sim[@]}" -s 1-8Ki -c 50 --cpus 0,1 -o "$IT_DIR/run.json"
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
# The range of the largest size, where (s-1) O_s (4 us at 8 KiB) is what the
# share decides; a range of the small sizes holds a few ns of it (below the
# noise of real time) or none.
for r in model["ranges"][-1:]:
    where = "%d..%d B" % (r["from_bytes"], r["to_bytes"])
    share, ex = r.get("exchange_cpu_share"), r.get("exchange")
    if share is None or ex is None:
        bad.append(where + ": no exchange_cpu_share (the exchange series did not run)")
        continue
    print("%s: exchange_cpu_share %.3f over %d sizes, mean error %.3f%% (all of O_s as CPU: %.3f%%)"
          % (where, share, ex["points"], 100 * ex["mean_relative"], 100 * ex["mean_relative_all_cpu"]))
    if share < 1 - 10 * tol:
        bad.append("%s: share %.3f, expected 1 (the sim's send overhead is all CPU)" % (where, share))
    if ex["mean_relative"] > 3 * tol:
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
# A module without non-blocking calls cannot exchange: exit 2, naming it.
if "$NGX" --list-modules 2>&1 | grep -Eq "^  tcp "; then
    ngx_run 30 -m tcp -x loggp --loggp-exchange yes -s 1-4 -c 5
    [[ $RC == 2 ]] && grep -q "module 'tcp' has no reliable non-blocking calls" "$IT_DIR/out" "$IT_DIR/err" ||
        fail "--loggp-exchange yes over tcp: exit $RC, expected 2 naming the module"
    ok "--loggp-exchange yes over tcp: exit 2, the module named"
fi
echo PASS
