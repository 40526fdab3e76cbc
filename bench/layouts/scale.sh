#!/bin/bash
# bench/layouts/scale.sh: how the time of an all-pairs map grows with the
# number of nodes, on emulated clusters of N = 2..16 network namespaces
# (tests/net/netns.sh netns_cluster: one NIC per node on a bridge, tbf on
# each), one rank per node under mpirun, `-x allpairs` over tcp. Per N: the
# shift rounds (P - 1), the pattern's own time (wall_seconds of the run),
# the launch's wall time, and the ranks' peak resident memory (largest and
# that of rank 0, which alone holds the P x P matrices). Then the cost per
# round at each N and the projection to 1024 nodes (1023 rounds) from the
# per-round cost of the largest N with at most two ranks per CPU (beyond
# that the emulation's ranks wait for CPUs, a real cluster's do not). Needs
# root.
#
#     bench/layouts/scale.sh [BUILD_DIR] [-n "2 4 8 16"] [--rate MBIT] [-c COUNT] [-s SIZES] [-o FILE.json]
set -u
build=./build nodes="2 4 8 16" rate=200 count=10 sizes=8,64Ki out=""
while [[ $# -gt 0 ]]; do
    case $1 in
    -n) nodes=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    -c) count=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "scale.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
for n in $nodes; do
    [[ $n =~ ^[0-9]+$ && $n -ge 2 && $n -le 64 ]] || { echo "scale.sh: -n wants node counts in 2..64, not '$n'" >&2; exit 2; }
done
[[ $rate =~ ^[1-9][0-9]*$ ]] || { echo "scale.sh: --rate wants Mbit/s as a whole number, not '$rate'" >&2; exit 2; }
ngx=$(cd "$build" 2>/dev/null && pwd)/ngx
[[ -x $ngx ]] || { echo "scale.sh: $build/ngx not found (meson setup $build && ninja -C $build)" >&2; exit 2; }
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$(dirname "$ngx")/modules}
export NGX_PATTERN_PATH=${NGX_PATTERN_PATH:-$(dirname "$ngx")/patterns}
source "$(dirname "$0")/../../tests/net/netns.sh"
netns_require tbf mpi
NETNS_MPI_TIMEOUT=${NETNS_MPI_TIMEOUT:-600}
work=$(mktemp -d)
trap 'netns_cleanup; rm -rf "$work"' EXIT
echo "# allpairs over tcp on emulated clusters (${rate} Mbit/s NICs, one rank per node), -s $sizes -c $count;" \
     "$(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %7s %10s %10s %12s %12s\n' nodes rounds pattern_s launch_s peak_rss_MB rank0_rss_MB
rows=()
for n in $nodes; do
    netns_init
    netns_cluster "c$n" "$n" "${rate}mbit" || exit 1
    json=$work/n$n.json
    start=$(date +%s.%N)
    # Each rank reports its peak resident set (VmHWM) to a file of its own.
    netns_cluster_mpirun "c$n" "$n" -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -- sh -c \
        "$ngx -m tcp -x allpairs -s $sizes -c $count --warmup 2 -o $json --timeout 60 >$work/out-\$OMPI_COMM_WORLD_RANK.txt 2>&1 & pid=\$!;
         peak=0; while kill -0 \$pid 2>/dev/null; do
           v=\$(awk '/VmHWM/ {print \$2}' /proc/\$pid/status 2>/dev/null); [ -n \"\$v\" ] && peak=\$v; sleep 0.05; done;
         wait \$pid; rc=\$?; echo \$peak > $work/rss-\$OMPI_COMM_WORLD_RANK; exit \$rc" ||
        { cat "$work"/out-*.txt; echo "scale.sh: N = $n failed" >&2; exit 1; }
    end=$(date +%s.%N)
    row=$(python3 - "$json" "$n" "$start" "$end" "$work" <<'PY'
import glob, json, sys
path, n, start, end, work = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
d = json.load(open(path))
run = d.get("runs", [d])[0]
a = run["model"]["allpairs"]
assert run["status"] == "complete" and a["rounds_done"] == n - 1, (run["status"], a["rounds_done"])
rss = {int(f.rsplit("-", 1)[1]): int(open(f).read().split()[0] or 0) / 1024 for f in glob.glob(work + "/rss-*")}
print(n, n - 1, run["wall_seconds"], end - start, max(rss.values()), rss.get(0, 0))
PY
) || exit 1
    rm -f "$work"/rss-*
    read -r N R T W M M0 <<<"$row"
    printf '%6d %7d %10.2f %10.2f %12.1f %12.1f\n' "$N" "$R" "$T" "$W" "$M" "$M0"
    rows+=("$row")
    netns_cleanup
done
printf '%s\n' "${rows[@]}" >"$work/rows.txt"
python3 - "$out" "$rate" "$sizes" "$count" "$work/rows.txt" "$(nproc)" <<'PY'
import json, sys
out, rate, sizes, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
rows = [list(map(float, line.split())) for line in open(sys.argv[5]) if line.strip()]
cpus = int(sys.argv[6])
# The per-round cost at each N; it holds for any N while each rank has a CPU
# of its own (a real cluster), so the projection takes the N whose ranks
# share the CPUs least, the largest N with at most 2 ranks per CPU.
per_round = [(r[0], r[2] / r[1]) for r in rows]
for nodes, cost in per_round:
    print("# N = %2d: %.3f s per round -> 1024 nodes: %.0f s" % (nodes, cost, 1023 * cost))
fair = [c for n, c in per_round if n <= 2 * cpus] or [per_round[0][1]]
cost = fair[-1]
proj = 1023 * cost
print("# projection to 1024 nodes (1023 rounds, the per-round cost of N = %d, %d ranks on %d CPUs): %.0f s = %.1f min;"
      " the P x P matrices live on rank 0 only (2 x 1024^2 doubles = 16 MiB); every rank holds the round plan,"
      " P (P - 1) rank pairs (8 MB at 1024)"
      % ([n for n, c in per_round if c == cost][0], [n for n, c in per_round if c == cost][0], cpus, proj, proj / 60))
if out:
    json.dump({"rate_mbit": rate, "sizes": sizes, "count": count, "cpus": cpus,
               "rows": [dict(zip(["nodes", "rounds", "pattern_s", "launch_s", "peak_rss_MB", "rank0_rss_MB"], r)) for r in rows],
               "per_round_s": {str(int(n)): c for n, c in per_round}, "projected_1024_s": proj},
              open(out, "w"), indent=1)
PY
