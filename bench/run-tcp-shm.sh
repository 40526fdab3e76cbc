#!/usr/bin/env bash
# run-tcp-shm.sh: ngx side by side with peer tools on one machine, in one run.
#
# TCP loopback, 1-byte median half round trip: ngx (-m tcp -x pingpong),
# qperf tcp_lat, sockperf ping-pong --tcp, NPtcp and the minimal C program
# (bench/minimal/tcp_pingpong.c). Shared memory: ngx -m shm against the
# spin ping-pong floor (bench/minimal/shm_pingpong.c). Bandwidth: 1 MiB TCP
# ping-pong of ngx against the minimal program.
#
# Every tool gets the same CPU placement (servers/echo sides on CPU A, the
# timing clients on CPU B; ngx gets --cpus B,A, since its rank 0 is the
# driver that times). Tools are interleaved in R
# rounds so that a burst of noise hits all of them alike; each round yields
# one number per tool, and the table shows the median and the min of the
# rounds and the ratio of ngx to the best peer. Results also go to JSON (-o).
#
# Builds nothing: it takes an existing meson build directory (default
# ./build). Missing peer tools are installed with apt-get. Every command is
# bounded by `timeout`; every server started here is killed on exit.
# bench/README.md says what each tool's number means and how it is
# normalised.
set -u -o pipefail

usage() {
    cat <<'EOF'
usage: bench/run-tcp-shm.sh [options] [BUILD_DIR]

  BUILD_DIR          meson build directory with ngx and bench/ (default ./build)
  -r, --rounds R     interleaved rounds (default 5)
  -c, --count N      timed round trips per latency run (default 20000)
  -w, --warmup N     warm-up round trips per latency run (default 1000)
  --bw-count N       timed round trips of the 1 MiB bandwidth run (default 1000)
  --bw-warmup N      warm-up round trips of the 1 MiB run (default 100)
  --bw-offset B      page offset of both 1 MiB runs' buffers (default 16,
                     where glibc's malloc puts a 1 MiB block; ngx
                     --buffer-offset, minimal -O)
  --cpus A,B         CPU placement given to every tool (default 0,1)
  -t, --time S       run time in seconds of qperf and sockperf (default 1)
  -o, --output FILE  write the results as JSON to FILE
  -l, --logs DIR     keep every tool's raw output in DIR (default: a
                     temporary directory, removed at the end)
  --port-base P      first of the 4 TCP ports used by the peer servers
                     (default: random in 20000-39999)
  --timeout S        limit for each single tool run (default 120)
  -h, --help         this help
EOF
}

BUILD=./build
ROUNDS=5
COUNT=20000
WARMUP=1000
BW_COUNT=1000
BW_WARMUP=100
BW_OFFSET=16
CPUS=0,1
PEER_TIME=1
OUT=""
LOGDIR=""
PORT_BASE=""
TMO=120

need_arg() { [[ $# -ge 2 && -n $2 ]] || { echo "run-tcp-shm.sh: $1 needs a value" >&2; exit 2; }; }
positional=()
while [[ $# -gt 0 ]]; do
    case $1 in
        -r|--rounds)   need_arg "$@"; ROUNDS=$2; shift 2 ;;
        -c|--count)    need_arg "$@"; COUNT=$2; shift 2 ;;
        -w|--warmup)   need_arg "$@"; WARMUP=$2; shift 2 ;;
        --bw-count)    need_arg "$@"; BW_COUNT=$2; shift 2 ;;
        --bw-warmup)   need_arg "$@"; BW_WARMUP=$2; shift 2 ;;
        --bw-offset)   need_arg "$@"; BW_OFFSET=$2; shift 2 ;;
        --cpus)        need_arg "$@"; CPUS=$2; shift 2 ;;
        -t|--time)     need_arg "$@"; PEER_TIME=$2; shift 2 ;;
        -o|--output)   need_arg "$@"; OUT=$2; shift 2 ;;
        -l|--logs)     need_arg "$@"; LOGDIR=$2; shift 2 ;;
        --port-base)   need_arg "$@"; PORT_BASE=$2; shift 2 ;;
        --timeout)     need_arg "$@"; TMO=$2; shift 2 ;;
        -h|--help)     usage; exit 0 ;;
        -*)            echo "run-tcp-shm.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *)             positional+=("$1"); shift ;;
    esac
done
[[ ${#positional[@]} -le 1 ]] || { usage >&2; exit 2; }
[[ ${#positional[@]} -eq 1 ]] && BUILD=${positional[0]}

source "$(dirname "$0")/lib.sh"   # port_busy, servers, record, ngx_median, ...
# A random port base unless one was given; skip bases with a port in use.
if [[ -z $PORT_BASE ]]; then
    for ((try = 0; try < 20; try++)); do
        PORT_BASE=$((20000 + RANDOM % 20000))
        port_busy $PORT_BASE || port_busy $((PORT_BASE + 1)) ||
            port_busy $((PORT_BASE + 2)) || port_busy $((PORT_BASE + 3)) || break
    done
fi
for v in "$ROUNDS" "$COUNT" "$WARMUP" "$BW_COUNT" "$BW_WARMUP" "$BW_OFFSET" "$PEER_TIME" "$PORT_BASE" "$TMO"; do
    is_uint "$v" || { echo "run-tcp-shm.sh: not a non-negative integer: $v" >&2; exit 2; }
done
[[ $ROUNDS -ge 1 && $COUNT -ge 1 && $BW_COUNT -ge 1 && $PEER_TIME -ge 1 ]] ||
    { echo "run-tcp-shm.sh: rounds, counts and time must be >= 1" >&2; exit 2; }
[[ $BW_OFFSET -le 4095 ]] || { echo "run-tcp-shm.sh: --bw-offset wants 0-4095" >&2; exit 2; }
[[ $CPUS =~ ^([0-9]+),([0-9]+)$ ]] || { echo "run-tcp-shm.sh: --cpus wants A,B" >&2; exit 2; }
CPU_A=${BASH_REMATCH[1]}
CPU_B=${BASH_REMATCH[2]}
[[ $PORT_BASE -ge 1024 && $PORT_BASE -le 65530 ]] || { echo "run-tcp-shm.sh: bad --port-base" >&2; exit 2; }
QPERF_PORT=$PORT_BASE          # qperf synchronisation (listen) port
QPERF_DATA_PORT=$((PORT_BASE + 1))
SOCKPERF_PORT=$((PORT_BASE + 2))
NPTCP_PORT=$((PORT_BASE + 3))
# Debian's NPtcp is built with NetPIPE's TRIALS = 3 (counted with strace:
# -n N does 3 N round trips); -n COUNT/3 gives it about COUNT round trips.
NPTCP_TRIALS=3
NPTCP_N=$(( (COUNT + NPTCP_TRIALS - 1) / NPTCP_TRIALS ))

BUILD=${BUILD%/}
NGX=$BUILD/ngx
TCP_MIN=$BUILD/bench/tcp_pingpong
SHM_MIN=$BUILD/bench/shm_pingpong
if [[ -z ${NGX_MODULE_PATH:-} && -d $BUILD/modules ]]; then
    export NGX_MODULE_PATH=$BUILD/modules
fi

# ---------------------------------------------------------------- work dir
if [[ -n $LOGDIR ]]; then
    mkdir -p "$LOGDIR" || exit 1
    WORK=$(cd "$LOGDIR" && pwd)
    KEEP_WORK=1
else
    WORK=$(mktemp -d /tmp/ngx-bench.XXXXXX) || exit 1
    KEEP_WORK=0
fi
SAMPLES=$WORK/samples.tsv
: > "$SAMPLES"

cleanup() {
    bench_cleanup
    [[ $KEEP_WORK -eq 1 ]] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- tools
# Each run_* function appends one sample for its round to $SAMPLES.

run_ngx() {   # run_ngx METRIC MODULE SIZE COUNT WARMUP ROUND
    local metric=$1 module=$2 size=$3 count=$4 warm=$5 r=$6 tool
    tool=ngx
    if [[ ! -x $NGX ]]; then record "$metric" "$tool" "$r" NA "ngx not built"; return; fi
    local tag="ngx_${module}_${size}_r$r" bytes=$size
    local placement=()
    [[ $size == 1Mi ]] && bytes=1048576 placement=(--buffer-offset "$BW_OFFSET")
    rm -f "$WORK/$tag.json"
    # --cpus B,A: rank 0, ngx's driver (the side that times), on B with the peers' timing clients.
    timeout "$TMO" "$NGX" -m "$module" -x pingpong -s "$size" -c "$count" --warmup "$warm" \
        --cpus "$CPU_B,$CPU_A" "${placement[@]}" -o "$WORK/$tag.json" > "$WORK/$tag.log" 2>&1 < /dev/null
    local rc=$?
    local v=""
    [[ -s $WORK/$tag.json ]] && v=$(ngx_median "$WORK/$tag.json" "$bytes")
    if [[ $rc -ne 0 || -z $v ]]; then
        record "$metric" "$tool" "$r" NA "ngx failed (exit $rc, see $tag.log)"; return
    fi
    if [[ $metric == tcp_bw_MBps ]]; then
        v=$(awk -v s="$bytes" -v m="$v" 'BEGIN { printf "%.1f", s / m }')
    fi
    record "$metric" "$tool" "$r" "$v"
}

run_nptcp() {
    local r=$1 tag="nptcp_r$1"
    if ! command -v NPtcp > /dev/null; then record tcp_lat_us NPtcp "$r" NA "not installed"; return; fi
    start_server "$WORK/${tag}_server.log" taskset -c "$CPU_A" \
        NPtcp -P "$NPTCP_PORT" -l 1 -u 1 -p 0 -n "$NPTCP_N"
    local pg=$SERVER_PG
    if ! wait_listen "$NPTCP_PORT"; then
        stop_server "$pg"; record tcp_lat_us NPtcp "$r" NA "receiver did not listen"; return
    fi
    rm -f "$WORK/$tag.np"
    timeout "$TMO" taskset -c "$CPU_B" NPtcp -P "$NPTCP_PORT" -h 127.0.0.1 -l 1 -u 1 -p 0 \
        -n "$NPTCP_N" -o "$WORK/$tag.np" > "$WORK/$tag.log" 2>&1 < /dev/null
    local rc=$?
    stop_server "$pg"
    # np.out: "size bits/s seconds"; seconds = half round trip (the best of
    # NetPIPE's trials, each the mean over -n round trips).
    local v=""
    [[ -s $WORK/$tag.np ]] && v=$(awk '$1 == 1 { printf "%.3f", $3 * 1e6; exit }' "$WORK/$tag.np")
    record_run tcp_lat_us NPtcp "$r" "$rc" "$v" "$tag"
}

run_min_tcp() {   # run_min_tcp METRIC SIZE COUNT WARMUP ROUND
    local metric=$1 size=$2 count=$3 warm=$4 r=$5 tag="minimal_tcp_${2}_r$5"
    if [[ ! -x $TCP_MIN ]]; then record "$metric" minimal "$r" NA "not built"; return; fi
    local placement=()
    [[ $metric == tcp_bw_MBps ]] && placement=(-O "$BW_OFFSET")
    # Timing side on CPU B, echo side on CPU A, like the peers' clients/servers.
    timeout "$TMO" "$TCP_MIN" -a "$CPU_B" -b "$CPU_A" -w "$warm" -n "$count" -s "$size" "${placement[@]}" \
        > "$WORK/$tag.log" 2>&1 < /dev/null
    local rc=$? v
    if [[ $metric == tcp_bw_MBps ]]; then
        v=$(awk '$1 == "bw_1MiB_MBps" { print $2; exit }' "$WORK/$tag.log")
    else
        v=$(awk '$1 == "1" { print $2; exit }' "$WORK/$tag.log")
    fi
    record_run "$metric" minimal "$r" "$rc" "$v" "$tag"
}

# The shm floor: the faster of the spin loop without and with a pause
# instruction (shm_pingpong -p), both run each round (the floor is what an
# expert writes, and which of the two an expert would pick depends on the
# CPU; on the EPYC guest -p is faster).
run_min_shm() {
    local r=$1 tag="minimal_shm_r$1" rc=0 v best="" flag
    if [[ ! -x $SHM_MIN ]]; then record shm_lat_us minimal "$r" NA "not built"; return; fi
    for flag in "" -p; do
        timeout "$TMO" "$SHM_MIN" -a "$CPU_B" -b "$CPU_A" -w "$WARMUP" -n "$COUNT" $flag \
            >> "$WORK/$tag.log" 2>&1 < /dev/null || rc=$?
        v=$(awk '$1 == "1" { print $2 }' "$WORK/$tag.log" | tail -1)
        [[ -n $v && ( -z $best || $(echo "$v < $best" | bc) == 1 ) ]] && best=$v
    done
    record_run shm_lat_us minimal "$r" "$rc" "$best" "$tag"
}

# ---------------------------------------------------------------- peers
missing=()
command -v qperf > /dev/null || missing+=(qperf)
command -v sockperf > /dev/null || missing+=(sockperf)
command -v NPtcp > /dev/null || missing+=(netpipe-tcp)
command -v python3 > /dev/null || missing+=(python3)
command -v ss > /dev/null || missing+=(iproute2)
install_tools "${missing[@]}"
command -v python3 > /dev/null || { echo "run-tcp-shm.sh: python3 is required" >&2; exit 1; }

NGX_VERSION=unknown
if [[ -x $NGX ]]; then
    NGX_VERSION=$(timeout 10 "$NGX" --version 2>/dev/null < /dev/null | head -n 1) || NGX_VERSION=unknown
    [[ -n $NGX_VERSION ]] || NGX_VERSION=unknown
fi

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "ngx bench: tcp/shm on loopback, cpus $CPU_A,$CPU_B, $ROUNDS rounds," \
     "count $COUNT (warm-up $WARMUP), qperf/sockperf ${PEER_TIME}s, 1 MiB count $BW_COUNT;" \
     "load average $LOAD_START" >&2
[[ -x $NGX ]] || echo "note: $NGX not found: ngx rows will say 'ngx not built'" >&2

# ---------------------------------------------------------------- rounds
# Round r runs the latency tools in the order ngx, qperf, sockperf, NPtcp,
# minimal, rotated by r-1 places, then the shm pair and the 1 MiB pair (their
# order swapped every other round).
TCP_TOOLS=(ngx qperf sockperf NPtcp minimal)
for ((r = 1; r <= ROUNDS; r++)); do
    echo "round $r/$ROUNDS" >&2
    for ((k = 0; k < ${#TCP_TOOLS[@]}; k++)); do
        t=${TCP_TOOLS[$(( (k + r - 1) % ${#TCP_TOOLS[@]} ))]}
        case $t in
            ngx)      run_ngx tcp_lat_us tcp 1 "$COUNT" "$WARMUP" "$r" ;;
            qperf)    run_qperf tcp_lat_us tcp_lat "$r" ;;
            sockperf) run_sockperf tcp_lat_us tcp "$r" ;;
            NPtcp)    run_nptcp "$r" ;;
            minimal)  run_min_tcp tcp_lat_us 1 "$COUNT" "$WARMUP" "$r" ;;
        esac
    done
    if (( r % 2 )); then
        run_ngx shm_lat_us shm 1 "$COUNT" "$WARMUP" "$r"; run_min_shm "$r"
        run_ngx tcp_bw_MBps tcp 1Mi "$BW_COUNT" "$BW_WARMUP" "$r"
        run_min_tcp tcp_bw_MBps 1Mi "$BW_COUNT" "$BW_WARMUP" "$r"
    else
        run_min_shm "$r"; run_ngx shm_lat_us shm 1 "$COUNT" "$WARMUP" "$r"
        run_min_tcp tcp_bw_MBps 1Mi "$BW_COUNT" "$BW_WARMUP" "$r"
        run_ngx tcp_bw_MBps tcp 1Mi "$BW_COUNT" "$BW_WARMUP" "$r"
    fi
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- report
export BENCH_CPUS="$CPU_A,$CPU_B" BENCH_ROUNDS=$ROUNDS BENCH_COUNT=$COUNT BENCH_WARMUP=$WARMUP \
    BENCH_BW_COUNT=$BW_COUNT BENCH_BW_WARMUP=$BW_WARMUP BENCH_BW_OFFSET=$BW_OFFSET BENCH_PEER_TIME=$PEER_TIME \
    BENCH_NPTCP_N=$NPTCP_N BENCH_NPTCP_TRIALS=$NPTCP_TRIALS \
    BENCH_LOAD_START="$LOAD_START" BENCH_LOAD_END="$LOAD_END" BENCH_OUT="$OUT" \
    BENCH_LOGS="$([[ $KEEP_WORK -eq 1 ]] && echo "$WORK")" \
    BENCH_V_NGX="$NGX_VERSION" BENCH_V_QPERF="$(pkg_version qperf)" \
    BENCH_V_SOCKPERF="$(pkg_version sockperf)" BENCH_V_NPTCP="$(pkg_version netpipe-tcp)"
python3 "$(dirname "$0")/report.py" tcp-shm "$SAMPLES"
