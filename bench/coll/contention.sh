#!/usr/bin/env bash
# bench/coll/contention.sh: MPI_Alltoall (Open MPI's own, coll pattern
# --coll-algorithm library) across a shared uplink, measured, and predicted
# with and without the contention term (--coll-contention,
# models/contention/contention.hpp), on an emulated cluster of K + K nodes
# on two switches (tests/net/netns.sh netns_cluster_switches, one rank per
# node), and the same sizes on K + K nodes on one switch as the control.
#
# Steps: a LogGP fit between nodes 0 and 1 (one switch, --loggp-exchange
# yes); congestion into node 0 from the K nodes of the other switch (its
# max-rate fit is the uplink's rate); then, per launch (--launches), the
# alltoall of every size on the two switches and on the one switch. The
# table: per launch and size, the median (slowest rank per repetition) and
# the fastest repetition, the LogGP prediction and its error, the
# prediction with contention and its error, the network's least time (each
# round's busiest uplink direction at R_N, or each rank's bytes at one
# NIC's rate) and each run's cpu_use (cpu_bound, the ranks' CPU and wall
# seconds). Open MPI 4.1 runs pairwise for blocks of 512 KiB..1 MiB (less
# than 1 MiB) at P <= 8, basic linear (not modeled) at others.
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib.sh"

usage() {
    cat <<'USAGE'
usage: bench/coll/contention.sh [options] [BUILD_DIR]

  BUILD_DIR              meson build directory with ngx (default ./build)
  -K, --per-switch K     nodes per switch (default 2: P = 4)
  --rate MBIT            NIC rate in Mbit/s (default 100); the uplink gets
                         K x MBIT / 2 (2:1)
  -s, --sizes LIST       alltoall blocks (default 512Ki,768Ki)
  -c, --count R          repetitions per size (default 11)
  --launches N           launches of the alltoall per topology (default 3)
  --idle                 ranks that sleep while they wait (libngx-idle.so from
                         BUILD_DIR/tools/idle) and NICs that never burst
                         (NETNS_CLUSTER_PEAK=1), as coll-cluster-netbound runs
  -o, --output FILE      the rows as JSON
  -h, --help             this help
USAGE
}

BUILD=./build K=2 RATE=100 SIZES=512Ki,768Ki COUNT=11 LAUNCHES=3 OUT="" IDLE=0
need_arg() { [[ $# -ge 2 && -n $2 ]] || { echo "coll/contention.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
    case $1 in
        -K|--per-switch) need_arg "$@"; K=$2; shift 2 ;;
        --rate) need_arg "$@"; RATE=$2; shift 2 ;;
        -s|--sizes) need_arg "$@"; SIZES=$2; shift 2 ;;
        -c|--count) need_arg "$@"; COUNT=$2; shift 2 ;;
        --launches) need_arg "$@"; LAUNCHES=$2; shift 2 ;;
        --idle) IDLE=1; shift ;;
        -o|--output) need_arg "$@"; OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "coll/contention.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) BUILD=$1; shift ;;
    esac
done
find_ngx coll/contention.sh "$BUILD"
require_uints coll/contention.sh K RATE COUNT LAUNCHES
((K >= 2 && K <= 4 && RATE >= 10 && COUNT >= 3 && LAUNCHES >= 1)) ||
    { echo "coll/contention.sh: 2..4 nodes per switch, at least 10 Mbit/s, 3 repetitions and 1 launch" >&2; exit 2; }
bench_netns_start coll/contention.sh
P=$((2 * K))
UPLINK=$((K * RATE / 2))
MCA=(-x NGX_MODULE_PATH -x NGX_PATTERN_PATH --mca btl_tcp_flags send,inplace,need-ack,need-csum)
if ((IDLE)); then
    idle_lib=$(cd "$BUILD" && pwd)/tools/idle/libngx-idle.so
    [[ -f $idle_lib ]] || { echo "coll/contention.sh: --idle: $idle_lib is not built" >&2; exit 2; }
    MCA+=(-x "LD_PRELOAD=$idle_lib")
    export NETNS_CLUSTER_PEAK=1
fi
start=$SECONDS

netns_cluster_switches two "$K" "$K" "${RATE}mbit" "${UPLINK}mbit" || exit 1
netns_cluster one "$P" "${RATE}mbit" || exit 1
SWITCHES=$(netns_cluster_get two switches)
mpi() {  # CLUSTER NP NAME ARGS...: one ngx run under mpirun
    local c=$1 np=$2 name=$3
    shift 3
    netns_cluster_mpirun "$c" "$np" "${MCA[@]}" -- "$NGX" -m mpi --timeout 120 -o "$WORK/$name.json" "$@" \
        > "$WORK/$name.log" 2>&1 || { echo "coll/contention.sh: $name failed: $(tail -5 "$WORK/$name.log")" >&2; exit 1; }
}
mpi two 2 fit -x loggp --loggp-exchange yes -s 16Ki,32Ki,64Ki,96Ki,128Ki,256Ki,512Ki -c 6 --warmup 1
echo "fit: $((SECONDS - start)) s" >&2
across=0
for ((i = 1; i <= K; i++)); do across+=",$((K + i - 1))"; done
NETNS_CLUSTER_NODES=$across mpi two $((K + 1)) congestion -x congestion --congestion-direction in -s 256Ki \
    --congestion-window 8 -c 5
echo "congestion: $((SECONDS - start)) s" >&2
A2A=(-x coll --coll-op alltoall --coll-algorithm library -s "$SIZES" -c "$COUNT" --warmup 1
     --coll-params "$WORK/fit.json" --coll-extrapolate yes --coll-contention "$WORK/congestion.json"
     --coll-switches "$SWITCHES")
for ((l = 1; l <= LAUNCHES; l++)); do
    mpi two "$P" "two-$l" "${A2A[@]}"
    mpi one "$P" "one-$l" "${A2A[@]}"
    echo "launch $l: $((SECONDS - start)) s" >&2
done

python3 - "$WORK" "$OUT" "$LOAD_START" "$(cut -d' ' -f1 /proc/loadavg)" "$RATE" "$UPLINK" "$K" "$LAUNCHES" \
    "$((SECONDS - start))" "$IDLE" <<'PY'
import json, os, sys
work, out, load0, load1, rate, uplink, K, launches, seconds, idle = sys.argv[1:]
K, launches = int(K), int(launches)
def run(name):
    d = json.load(open(os.path.join(work, name + ".json")))
    return d.get("runs", [d])[0]
cg = run("congestion")["model"]["congestion"]["maxrate"]
R_N = cg.get("R_N_MBps") or cg.get("R_C_MBps")
fit = [r for r in run("fit")["model"]["ranges"]]
nic = float(rate) / 8 * 1448 / 1514
print("alltoall over %d + %d nodes, NICs %s Mbit/s, uplink %s Mbit/s (2:1); one switch: the control; %s" %
      (K, K, rate, uplink, "ranks asleep while they wait, NICs that never burst (--idle)" if idle == "1" else "polling ranks"))
print("uplink fit (congestion into node 0 from the other switch): R_N %.3f MB/s, R_C %s MB/s, alpha %s us" % (
    R_N, cg.get("R_C_MBps"), cg.get("alpha_us")))
print("LogGP fit between nodes 0 and 1: " + "; ".join("%d..%d B: G %.5f us/B, L %.1f us, o %.1f us" % (
    r["from_bytes"], r["to_bytes"], r["G_us_per_byte"], r["L_us"], r["o_us"]) for r in fit))
head = "%-6s %6s %8s %10s %10s %10s %8s %10s %8s %10s %9s  %s" % (
    "switch", "launch", "bytes", "median_ms", "fastest_ms", "loggp_ms", "err_%", "content_ms", "err_c_%",
    "least_ms", "cpu_bound", "ranks' cpu_s/wall_s")
print(head)
rows = []
for l in range(1, launches + 1):
    for topo in ("two", "one"):
        r = run("%s-%d" % (topo, l))
        cpu = r["cpu_use"]
        fastest = {x["size_bytes"]: x["min_us"] for x in r["results"]}  # over repetitions (rows' min_us: over ranks)
        for row in r["model"]["rows"]:
            c = row.get("contention") or {}
            if topo == "two":  # the busiest uplink direction of each round at R_N
                least = sum(max(rd["bytes"]) / R_N for rd in c.get("rounds", []) if max(rd["bytes"]) > 0)
                least = max(least, (2 * K - 1) * row["bytes"] / nic)
            else:
                least = (2 * K - 1) * row["bytes"] / nic
            entry = {"switches": 2 if topo == "two" else 1, "launch": l, "bytes": row["bytes"],
                     "median_us": row["median_us"], "fastest_us": fastest[row["bytes"]], "predicted_us": row["predicted_us"],
                     "error": row["error"], "predicted_contention_us": row.get("predicted_contention_us"),
                     "error_contention": row.get("error_contention") if topo == "two" else None,
                     "least_us": least, "algorithm": row.get("predicted_algorithm"),
                     "cpu_bound": cpu["cpu_bound"], "max_waiting_share": cpu["max_waiting_share"],
                     "ranks_cpu_wall_s": [[x["cpu_s"], x["wall_s"]] for x in cpu["ranks"]]}
            rows.append(entry)
            f = lambda v, k=1e3: "-" if v is None else "%.1f" % (v / k)
            p = lambda v: "-" if v is None else "%+.1f" % (100 * v)
            print("%-6s %6d %8d %10s %10s %10s %8s %10s %8s %10s %9s  %s" % (
                topo, l, row["bytes"], f(row["median_us"]), f(entry["fastest_us"]), f(row["predicted_us"]), p(row["error"]),
                f(row.get("predicted_contention_us")) if topo == "two" else "-",
                p(entry["error_contention"]), f(least), cpu["cpu_bound"],
                " ".join("%.2f/%.2f" % (x["cpu_s"], x["wall_s"]) for x in cpu["ranks"])))
two = [r for r in rows if r["switches"] == 2 and r["error_contention"] is not None]
if two:
    worst = max(abs(r["error_contention"]) for r in two)
    print("two switches: |error| with the term at most %.1f%%, without at most %.1f%% (%d rows)" % (
        100 * worst, 100 * max(abs(r["error"]) for r in two), len(two)))
print("load average: start %s, end %s; %s s" % (load0, load1, seconds))
if out:
    json.dump({"schema": "ngx-bench-coll-contention/1", "rate_Mbit": int(rate), "uplink_Mbit": int(uplink),
               "per_switch": K, "uplink_fit": cg, "rows": rows, "load_average": [load0, load1]},
              open(out, "w"), indent=2)
    print("JSON: " + out)
PY
