#!/bin/bash
# -x loghssp on an emulated cluster (tests/net/netns.sh netns_cluster): two
# nodes, each a network namespace with its own host name and one NIC on a
# Linux bridge limited by tbf to RATE Mbit/s; mpirun -np 4 puts ranks 0 and 2
# on node 0, ranks 1 and 3 on node 1 (rank r on node r mod 2), the mpi
# module over the tcp BTL. No --host-of: the ranks' own host names tell the
# tiers, so the run must pick ranks 2 and 0 (one node) and 1 and 0 (two
# nodes; driver first). Checked: loghssp-check.py (stated errors, ngx predict, ngx fit
# --loghssp on the same data), and the tiers differ as the cluster is built:
# the inter-node gap per byte (through the NIC's tbf; sizes from 64 KiB on,
# above tbf's burst, so that the median slope is the rate's) is more than 5
# times the intra-node one (loopback inside the node), and within a factor
# of two of 1 / the TCP goodput of RATE (real-time bounds, tests/lib/bounds.py).
# Skipped without root, tbf or mpi.
source "$(dirname "$0")/common.sh"
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
netns_require tbf mpi
netns_init
export NGX_MODULE_PATH NGX_PATTERN_PATH
RATE=${NGX_TEST_CLUSTER_MBIT:-200}
netns_cluster c 2 "${RATE}mbit" || fail "building the cluster"
for attempt in 1 2; do
    NETNS_MPI_TIMEOUT=120 netns_cluster_mpirun c 4 -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -- \
        "$NGX" -m mpi -x loghssp -s 1,64Ki,128Ki,256Ki -c 40 --warmup 5 -o "$NETNS_DIR/run.json" \
        >"$NETNS_DIR/out.txt" 2>&1 || { cat "$NETNS_DIR/out.txt"; fail "the run under mpirun failed"; }
    sed -n '/^# LoGH/,$p' "$NETNS_DIR/out.txt"
    python3 "$(dirname "$0")/loghssp-check.py" "$NETNS_DIR/run.json" "$NGX" "$NETNS_DIR" --pairs 2,0,1,0 ||
        fail "the run's tiers do not hold"
    python3 - "$NETNS_DIR/run.json" "$RATE" "$NGX_SOURCE_ROOT/tests/lib" <<'PY' && exit 0
import json, sys
sys.path.insert(0, sys.argv[3])
import bounds
m = json.load(open(sys.argv[1]))["model"]
rate = float(sys.argv[2])
goodput = rate / 8 * 1448 / 1514  # MB/s of TCP payload
S, G = m["intra"]["S_us_per_byte"], m["inter"]["G_us_per_byte"]
print("S %.6f us/B (loopback), G %.6f us/B (tbf %g Mbit/s)" % (S, G, rate))
ok = [bounds.at_least("inter-node G over 5 x intra-node S (us/B)", G, 5 * S),
      bounds.within_factor("inter-node G against 1/goodput (us/B)", G, 1 / goodput, 2)]
sys.exit(0 if all(ok) else "the tiers are not the cluster's: G %.6f, S %.6f us/B" % (G, S))
PY
    echo "attempt $attempt: the gaps per byte miss (a rank descheduled on shared cores spoils a size); again"
done
fail "the inter-node G does not show the NIC's rate (2 attempts)"
