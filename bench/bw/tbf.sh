#!/usr/bin/env bash
# bench/bw/tbf.sh: the bw pattern's large-message bandwidth over a link of
# known rate, one way and both ways, against the rate (root).
#
# Two network namespaces joined by a veth pair, a token bucket (tbf) of RATE
# on both ends, MTU M. Per rate and round, in an order rotated each round:
#   tcp-uni   ngx --listen / --connect -m tcp -x bw (one way)
#   mpi-uni   mpirun across the namespaces (tcp BTL), ngx -m mpi -x bw, the
#             ranks pinned to CPUs 0 and 1 (unpinned busy-polling ranks may
#             share one CPU and set the time themselves)
#   mpi-bi    the same with --bw-direction bi (both ways at once: the tcp
#             module's calls block, so both ways runs over mpi)
#   mpi-bi-put  mpi-bi with the tcp BTL's default flags, which include put:
#             two large messages crossing on one connection then take turns
#             (bench/results/coll-cluster.md), so both ways together get about
#             one rate; every other mpi mode runs with
#             --mca btl_tcp_flags send,inplace,need-ack,need-csum
# Each run gives the median window's bandwidth per size (bandwidth_MBps, 10^6
# bytes of payload per second, both directions together with bi, as
# osu_bibw); the table divides it by the rate, and by twice the rate for
# bi (both ends have their own tbf: the link is full duplex). tbf counts every byte of a
# frame: with M-byte frames the payload can reach at most
#   rate x (M - 52) / (M + 14)
# (IPv4 20, TCP 20 + 12 of timestamps; Ethernet's 14), 99.3% of the rate at
# M = 9000, 95.6% at 1500. The table gives each figure against the rate and
# against that payload ceiling, the median over the rounds with its 95%
# interval (Student t over the rounds); goal: within 3% of the rate.
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
source "$HERE/../lib.sh"

usage() {
    cat <<'USAGE'
usage: bench/bw/tbf.sh [options] [BUILD_DIR]

  BUILD_DIR          meson build directory with ngx (default ./build)
  --rates LIST       tbf rates in Mbit/s, comma-separated (default 100,400)
  -s, --sizes LIST   message sizes (ngx -s syntax, default 1Mi,4Mi)
  -r, --rounds R     rounds (default 5)
  -W, --window W     --bw-window (default 8)
  -c, --count N      windows per size and run (default 5)
  --mtu M            the veth pair's MTU (default 9000)
  --burst B          the bucket in bytes (default: two frames, at least 4096)
  --modes LIST       of tcp-uni, mpi-uni, mpi-bi, mpi-bi-put (default all four)
  -o, --output FILE  the results as JSON
  -l, --logs DIR     keep every run's output in DIR
  -h, --help         this help
USAGE
}

BUILD=./build RATES=100,400 SIZES=1Mi,4Mi ROUNDS=5 WINDOW=8 COUNT=5 MTU=9000 BURST="" MODES=tcp-uni,mpi-uni,mpi-bi,mpi-bi-put
OUT="" LOGDIR=""
need_arg() { [[ $# -ge 2 && -n $2 ]] || { echo "bw/tbf.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --rates) need_arg "$@"; RATES=$2; shift 2 ;;
        -s|--sizes) need_arg "$@"; SIZES=$2; shift 2 ;;
        -r|--rounds) need_arg "$@"; ROUNDS=$2; shift 2 ;;
        -W|--window) need_arg "$@"; WINDOW=$2; shift 2 ;;
        -c|--count) need_arg "$@"; COUNT=$2; shift 2 ;;
        --mtu) need_arg "$@"; MTU=$2; shift 2 ;;
        --burst) need_arg "$@"; BURST=$2; shift 2 ;;
        --modes) need_arg "$@"; MODES=$2; shift 2 ;;
        -o|--output) need_arg "$@"; OUT=$2; shift 2 ;;
        -l|--logs) need_arg "$@"; LOGDIR=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "bw/tbf.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) BUILD=$1; shift ;;
    esac
done
find_ngx bw/tbf.sh "$BUILD"
require_uints bw/tbf.sh ROUNDS WINDOW COUNT MTU
[[ -z $BURST ]] && BURST=$((2 * (MTU + 14) > 4096 ? 2 * (MTU + 14) : 4096))
is_uint "$BURST" || { echo "bw/tbf.sh: --burst must be a whole number of bytes" >&2; exit 2; }
IFS=, read -r -a rate_list <<< "$RATES"
IFS=, read -r -a mode_list <<< "$MODES"
for m in "${mode_list[@]}"; do
    [[ $m == tcp-uni || $m == mpi-uni || $m == mpi-bi || $m == mpi-bi-put ]] ||
        { echo "bw/tbf.sh: unknown mode '$m' (tcp-uni, mpi-uni, mpi-bi, mpi-bi-put)" >&2; exit 2; }
done
for r in "${rate_list[@]}"; do is_uint "$r" || { echo "bw/tbf.sh: rate '$r' must be whole Mbit/s" >&2; exit 2; }; done
[[ $(id -u) == 0 ]] || { echo "bw/tbf.sh: network namespaces need root" >&2; exit 2; }

WORK=${LOGDIR:-$(mktemp -d)}
mkdir -p "$WORK"
SAMPLES=$WORK/samples.tsv
: > "$SAMPLES"
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$(dirname "$NGX")/modules}
export NGX_PATTERN_PATH=${NGX_PATTERN_PATH:-$(dirname "$NGX")/patterns}
NETNS_NO_TRAP=1
source "$ROOT/tests/net/netns.sh"
trap 'netns_cleanup; [[ -z $LOGDIR ]] && rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
BW=(-x bw -s "$SIZES" --bw-window "$WINDOW" -c "$COUNT" --warmup 1 --max-rel-ci off --timeout 60)

# record_rows MODE RATE ROUND RC JSON: one sample per size (bandwidth_MBps).
record_rows() {
    local mode=$1 rate=$2 rnd=$3 rc=$4 json=$5
    if [[ $rc != 0 || ! -s $json ]]; then
        echo -e "$mode\t$rate\t$rnd\tNA\tNA\tfailed (exit $rc)" >> "$SAMPLES"
        return
    fi
    python3 - "$json" "$mode" "$rate" "$rnd" >> "$SAMPLES" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
cpu = doc.get("cpu_use", {}).get("cpu_bound")
for r in doc["results"]:
    bw = r.get("bandwidth_MBps")
    print(f"{sys.argv[2]}\t{sys.argv[3]}\t{sys.argv[4]}\t{r['size_bytes']}\t{bw if bw is not None else 'NA'}\t"
          f"cpu_bound={cpu}")
PY
}

run_tcp_uni() { # PAIR RATE ROUND
    local a b ip tag="tcp-uni_$2_r$3" port rc srv
    a=$(netns_get "$1" ns_a) b=$(netns_get "$1" ns_b) ip=$(netns_get "$1" ip_a)
    port=$((7500 + $3))
    netns_bg "$a" "$WORK/$tag.server.log" "$NGX" --listen "$ip:$port" --accept-timeout 30 --timeout 60
    srv=$NETNS_BG_PID
    ip netns exec "$b" timeout -k 5 300 "$NGX" --connect "$ip:$port" -m tcp "${BW[@]}" \
        -o "$WORK/$tag.json" > "$WORK/$tag.log" 2>&1 < /dev/null
    rc=$?
    netns_wait_bg "$srv" 30 > /dev/null 2>&1
    record_rows tcp-uni "$2" "$3" "$rc" "$WORK/$tag.json"
}

NO_PUT=(--mca btl_tcp_flags send,inplace,need-ack,need-csum)
run_mpi() { # PAIR RATE ROUND MODE
    local tag="$4_$2_r$3" rc direction=${4#mpi-} flags=("${NO_PUT[@]}")
    direction=${direction%-put}
    [[ $4 == *-put ]] && flags=()
    NETNS_MPI_TIMEOUT=300 netns_mpirun "$1" -x NGX_MODULE_PATH -x NGX_PATTERN_PATH "${flags[@]}" -- \
        "$NGX" -m mpi --cpus 0,1 "${BW[@]}" --bw-direction "$direction" -o "$WORK/$tag.json" > "$WORK/$tag.log" 2>&1 < /dev/null
    rc=$?
    record_rows "$4" "$2" "$3" "$rc" "$WORK/$tag.json"
}

netns_require tbf
netns_init || exit 1
for rate in "${rate_list[@]}"; do
    pair=r$rate
    netns_veth_pair "$pair" || { echo "bw/tbf.sh: veth pair failed" >&2; exit 1; }
    netns_mtu "$pair" "$MTU" || { echo "bw/tbf.sh: MTU $MTU failed" >&2; exit 1; }
    netns_tbf "$pair" "${rate}mbit" "$BURST" 50ms || { echo "bw/tbf.sh: tbf failed" >&2; exit 1; }
    for ((r = 1; r <= ROUNDS; r++)); do
        for ((k = 0; k < ${#mode_list[@]}; k++)); do
            m=${mode_list[$(((k + r - 1) % ${#mode_list[@]}))]}
            case $m in
                tcp-uni) run_tcp_uni "$pair" "$rate" "$r" ;;
                mpi-*) run_mpi "$pair" "$rate" "$r" "$m" ;;
            esac
        done
        echo "rate $rate Mbit/s: round $r of $ROUNDS done" >&2
    done
done
LOAD_END=$(cut -d' ' -f1 /proc/loadavg)

python3 - "$SAMPLES" "$MTU" "$BURST" "$LOAD_START" "$LOAD_END" "$OUT" "$ROUNDS" "$WINDOW" "$COUNT" <<'PY'
import json, math, statistics, sys
sys.path.insert(0, __import__("os").environ.get("BENCH_DIR", "."))
samples, mtu, burst, load0, load1, out, rounds, window, count = sys.argv[1:]
mtu = int(mtu)
ceiling = (mtu - 52) / (mtu + 14)  # payload share of a full frame (IPv4 + TCP with timestamps, Ethernet)
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]
groups, failures = {}, []
for line in open(samples):
    mode, rate, rnd, size, value, note = line.rstrip("\n").split("\t")
    if value == "NA":
        failures.append(f"{mode} at {rate} Mbit/s, round {rnd}: {note}")
        continue
    directions = 2 if mode.startswith("mpi-bi") else 1
    groups.setdefault((int(rate), mode, int(size)), []).append(float(value) / (directions * int(rate) / 8))

def interval(v):
    if len(v) < 2:
        return None
    half = T975[min(len(v) - 1, len(T975)) - 1] * statistics.stdev(v) / math.sqrt(len(v))
    m = statistics.mean(v)
    return [m - half, m + half]

doc = {"schema": "ngx-bench-bw-tbf/1", "mtu": mtu, "burst_bytes": int(burst), "payload_ceiling": ceiling,
       "rounds": int(rounds), "window": int(window), "windows": int(count),
       "load_average_start": load0, "load_average_end": load1, "rows": [], "failures": failures}
print(f"\nbw over tbf: median window bandwidth / rate, per direction (payload ceiling at MTU {mtu}: {ceiling:.4f}); "
      f"{rounds} rounds, goal within 3% of the rate")
print(f"  {'rate':>9} {'mode':<8} {'size':>9} {'median':>8} {'95% interval':>17} {'/ceiling':>9}  goal  rounds")
for (rate, mode, size), v in sorted(groups.items()):
    med, ci = statistics.median(v), interval(v)
    met = abs(med - 1) <= 0.03
    doc["rows"].append({"rate_Mbit": rate, "mode": mode, "size_bytes": size, "ratio_to_rate": v,
                        "median": med, "ci95_mean": ci, "median_to_ceiling": med / ceiling, "goal_met": met})
    cis = f"[{ci[0]:.4f}, {ci[1]:.4f}]" if ci else "-"
    print(f"  {rate:>4} Mb/s {mode:<8} {size:>9} {med:>8.4f} {cis:>17} {med / ceiling:>9.4f}  "
          f"{'met' if met else 'NOT'}   " + " ".join(f"{x:.4f}" for x in v))
for f in failures:
    print("  failed: " + f)
print(f"load average: start {load0}, end {load1}")
if out:
    json.dump(doc, open(out, "w"), indent=2)
    print(f"JSON: {out}")
PY
[[ -n $LOGDIR ]] && echo "raw logs: $LOGDIR"
exit 0
