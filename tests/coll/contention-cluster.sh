#!/usr/bin/env bash
# contention-cluster.sh: MPI_Alltoall (Open MPI's own, pairwise at 768 KiB
# over 4 ranks) on 2 + 2 emulated nodes on two switches joined by one
# uplink at a NIC's rate (2:1; netns_cluster_switches, 100 Mbit/s), measured
# by the coll pattern and predicted from a LogGP fit between nodes 0 and 1
# with and without the contention term (--coll-contention: the max-rate fit
# of congestion into node 0 from nodes 2 and 3, across the uplink;
# --coll-switches 0,0,1,1). Prints both errors and every run's cpu_use.
# Asserts what holds on any machine (docs/testing.md): the term's rounds are
# the pairwise schedule's (1, 2, 1 messages across each way) and its delay is
# what the congestion fit's rates give them (B / min(R_N, c R_C) - b /
# min(R_N, R_C) in round 2); the measurement is within a factor of 2 of the
# network's least time (each round's busier uplink direction at the fitted
# R_N) and of the prediction with the term (tests/lib/bounds.py). The
# accuracy figures over several launches, with a one-switch control:
# bench/coll/contention.sh (bench/results/coll-contention.md).
source "$(dirname "$0")/common.sh"
coll_cluster_start
start=$SECONDS
rate=${NGX_TEST_CLUSTER_MBIT:-100}
export NETNS_MPI_TIMEOUT=120 NETNS_CLUSTER_BURST=4kb
netns_cluster_switches c 2 2 "${rate}mbit" "${rate}mbit" || fail "a 2 + 2 cluster on two switches"
mca=(-x NGX_MODULE_PATH -x NGX_PATTERN_PATH --mca btl_tcp_flags send,inplace,need-ack,need-csum)
mpi() {  # NP NAME ARGS...
    local np=$1 name=$2
    shift 2
    netns_cluster_mpirun c "$np" "${mca[@]}" -- "$NGX" -m mpi --timeout 30 -o "$SCRATCH/$name.json" "$@" \
        >"$SCRATCH/$name.txt" 2>&1 || { cat "$SCRATCH/$name.txt"; fail "the $name run"; }
}
mpi 2 fit -x loggp -s 32Ki,64Ki,96Ki,128Ki,192Ki,256Ki --loggp-n 8 -c 3 --warmup 1
NETNS_CLUSTER_NODES=0,2,3 mpi 3 congestion -x congestion --congestion-direction in -s 256Ki --congestion-window 8 -c 3
mpi 4 alltoall -x coll --coll-op alltoall --coll-algorithm library -s 768Ki -c 7 --warmup 1 \
    --coll-params "$SCRATCH/fit.json" --coll-extrapolate yes --coll-contention "$SCRATCH/congestion.json" \
    --coll-switches "$(netns_cluster_get c switches)"
echo "runs: $((SECONDS - start)) s"
python3 - "$SCRATCH" <<'PY' || exit 1
import os, sys
sys.path.insert(0, os.path.join(os.environ["NGX_SOURCE_ROOT"], "tests", "lib"))
import bounds, runs
work = sys.argv[1]
def run(name):
    r = runs.complete("%s/%s.json" % (work, name))
    print("%s cpu_use: %s" % (name, runs.cpu_use_line(r)))
    return r
run("fit")
mr = run("congestion")["model"]["congestion"]["maxrate"]
R_N = mr.get("R_N_MBps") or mr.get("R_C_MBps")
print("uplink: R_N %s MB/s, R_C %s MB/s" % (mr.get("R_N_MBps"), mr.get("R_C_MBps")))
a2a = run("alltoall")
row, fastest = a2a["model"]["rows"][0], a2a["results"][0]["min_us"]  # over repetitions
errors = []
c = row.get("contention")
if row.get("predicted_algorithm") != "pairwise" or not c:
    sys.exit("FAIL: no pairwise prediction with contention: %s" % row)
flows = [r["flows"] for r in c["rounds"]]
if flows != [[1, 1], [2, 2], [1, 1]]:
    errors.append("rounds' crossing messages %s, expected [[1, 1], [2, 2], [1, 1]]" % flows)
least = sum(max(r["bytes"]) / R_N for r in c["rounds"])
m, p, pc = row["median_us"], row["predicted_us"], row["predicted_contention_us"]
print("alltoall 768 KiB over 2 + 2 nodes: measured %.1f ms (fastest %.1f), LogGP %.1f ms (error %+.1f%%), "
      "with contention %.1f ms (error %+.1f%%); the uplink's least time %.1f ms" % (
          m / 1e3, fastest / 1e3, p / 1e3, 100 * row["error"], pc / 1e3, 100 * row["error_contention"], least / 1e3))
rate = lambda k: min(R_N, k * (mr.get("R_C_MBps") or float("inf")))
b = row["bytes"]
want = 2 * b / rate(2) - b / rate(1)
if abs(c["delay_us"] - want) > 1e-6 * want:
    errors.append("delay %.3f us, the congestion fit's rates give %.3f" % (c["delay_us"], want))
if not bounds.within_factor("alltoall against the uplink's least time (us)", m, least, 2):
    errors.append("measured %.0f us, the uplink's least time %.0f" % (m, least))
if not bounds.within_factor("alltoall against the prediction with contention (us)", m, pc, 2):
    errors.append("measured %.0f us, not within a factor of 2 of the prediction with contention %.0f" % (m, pc))
if errors:
    sys.exit("FAIL: " + "; ".join(errors))
print("ok: the contention term prices the shared uplink")
PY
rc=$?
echo "time: $((SECONDS - start)) s"
[[ $rc == 0 ]] || exit 1
echo PASS
