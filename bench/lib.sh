# bench/lib.sh: helpers shared by the bench scripts (sourced). The caller
# sets WORK (scratch directory), SAMPLES (the TSV file record() appends to)
# and TMO (limit of one tool run, seconds) before using them, and calls
# bench_cleanup from its EXIT trap. Same conventions as run-tcp-shm.sh:
# servers run in their own session (setsid) so that they and whatever they
# fork are stopped together; every run is bounded by timeout.

BENCH_SERVERS=()   # process-group ids of the servers started here

# port_busy PORT [tcp|udp]: something listens on (TCP) or is bound to (UDP) PORT.
port_busy() {
    if [[ ${2:-tcp} == udp ]]; then
        ss -lunH "sport = :$1" 2>/dev/null | grep -q .
    else
        ss -ltnH "sport = :$1" 2>/dev/null | grep -q .
    fi
}

# free_port_base N: a random base in 20000-39999 with N free TCP+UDP ports above it.
free_port_base() {
    local n=$1 try base k busy
    for ((try = 0; try < 20; try++)); do
        base=$((20000 + RANDOM % 20000))
        busy=0
        for ((k = 0; k < n; k++)); do
            if port_busy $((base + k)) tcp || port_busy $((base + k)) udp; then busy=1; break; fi
        done
        [[ $busy == 0 ]] && break
    done
    echo "$base"
}

# start_server LOG CMD...: CMD in a new session, bounded; sets SERVER_PG.
start_server() {
    local log=$1; shift
    setsid timeout $((TMO + 30)) "$@" > "$log" 2>&1 < /dev/null &
    SERVER_PG=$!
    BENCH_SERVERS+=("$SERVER_PG")
}

stop_server() {
    local pg=$1 keep=() p
    kill -TERM -- "-$pg" 2>/dev/null || kill -TERM "$pg" 2>/dev/null
    wait "$pg" 2>/dev/null
    for p in "${BENCH_SERVERS[@]}"; do [[ $p == "$pg" ]] || keep+=("$p"); done
    BENCH_SERVERS=("${keep[@]}")
}

bench_cleanup() {
    local pg
    for pg in "${BENCH_SERVERS[@]}"; do
        kill -TERM -- "-$pg" 2>/dev/null || kill -TERM "$pg" 2>/dev/null
    done
    for pg in "${BENCH_SERVERS[@]}"; do wait "$pg" 2>/dev/null; done
    BENCH_SERVERS=()
}

# wait_listen PORT [tcp|udp]: until PORT is in use (5 s at most).
wait_listen() {
    local i
    for ((i = 0; i < 100; i++)); do
        port_busy "$1" "${2:-tcp}" && return 0
        sleep 0.05
    done
    return 1
}

# record METRIC TOOL ROUND VALUE [NOTE]; VALUE "NA" when the run failed.
record() {
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" >> "$SAMPLES"
}

# record_run METRIC TOOL ROUND RC VALUE TAG: VALUE when the run exited 0 with
# a number, else NA with a note pointing at TAG.log.
record_run() {
    if [[ $4 -ne 0 ]] || ! is_number "$5"; then
        record "$1" "$2" "$3" NA "failed (exit $4, see $6.log)"
    else
        record "$1" "$2" "$3" "$5"
    fi
}

# now_s: the monotonic clock in seconds; since T0: seconds elapsed since now_s gave T0.
now_s() { date +%s.%N; }
since() { awk -v t0="$1" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.3f", t1 - t0 }'; }

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

# find_ngx SCRIPT BUILD: NGX becomes BUILD's ngx as an absolute path, or
# SCRIPT exits 2 saying there is none.
find_ngx() {
    local dir
    dir=$(cd "$2" 2> /dev/null && pwd)
    [[ -n $dir && -x $dir/ngx ]] || { echo "$1: no ngx in $2 (build first)" >&2; exit 2; }
    NGX=$dir/ngx
}

# require_uints SCRIPT VAR...: every VAR holds a whole number, or SCRIPT exits 2 naming it.
require_uints() {
    local script=$1 v
    shift
    for v; do is_uint "${!v}" || { echo "$script: $v must be a whole number" >&2; exit 2; }; done
}
is_number() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

# ngx_median JSON SIZE: median_us of the result with size_bytes == SIZE.
ngx_median() {
    python3 "$(dirname "${BASH_SOURCE[0]}")/report.py" ngx-median "$1" "$2"
}

# qperf_latency_us LOG: qperf's "latency = 7.38 us" (mean one-way) in us.
qperf_latency_us() {
    awk '$1 == "latency" && $2 == "=" {
            u = $4; x = $3 + 0
            if (u == "ns") x /= 1000; else if (u == "ms") x *= 1000;
            else if (u == "sec" || u == "s") x *= 1e6
            printf "%.3f", x; exit }' "$1"
}

# sockperf_median_us LOG: sockperf's "percentile 50.000 = 24.551" in us.
sockperf_median_us() {
    sed 's/\x1b\[[0-9;]*m//g' "$1" | awk '/percentile 50\.000/ { printf "%.3f", $NF + 0; exit }'
}

# run_qperf METRIC TEST ROUND: qperf's TEST (tcp_lat, udp_lat) with 1-byte
# messages for PEER_TIME seconds, server on CPU_A, client on CPU_B; records
# its mean one-way latency. Uses QPERF_PORT (listen) and QPERF_DATA_PORT.
run_qperf() {
    local metric=$1 test=$2 r=$3 tag="qperf_r$3"
    if ! command -v qperf > /dev/null; then record "$metric" qperf "$r" NA "not installed"; return; fi
    start_server "$WORK/${tag}_server.log" taskset -c "$CPU_A" qperf -lp "$QPERF_PORT"
    local pg=$SERVER_PG
    if ! wait_listen "$QPERF_PORT" tcp; then
        stop_server "$pg"; record "$metric" qperf "$r" NA "server did not listen"; return
    fi
    timeout "$TMO" taskset -c "$CPU_B" qperf 127.0.0.1 -lp "$QPERF_PORT" -ip "$QPERF_DATA_PORT" \
        -m 1 -t "$PEER_TIME" "$test" > "$WORK/$tag.log" 2>&1 < /dev/null
    local rc=$? v
    stop_server "$pg"
    v=$(qperf_latency_us "$WORK/$tag.log")
    record_run "$metric" qperf "$r" "$rc" "$v" "$tag"
}

# run_sockperf METRIC tcp|udp ROUND: sockperf ping-pong with 14-byte messages
# (its minimum: its own header) for PEER_TIME seconds, server on CPU_A, client
# on CPU_B; records the median half round trip. Uses SOCKPERF_PORT.
run_sockperf() {
    local metric=$1 proto=$2 r=$3 tag="sockperf_r$3" flag=()
    [[ $proto == tcp ]] && flag=(--tcp)
    if ! command -v sockperf > /dev/null; then record "$metric" sockperf "$r" NA "not installed"; return; fi
    start_server "$WORK/${tag}_server.log" taskset -c "$CPU_A" \
        sockperf server "${flag[@]}" -i 127.0.0.1 -p "$SOCKPERF_PORT"
    local pg=$SERVER_PG
    if ! wait_listen "$SOCKPERF_PORT" "$proto"; then
        stop_server "$pg"; record "$metric" sockperf "$r" NA "server did not $([[ $proto == tcp ]] && echo listen || echo bind)"
        return
    fi
    timeout "$TMO" taskset -c "$CPU_B" sockperf ping-pong "${flag[@]}" -i 127.0.0.1 -p "$SOCKPERF_PORT" \
        -m 14 -t "$PEER_TIME" > "$WORK/$tag.log" 2>&1 < /dev/null
    local rc=$? v
    stop_server "$pg"
    v=$(sockperf_median_us "$WORK/$tag.log")
    record_run "$metric" sockperf "$r" "$rc" "$v" "$tag"
}

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown; }

# install_tools PKG...: apt-get install the given packages when root (best effort).
install_tools() {
    [[ $# -eq 0 ]] && return 0
    echo "installing: $*" >&2
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get > /dev/null; then
        echo "bench: cannot install $* (needs root and apt-get)" >&2
        return 0
    fi
    timeout 600 apt-get update -qq > "$WORK/apt.log" 2>&1
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq "$@" >> "$WORK/apt.log" 2>&1 ||
        echo "bench: apt-get install failed (see $WORK/apt.log); missing tools are skipped" >&2
}

# The accuracy benches (bench/*/accuracy scripts): what the tests of the
# real-time suites bound only within a factor of 2, measured here against what
# the setup implies, round by round. The caller sets ACCURACY (a TSV file),
# records each round's figures with accuracy_record and prints the table
# with accuracy_report.
# accuracy_record QUANTITY ROUND MEASURED EXPECTED (MEASURED "NA" when the round failed)
accuracy_record() {
    local v=$3
    is_number "${v#-}" || v=NA
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$v" "$4" >> "$ACCURACY"
}
accuracy_report() {
    python3 "$(dirname "${BASH_SOURCE[0]}")/report.py" accuracy "$ACCURACY"
}

# accuracy_args SCRIPT "$@": the common options of the accuracy scripts,
# BUILD_DIR and -r ROUNDS; sets BUILD (absolute), ROUNDS, SOURCE_ROOT and
# exports the NGX_* variables the test scripts read. Exits 2 on bad input.
accuracy_args() {
    local me=$1
    shift
    BUILD=./build ROUNDS=3
    while [[ $# -gt 0 ]]; do
        case $1 in
        -r|--rounds) ROUNDS=${2:-}; shift 2 || { echo "$me: -r wants a number" >&2; exit 2; } ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$me"; exit 0 ;;
        -*) echo "$me: unknown option $1" >&2; exit 2 ;;
        *) BUILD=$1; shift ;;
        esac
    done
    [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "$me: -r wants a positive whole number, not '$ROUNDS'" >&2; exit 2; }
    BUILD=$(cd "$BUILD" 2>/dev/null && pwd) && [[ -x $BUILD/ngx ]] ||
        { echo "$me: no ngx in the build directory (meson setup BUILD && ninja -C BUILD)" >&2; exit 2; }
    SOURCE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    export NGX=$BUILD/ngx NGX_MODULE_PATH=$BUILD/modules NGX_PATTERN_PATH=$BUILD/patterns NGX_BUILD_ROOT=$BUILD \
        NGX_SOURCE_ROOT=$SOURCE_ROOT
    echo "# $(basename "$me"): $ROUNDS round(s), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# accuracy_run_test ROUND PREFIX SCRIPT [ARG...]: runs a test script of the
# source tree (bounded, 600 s) and records every figure it compared: the
# lines of tests/lib/bounds.py ("ok NAME: MEASURED, expected EXPECTED ...")
# and of the truth checkers ("ok NAME MEASURED expected EXPECTED ..."),
# each as PREFIX NAME. Prints the test's verdict line.
accuracy_run_test() {
    local round=$1 prefix=$2 script=$3 log rc
    shift 3
    log=$(mktemp)
    timeout -k 5 600 bash "$SOURCE_ROOT/$script" "$@" > "$log" 2>&1
    rc=$?
    python3 - "$log" "$prefix" "$round" >> "$ACCURACY" <<'PY'
import re, sys
pat = [re.compile(r"^\s+(?:ok|FAIL)\s+(.+?):\s+([-0-9.e+]+), expected ([-0-9.e+]+)"),
       re.compile(r"^\s+(?:ok|FAIL)\s+(.+?)\s+([-0-9.e+]+)\s+expected\s+([-0-9.e+]+)")]
for line in open(sys.argv[1], errors="replace"):
    for p in pat:
        m = p.match(line)
        if m:
            print(f"{sys.argv[2]} {m.group(1).strip()}\t{sys.argv[3]}\t{m.group(2)}\t{m.group(3)}")
            break
PY
    echo "round $round: $script${*:+ $*} exit $rc ($(grep -E '^(PASS|FAIL|SKIP)' "$log" | tail -1))"
    rm -f "$log"
}

# bench_netns_start SCRIPT: the emulated-cluster benches' start (root, or
# SCRIPT exits 2): WORK, tests/net/netns.sh sourced, tbf and mpirun
# required, namespaces and WORK removed at exit, ngx's plugin paths and the
# 4 KiB tbf bucket exported, LOAD_START the load average now.
bench_netns_start() {
    [[ $(id -u) == 0 ]] || { echo "$1: network namespaces need root" >&2; exit 2; }
    WORK=$(mktemp -d)
    NETNS_NO_TRAP=1
    source "$(dirname "${BASH_SOURCE[0]}")/../tests/net/netns.sh"
    trap 'netns_cleanup; rm -rf "$WORK"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    netns_require tbf mpi
    netns_init || exit 1
    export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$(dirname "$NGX")/modules}
    export NGX_PATTERN_PATH=${NGX_PATTERN_PATH:-$(dirname "$NGX")/patterns}
    export NETNS_MPI_TIMEOUT=600 NETNS_CLUSTER_BURST=4kb
    LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
}

