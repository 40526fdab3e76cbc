#!/usr/bin/env bash
# The coll pattern over sim in virtual time (exact, deterministic) against
# the prediction from the sim's own parameters: for P ranks, every operation
# and every algorithm of it, ngx's own implementation (the schedule of
# models/collectives/collective_schedule.hpp over sim's send/recv) within 3% of the
# prediction, at sizes in both protocol ranges of a LogGPS model (eager up to
# S = 4 KiB, rendezvous above). In the rendezvous range also the algorithms
# whose ranks send each other at once (recursive doubling, Bruck, pairwise,
# Rabenseifner: isend + irecv on both ranks, the sim answering the crossing
# request; without that they stopped with "both sending a rendezvous
# message at once?").
# The prediction plays the schedule as the ranks run it (ScheduleRules::
# program_order: blocking calls in order, a message that arrived early
# taken when its receive is called, as the sim charges it), so no point is
# exempt: a binomial root receiving a leaf's early message after a
# subtree's late one (P = 5, 9) and the fold of Rabenseifner's algorithm
# (P = 3) cost the same o_r in the model as in the run.
#     sim-truth.sh P
source "$(dirname "$0")/common.sh"
P=$1
((P % 2 == 0)) || command -v mpirun >/dev/null || skip "odd P needs mpirun (install openmpi-bin)"

# The sim's parameters as a LogGPS model (Ino et al. 2001, Table 3): o' = o_s = o_r = 1,
# L = 5, G = 0.001 us/byte at every size, no gap g (--sim-g 0: LogGPS has none), S = 4 KiB.
cat >"$SCRATCH/model.json" <<'JSON'
{"pattern": "loggps", "model": {"kind": "loggps", "L_us": {"value": 5}, "o_prime_us": {"value": 1},
 "O_s_us_per_byte": {"value": 0}, "O_r_us_per_byte": {"value": 0}, "G_s_us_per_byte": {"value": 0.0002},
 "G_l_us_per_byte": {"value": 0.0002}, "s_bytes": 1024, "S_bytes": 4096}}
JSON
SIM=(-m sim --sim-clock virtual --sim-g 0 --sim-S 4096 --sim-G 0.0002 -c 3 --warmup 1 --timeout 20
     -x coll --coll-params "$SCRATCH/model.json")
# op algorithms sizes: every algorithm at sizes whose messages all stay eager
# (allgather and alltoall send up to P blocks at once: 256 and 512 B), and
# at 24 KiB (rendezvous messages: the exchanges cross).
RUNS=(
    "bcast all 8,3Ki"
    "bcast linear 24Ki" "bcast binomial 24Ki"
    "reduce all 8,3Ki" "reduce binomial 24Ki"
    "allreduce all 8,3Ki,24Ki"
    "allgather all 8,256,24Ki"
    "alltoall all 8,512,24Ki"
    "gather all 8,3Ki" "gather linear 24Ki" "gather binomial 24Ki"
    "scatter all 8,3Ki" "scatter linear 24Ki" "scatter binomial 24Ki"
    "barrier all 1"
)
n=0
FAILED=0
for run in "${RUNS[@]}"; do
    read -r op algorithm sizes <<<"$run"
    out=$SCRATCH/$op-$algorithm.json
    coll_run "$P" "$SCRATCH/out.txt" "${SIM[@]}" --coll-op "$op" --coll-algorithm "$algorithm" -s "$sizes" \
        --coll-segment 8Ki -o "$out" || { cat "$SCRATCH/out.txt"; fail "P = $P $op $algorithm: the run failed"; }
    python3 - "$out" "$P" "$op" <<'PY'
import json, sys
out, P, op = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = json.load(open(out))
run = d.get("runs", [d])[0]
if run["status"] != "complete":
    sys.exit("FAIL: %s: run status %s: %s" % (op, run["status"], run.get("error")))
rows = run["model"]["rows"]
if not rows:
    sys.exit("FAIL: %s: no rows" % op)
bad = []
for r in rows:
    if r["P"] != P or r["op"] != op or r["predicted_us"] is None:
        bad.append("row %s" % r)
    elif abs(r["median_us"] - r["predicted_us"]) > 0.03 * r["predicted_us"]:
        bad.append("%s %s %d B: measured %.4f us, predicted %.4f us" % (op, r["algorithm"], r["bytes"],
                                                                         r["median_us"], r["predicted_us"]))
    elif not r["min_us"] * 0.999999 <= r["avg_us"] <= r["max_us"] * 1.000001 <= r["median_us"] * 1.000002:
        bad.append("%s %s %d B: min/avg/max over ranks %s" % (op, r["algorithm"], r["bytes"],
                                                              (r["min_us"], r["avg_us"], r["max_us"])))
if bad:
    sys.exit("FAIL: P = %d:\n  " % P + "\n  ".join(bad))
worst = max(abs(r["error"]) for r in rows)
print("ok: P = %d %s: %d rows (%s), worst error %.3g%%" %
      (P, op, len(rows), ",".join(sorted({r["algorithm"] for r in rows})), 100 * worst))
PY
    (($? == 0)) || FAILED=$((FAILED + 1))
    n=$((n + 1))
done
((FAILED == 0)) || fail "P = $P: $FAILED of $n runs had points beyond 3% of their prediction"
echo "ok: P = $P: $n runs, every point within 3% of its prediction"
