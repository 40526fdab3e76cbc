#!/usr/bin/env bash
# bench/coll/repetitions.sh: why the repetitions of one collective on an
# emulated cluster split in two. Runs MPI's own collective (coll pattern,
# --coll-algorithm library) R times per condition on a fresh emulated
# cluster (tests/net/netns.sh: N namespaces on a bridge, tbf on every NIC)
# and prints, per condition, every repetition's time (the slowest rank's),
# their min, median and max, and the TCP counters of all nodes over the run
# (retransmissions, timeouts, loss probes; nstat) and the switch's tbf drops,
# so that a candidate cause can be tested by switching it off (root).
#
# Conditions (--conditions, comma-separated; each a name from this list):
#   base          the cluster as tests/coll/mpi-cluster.sh builds it
#   no-ssai       net.ipv4.tcp_slow_start_after_idle=0 on every node
#   short-queue   tbf latency 20 ms instead of 200 ms (a queue of 20 ms)
#   pinned        ranks pinned round-robin to the CPUs (ngx --cpus)
#   slow          the NICs at a tenth of the rate: a delay of fixed length
#                 shrinks against the transfer, one that scales does not
#   idle          ranks that sleep while they wait (libngx-idle.so preloaded:
#                 tools/idle/ngx_idle.c) instead of yielding in a loop
#   no-burst      NICs with a peak rate 1% above the rate (NETNS_CLUSTER_PEAK)
#   quickack      no delayed ACKs: every node's route to the cluster with
#                 `quickack 1` (TCP acknowledges every segment at once)
#   tsq           TCP small queues at 16 KiB per socket on every node
#                 (net.ipv4.tcp_limit_output_bytes=16384; 4 MiB here before): a
#                 socket's data waits in its own buffer, not in the NIC's tbf
#                 queue, so the ACKs its segments carry back are not delayed
#                 behind megabytes of this node's earlier data
#   bigwin        receive buffers of 4 MiB from a connection's start on every
#                 node (net.ipv4.tcp_rmem="4096 4194304 4194304"; before: 128 KiB,
#                 grown by autotuning), so that no receive window holds a send back
#   eager         the tcp BTL sends every message of up to 4 MiB eagerly, in
#                 one fragment (btl_tcp_eager_limit, btl_tcp_rndv_eager_limit
#                 and btl_tcp_max_send_size 4 MiB): no rendezvous handshake and
#                 no pipeline of 128 KiB fragments
# Several joined by '+' apply together (e.g. idle+no-burst+quickack).
# Each condition also prints the ranks' CPU use (cpu_use: the largest CPU
# share and wait for a CPU of a rank).
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib.sh"

usage() {
    cat <<'USAGE'
usage: bench/coll/repetitions.sh [options] [BUILD_DIR]

  BUILD_DIR           meson build directory with ngx (default ./build)
  -N, --nodes N       nodes, one rank each (default 8)
  --rate MBIT         NIC rate in Mbit/s (default 50)
  --op OP             the collective (default allreduce)
  -s, --size S        message size (default 512Ki)
  -c, --count R       repetitions per condition (default 20)
  --conditions LIST   of base, no-ssai, short-queue, pinned, slow, idle, no-burst,
                      quickack, tsq, bigwin, eager, or several joined by + (default: the first five)
  -o, --output FILE   the results as JSON
  -h, --help          this help
USAGE
}

BUILD=./build NODES=8 RATE=50 OP=allreduce SIZE=512Ki COUNT=20 CONDITIONS=base,no-ssai,short-queue,pinned,slow OUT=""
need_arg() { [[ $# -ge 2 && -n $2 ]] || { echo "coll/repetitions.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
    case $1 in
        -N|--nodes) need_arg "$@"; NODES=$2; shift 2 ;;
        --rate) need_arg "$@"; RATE=$2; shift 2 ;;
        --op) need_arg "$@"; OP=$2; shift 2 ;;
        -s|--size) need_arg "$@"; SIZE=$2; shift 2 ;;
        -c|--count) need_arg "$@"; COUNT=$2; shift 2 ;;
        --conditions) need_arg "$@"; CONDITIONS=$2; shift 2 ;;
        -o|--output) need_arg "$@"; OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "coll/repetitions.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) BUILD=$1; shift ;;
    esac
done
find_ngx coll/repetitions.sh "$BUILD"
require_uints coll/repetitions.sh NODES RATE COUNT
((NODES >= 2 && RATE >= 10)) || { echo "coll/repetitions.sh: at least 2 nodes and 10 Mbit/s" >&2; exit 2; }
IFS=, read -r -a condition_list <<< "$CONDITIONS"
for c in "${condition_list[@]}"; do
    [[ $c =~ ^(base|no-ssai|short-queue|pinned|slow|idle|no-burst|quickack|tsq|bigwin|eager)(\+(no-ssai|short-queue|pinned|slow|idle|no-burst|quickack|tsq|bigwin|eager))*$ ]] || { echo "coll/repetitions.sh: unknown condition '$c'" >&2; exit 2; }
done
bench_netns_start coll/repetitions.sh

# on_nodes CLUSTER CMD...: CMD in every node's namespace.
on_nodes() {
    local c=$1 i
    shift
    for ((i = 0; i < NODES; i++)); do ip netns exec "$(netns_cluster_get "$c" "ns_$i")" "$@"; done
}

# run_condition NAME: a cluster of its own, the collective, the counters.
run_condition() {
    local name=$1 c=k${#done_conditions[@]} rate=$RATE cpus=() i list="" preload=() peak=0
    has() { [[ +$name+ == *+$1+* ]]; }
    has slow && rate=$((RATE / 10))
    has idle && preload=(-x "LD_PRELOAD=$(dirname "$NGX")/tools/idle/libngx-idle.so")
    has no-burst && peak=1
    has eager && preload+=(--mca btl_tcp_eager_limit 4194304 --mca btl_tcp_rndv_eager_limit 4194304
        --mca btl_tcp_max_send_size 4194304)
    if has short-queue; then
        NETNS_CLUSTER_LATENCY=20ms netns_cluster "$c" "$NODES" "${rate}mbit" || return 1
    else
        NETNS_CLUSTER_PEAK=$peak netns_cluster "$c" "$NODES" "${rate}mbit" || return 1
    fi
    has no-ssai && on_nodes "$c" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
    has tsq && on_nodes "$c" sysctl -qw net.ipv4.tcp_limit_output_bytes=16384
    has bigwin && on_nodes "$c" sysctl -qw net.ipv4.tcp_rmem="4096 4194304 4194304"
    if has quickack; then
        for ((i = 0; i < NODES; i++)); do
            ip -n "$(netns_cluster_get "$c" "ns_$i")" route replace "$(netns_cluster_get "$c" subnet)" dev eth0 quickack 1 ||
                return 1
        done
    fi
    if has pinned; then
        for ((i = 0; i < NODES; i++)); do list+="${list:+,}$((i % $(nproc)))"; done
        cpus=(--cpus "$list")
    fi
    on_nodes "$c" nstat -n > /dev/null 2>&1
    netns_cluster_mpirun "$c" "$NODES" -x NGX_MODULE_PATH -x NGX_PATTERN_PATH "${preload[@]}" \
        --mca btl_tcp_flags send,inplace,need-ack,need-csum -- \
        "$NGX" -m mpi "${cpus[@]}" -x coll --coll-op "$OP" --coll-algorithm library -s "$SIZE" -c "$COUNT" \
        --warmup 1 --timeout 300 --max-rel-ci off --raw -o "$WORK/$name.json" > "$WORK/$name.log" 2>&1 ||
        { echo "coll/repetitions.sh: $name: the run failed: $(tail -3 "$WORK/$name.log")" >&2; return 1; }
    on_nodes "$c" nstat 2> /dev/null | awk '$1 ~ /Retrans|Timeouts|LossProbes|FastRetrans|DelayedACK/ { n[$1] += $2 }
        END { for (k in n) print k, n[k] }' > "$WORK/$name.tcp"
    for ((i = 0; i < NODES; i++)); do
        tc -n "$(netns_cluster_get "$c" switch)" -s qdisc show dev "p$i"
    done | awk '/dropped/ { sub(",", "", $7); d += $7 } END { print "SwitchTbfDrops", d + 0 }' >> "$WORK/$name.tcp"
    done_conditions+=("$name")
}

done_conditions=()
for name in "${condition_list[@]}"; do
    run_condition "$name"
    echo "condition $name done" >&2
done

python3 - "$WORK" "$OUT" "$LOAD_START" "$(cut -d' ' -f1 /proc/loadavg)" "$RATE" "$NODES" "$OP" "${done_conditions[@]}" <<'PY'
import json, os, statistics, sys
work, out, load0, load1, rate, nodes, op, *names = sys.argv[1:]
doc = {"schema": "ngx-bench-coll-repetitions/1", "op": op, "nodes": int(nodes), "rate_Mbit": int(rate),
       "load_average_start": load0, "load_average_end": load1, "conditions": {}}
print(f"\n{op} on {nodes} nodes at {rate} Mbit/s (slow: {int(rate) // 10}), every repetition in ms (slowest rank)")
for name in names:
    run = json.load(open(os.path.join(work, name + ".json")))
    row = run["results"][0]
    reps = [x / 1000 for x in row.get("raw_us") or row.get("samples_us") or []]
    tcp = dict(line.split() for line in open(os.path.join(work, name + ".tcp")) if line.strip())
    entry = {"size_bytes": row["size_bytes"], "repetitions_ms": reps, "min_ms": row["min_us"] / 1000,
             "median_ms": row["median_us"] / 1000, "max_ms": row["max_us"] / 1000,
             "spread": row["max_us"] / row["min_us"], "tcp": {k: int(v) for k, v in tcp.items()},
             "cpu_bound": run.get("cpu_use", {}).get("cpu_bound"),
             "max_cpu_share": max(k["cpu_share"] for k in run["cpu_use"]["ranks"]),
             "max_waiting_share": max(k["waiting_share"] for k in run["cpu_use"]["ranks"])}
    doc["conditions"][name] = entry
    print(f"  {name:<12} min {entry['min_ms']:8.1f}  median {entry['median_ms']:8.1f}  max {entry['max_ms']:8.1f}"
          f"  max/min {entry['spread']:.2f}  " + " ".join(f"{k}={v}" for k, v in sorted(entry["tcp"].items())))
    print(f"               CPU: a rank on a CPU up to {100 * entry['max_cpu_share']:.0f}% of the run, waiting for one "
          f"up to {100 * entry['max_waiting_share']:.0f}%; verdict: {'CPU-bound' if entry['cpu_bound'] else 'the CPUs kept up'}")
    print("               " + " ".join(f"{x:.0f}" for x in reps))
print(f"load average: start {load0}, end {load1}")
if out:
    json.dump(doc, open(out, "w"), indent=2)
    print(f"JSON: {out}")
PY
