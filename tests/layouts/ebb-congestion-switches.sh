#!/usr/bin/env bash
# ebb and congestion on an emulated cluster on two switches (netns.sh's
# netns_cluster_switches): 2 + 2 nodes, NICs at R (40 Mbit/s), one uplink
# at R each way (2:1 oversubscribed), one rank per node over MPI. Real-time
# physical bounds, not accuracy (tests/lib/bounds.py: factors of 2 and
# orderings):
# - ebb, 8 random bisections: a flow of a direction whose two flows both
#   cross the uplink the same way gets R / 2, a flow that stays inside a
#   switch R (each within a factor of 2); every flow inside is faster than
#   every flow sharing the uplink; both kinds occur.
# - congestion into node 0 from nodes 2 and 3 (both across the uplink,
#   NETNS_CLUSTER_NODES=0,2,3): the two flows of N = 2 together get R, each
#   R / 2 (factors of 2) and less than one alone; the max-rate fit's R_N,
#   what --coll-contention prices the uplink with, is R within a factor of 2.
# Every run's cpu_use record is printed (ranks' CPU and wall time, cpu_bound).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_ngx
need_tool python3
netns_start tbf mpi
export NGX_MODULE_PATH NGX_PATTERN_PATH NETNS_CLUSTER_BURST=4kb
start=$SECONDS
RATE=${NGX_TEST_CLUSTER_MBIT:-40}
netns_cluster_switches c 2 2 "${RATE}mbit" "${RATE}mbit" || fail "a 2 + 2 cluster on two switches"
run() {  # NAME RANKS ARGS...: an MPI run over the cluster
    local name=$1 np=$2
    shift 2
    netns_cluster_mpirun c "$np" -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -- \
        "$NGX" -m mpi -s 64Ki -c 3 --timeout 30 -o "$NETNS_DIR/$name.json" "$@" >"$NETNS_DIR/$name.txt" 2>&1 ||
        { cat "$NETNS_DIR/$name.txt"; fail "the $name run failed"; }
}
run ebb 4 -x ebb --ebb-bisections 8 --ebb-window 8
NETNS_CLUSTER_NODES=0,2,3 run congestion 3 -x congestion --congestion-direction in --congestion-window 8
echo "runs: $((SECONDS - start)) s"
python3 - "$NETNS_DIR" "$RATE" "$(netns_cluster_get c switches)" <<'PY' || exit 1
import os, sys
sys.path.insert(0, os.path.join(os.environ["NGX_SOURCE_ROOT"], "tests", "lib"))
import bounds, runs
work, rate, switches = sys.argv[1], float(sys.argv[2]), [int(s) for s in sys.argv[3].split(",")]
R = rate / 8 * 1448 / 1514  # MB/s of TCP payload at the tbf rate
errors = []
def load(name):
    run = runs.complete("%s/%s.json" % (work, name))
    print("%s cpu_use: %s" % (name, runs.cpu_use_line(run)))
    return run["model"]
ebb = load("ebb")["ebb"]
shared, inside = [], []
for b in ebb["per_bisection"]:
    for d in b["directions"]:
        flows = d["flows"]
        ways = [(switches[f["from"]], switches[f["to"]]) for f in flows]
        label = " ".join("%d->%d %.2f" % (f["from"], f["to"], f["bandwidth_MBps"]) for f in flows)
        if all(a == b for a, b in ways):
            inside += [f["bandwidth_MBps"] for f in flows]
            print("inside the switches: %s MB/s" % label)
        elif all(a != b for a, b in ways) and len(set(ways)) == 1:
            shared += [f["bandwidth_MBps"] for f in flows]
            print("across the uplink, one way: %s MB/s (uplink %.2f)" % (label, R))
if not shared or not inside:
    errors.append("8 bisections without both kinds: %d flows sharing the uplink, %d inside" % (len(shared), len(inside)))
else:
    for bw in shared:
        if not bounds.within_factor("ebb flow sharing the uplink (MB/s)", bw, R / 2, 2):
            errors.append("a flow sharing the uplink got %.2f MB/s" % bw)
    for bw in inside:
        if not bounds.within_factor("ebb flow inside a switch (MB/s)", bw, R, 2):
            errors.append("a flow inside a switch got %.2f MB/s" % bw)
    if not bounds.at_least("slowest ebb flow inside a switch over the fastest sharing the uplink", min(inside), max(shared)):
        errors.append("a flow sharing the uplink was not slower than every flow inside a switch")
cg = load("congestion")["congestion"]
one = [p for p in cg["per_flows"] if p["flows"] == 1][0]
two = [p for p in cg["per_flows"] if p["flows"] == 2][0]
print("congestion into node 0 from nodes 2 and 3: alone %.2f MB/s, together %s MB/s, aggregate %.2f (uplink %.2f)" % (
    one["aggregate_MBps"], ["%.2f" % f for f in two["flow_MBps"]], two["aggregate_MBps"], R))
if not bounds.within_factor("congestion N = 2 aggregate across the uplink (MB/s)", two["aggregate_MBps"], R, 2):
    errors.append("N = 2 across the uplink: aggregate %.2f MB/s" % two["aggregate_MBps"])
for bw in two["flow_MBps"]:
    if not bounds.within_factor("congestion N = 2 flow (MB/s)", bw, R / 2, 2):
        errors.append("N = 2 across the uplink: a flow got %.2f MB/s" % bw)
if not bounds.at_least("congestion: one flow alone over each of two sharing the uplink", one["aggregate_MBps"],
                       max(two["flow_MBps"])):
    errors.append("a flow sharing the uplink was not slower than one alone")
rn = cg["maxrate"].get("R_N_MBps")
print("max-rate across the uplink: R_N %s MB/s, R_C %s MB/s" % (rn, cg["maxrate"].get("R_C_MBps")))
if rn is None or not bounds.within_factor("max-rate R_N across the uplink (MB/s)", rn, R, 2):
    errors.append("the max-rate fit's R_N %s is not the uplink's %.2f MB/s within a factor of 2" % (rn, R))
if errors:
    sys.exit("FAIL: " + "; ".join(errors))
print("ok: ebb and congestion see the shared uplink")
PY
echo "time: $((SECONDS - start)) s"
echo PASS
