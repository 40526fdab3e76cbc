#!/usr/bin/env bash
# bench/udp/run.sh: ngx's udp module next to peer tools on loopback, in one run.
#
# UDP loopback, 1-byte median half round trip: ngx (-m udp -x pingpong),
# qperf udp_lat and sockperf ping-pong (UDP, its default). Every tool gets
# the same CPU placement (servers / echo sides on CPU A, the timing clients
# on CPU B; for ngx see Placement below). The
# tools are interleaved in R rounds, rotated each round, so that a burst of
# noise hits all of them alike; each round gives one number per tool, and
# the table shows the median and the min over the rounds and the ratio of
# each tool to the best peer. Goal: ngx within 5% of the best peer.
#
# Placement: ngx --cpus X,Y pins rank 0 (the driver, which times) to X and
# rank 1 (the responder) to Y; so that its timing side is on CPU B like the
# peers' clients, ngx gets --cpus B,A.
#
# What each number is: ngx the median of the per-repetition half round trips;
# sockperf the median of its per-message half round trips (14 bytes, its
# minimum message); qperf the mean one-way latency (elapsed / messages).
# Builds nothing: takes an existing meson build directory (default ./build).
# Uses the helpers of bench/lib.sh.
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib.sh"

usage() {
    cat <<'USAGE'
usage: bench/udp/run.sh [options] [BUILD_DIR]

  BUILD_DIR          meson build directory with ngx (default ./build)
  -r, --rounds R     interleaved rounds (default 5)
  -c, --count N      timed round trips of each ngx run (default 20000)
  -w, --warmup N     warm-up round trips of each ngx run (default 1000)
  --cpus A,B         servers on A, timing clients on B (default 0,1)
  -t, --time S       run time of qperf and sockperf, seconds (default 1)
  --busy-poll        also run ngx with --udp-busy-poll 1 (reported apart)
  -o, --output FILE  write the results as JSON to FILE
  -l, --logs DIR     keep every tool's raw output in DIR
  --timeout S        limit for each single tool run (default 120)
  -h, --help         this help
USAGE
}

BUILD=./build ROUNDS=5 COUNT=20000 WARMUP=1000 CPUS=0,1 PEER_TIME=1 OUT="" LOGDIR="" TMO=120 BUSY=0
need_arg() { [[ $# -ge 2 && -n $2 ]] || { echo "udp/run.sh: $1 needs a value" >&2; exit 2; }; }
positional=()
while [[ $# -gt 0 ]]; do
    case $1 in
        -r|--rounds)  need_arg "$@"; ROUNDS=$2; shift 2 ;;
        -c|--count)   need_arg "$@"; COUNT=$2; shift 2 ;;
        -w|--warmup)  need_arg "$@"; WARMUP=$2; shift 2 ;;
        --cpus)       need_arg "$@"; CPUS=$2; shift 2 ;;
        -t|--time)    need_arg "$@"; PEER_TIME=$2; shift 2 ;;
        --busy-poll)  BUSY=1; shift ;;
        -o|--output)  need_arg "$@"; OUT=$2; shift 2 ;;
        -l|--logs)    need_arg "$@"; LOGDIR=$2; shift 2 ;;
        --timeout)    need_arg "$@"; TMO=$2; shift 2 ;;
        -h|--help)    usage; exit 0 ;;
        -*)           echo "udp/run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *)            positional+=("$1"); shift ;;
    esac
done
[[ ${#positional[@]} -le 1 ]] || { usage >&2; exit 2; }
[[ ${#positional[@]} -eq 1 ]] && BUILD=${positional[0]}
for v in "$ROUNDS" "$COUNT" "$WARMUP" "$PEER_TIME" "$TMO"; do
    is_uint "$v" || { echo "udp/run.sh: not a non-negative integer: $v" >&2; exit 2; }
done
[[ $ROUNDS -ge 1 && $COUNT -ge 1 && $PEER_TIME -ge 1 ]] || { echo "udp/run.sh: rounds, count, time must be >= 1" >&2; exit 2; }
[[ $CPUS =~ ^([0-9]+),([0-9]+)$ ]] || { echo "udp/run.sh: --cpus wants A,B" >&2; exit 2; }
CPU_A=${BASH_REMATCH[1]} CPU_B=${BASH_REMATCH[2]}

BUILD=${BUILD%/}
NGX=$BUILD/ngx
[[ -z ${NGX_MODULE_PATH:-} && -d $BUILD/modules ]] && export NGX_MODULE_PATH=$BUILD/modules

if [[ -n $LOGDIR ]]; then
    mkdir -p "$LOGDIR" || exit 1
    WORK=$(cd "$LOGDIR" && pwd) KEEP_WORK=1
else
    WORK=$(mktemp -d /tmp/ngx-bench-udp.XXXXXX) || exit 1
    KEEP_WORK=0
fi
SAMPLES=$WORK/samples.tsv
: > "$SAMPLES"
cleanup() { bench_cleanup; [[ $KEEP_WORK -eq 1 ]] || rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

PORT_BASE=$(free_port_base 3)
QPERF_PORT=$PORT_BASE QPERF_DATA_PORT=$((PORT_BASE + 1)) SOCKPERF_PORT=$((PORT_BASE + 2))

run_ngx() {   # run_ngx TOOL ROUND [MODULE OPTION...]
    local tool=$1 r=$2; shift 2
    local tag="${tool}_r$r"
    if [[ ! -x $NGX ]]; then record udp_lat_us "$tool" "$r" NA "ngx not built"; return; fi
    rm -f "$WORK/$tag.json"
    timeout "$TMO" "$NGX" -m udp -x pingpong -s 1 -c "$COUNT" --warmup "$WARMUP" --cpus "$CPU_B,$CPU_A" \
        -o "$WORK/$tag.json" "$@" > "$WORK/$tag.log" 2>&1 < /dev/null
    local rc=$? v=""
    [[ -s $WORK/$tag.json ]] && v=$(ngx_median "$WORK/$tag.json" 1)
    if [[ $rc -ne 0 ]] || ! is_number "$v"; then
        record udp_lat_us "$tool" "$r" NA "ngx failed (exit $rc, see $tag.log)"; return
    fi
    record udp_lat_us "$tool" "$r" "$v"
}

missing=()
command -v qperf > /dev/null || missing+=(qperf)
command -v sockperf > /dev/null || missing+=(sockperf)
command -v ss > /dev/null || missing+=(iproute2)
install_tools "${missing[@]}"
command -v python3 > /dev/null || { echo "udp/run.sh: python3 is required" >&2; exit 1; }

NGX_VERSION=unknown
[[ -x $NGX ]] && NGX_VERSION=$(timeout 10 "$NGX" --version 2>/dev/null < /dev/null | head -n 1)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "ngx bench: udp on loopback, cpus $CPU_A,$CPU_B, $ROUNDS rounds, count $COUNT (warm-up $WARMUP)," \
     "qperf/sockperf ${PEER_TIME}s; load average $LOAD_START" >&2

TOOLS=(ngx qperf sockperf)
[[ $BUSY == 1 ]] && TOOLS+=(ngx-busy-poll)
for ((r = 1; r <= ROUNDS; r++)); do
    echo "round $r/$ROUNDS" >&2
    for ((k = 0; k < ${#TOOLS[@]}; k++)); do
        t=${TOOLS[$(( (k + r - 1) % ${#TOOLS[@]} ))]}
        case $t in
            ngx)           run_ngx ngx "$r" ;;
            ngx-busy-poll) run_ngx ngx-busy-poll "$r" --udp-busy-poll 1 ;;
            qperf)         run_qperf udp_lat_us udp_lat "$r" ;;
            sockperf)      run_sockperf udp_lat_us udp "$r" ;;
        esac
    done
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

export BENCH_CPUS="$CPU_A,$CPU_B" BENCH_ROUNDS=$ROUNDS BENCH_COUNT=$COUNT BENCH_WARMUP=$WARMUP \
    BENCH_PEER_TIME=$PEER_TIME BENCH_LOAD_START="$LOAD_START" BENCH_LOAD_END="$LOAD_END" BENCH_OUT="$OUT" \
    BENCH_LOGS="$([[ $KEEP_WORK -eq 1 ]] && echo "$WORK")" BENCH_V_NGX="$NGX_VERSION" \
    BENCH_V_QPERF="$(pkg_version qperf)" BENCH_V_SOCKPERF="$(pkg_version sockperf)"
python3 "$HERE/../report.py" udp "$SAMPLES"
