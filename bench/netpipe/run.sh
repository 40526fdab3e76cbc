#!/usr/bin/env bash
# bench/netpipe/run.sh: ngx's bw pattern side by side with NetPIPE (Debian's
# netpipe-tcp, NPtcp 3.7.2) over TCP loopback, the same sizes, interleaved in
# rounds, with paired ratios and their 95% intervals (bench/report.py netpipe).
#
# Per size and round, in an order rotated by one place each round:
#   ngx-bw        ngx -m tcp -x bw --bw-window W: W messages one way, one
#                 1-byte acknowledgement; W s / median window (MB/s)
#   NPtcp-stream  NPtcp -s (NetPIPE's one-way streaming mode): its MB/s
#   ngx-pingpong  ngx -m tcp -x pingpong: s / median half round trip
#   NPtcp         NPtcp's default ping-pong: s / (its fastest trial's mean
#                 half round trip), NetPIPE's usual figure
#   with --mpi, over Open MPI (mpirun -np 2, both ranks bound to a core, the
#   BTLs of --btl for both tools):
#   ngx-mpi-bw    mpirun ngx -m mpi -x bw --bw-window W: as ngx-bw
#   NPmpi-stream  mpirun NPopenmpi -s (Debian's netpipe-openmpi): its MB/s
# so each ngx number has the NetPIPE number that times the same thing: a
# NetPIPE stream trial is -n messages one way and one reply, an ngx window
# of W = n messages and one acknowledgement (W defaults to n; with OSU's 64
# ngx pays one acknowledgement every 64 messages, NetPIPE one every n).
# Every run's wall time is recorded too (wall_s): the same size, ngx's run
# against NetPIPE's; by default both move the same number of messages
# (NetPIPE: 3 trials of -n repeats; ngx: that many messages in windows of W,
# one of them the warm-up, and that many round trips, 20 of them warm-up),
# and ngx runs with --max-rel-ci off: by default it measures a size again
# while its median's interval is wider than 5%, which NetPIPE never does.
# NetPIPE keeps the fastest of its trials, ngx reports the median with its
# interval: each ngx run is also recorded as ngx-bw-best / ngx-pingpong-best,
# its fastest sample, the figure that compares with NetPIPE's own. A
# tool that fails is recorded as NA with its exit code (Debian's NPtcp -s
# ends with "error writing or reading synchronization string" on some
# kernels; the table then says so). Servers run on CPU A, timing sides on
# CPU B. Every run is bounded by timeout; every server is stopped on exit.
set -u -o pipefail

usage() {
    cat <<'USAGE'
usage: bench/netpipe/run.sh [options] [BUILD_DIR]

  BUILD_DIR          meson build directory with ngx (default ./build)
  -s, --sizes LIST   message sizes in bytes, comma-separated (default 4096,65536,1048576)
  -r, --rounds R     interleaved rounds (default 5)
  -W, --window W     ngx --bw-window (default: the repeats, -n)
  -c, --count N      ngx windows per bw run after one warm-up window (default: 3 x repeats / W - 1, at least 2)
  -n, --repeats N    NPtcp -n per trial (default 200); ngx's ping-pong runs 3 x N round trips
  --mpi              also ngx -m mpi -x bw against NPopenmpi -s under mpirun
  --btl LIST         Open MPI BTLs of both MPI tools (default self,vader)
  --cpus A,B         CPU placement (default 0,1)
  -o, --output FILE  the results as JSON
  -l, --logs DIR     keep every tool's raw output in DIR
  --timeout S        limit of one tool run (default 120)
  -h, --help         this help
USAGE
}

BUILD=./build SIZES=4096,65536,1048576 ROUNDS=5 WINDOW="" COUNT="" NP_N=200 CPUS=0,1 OUT="" LOGDIR="" TMO=120 MPI=0 BTL=self,vader
need_arg() { [[ $# -ge 2 && -n $2 ]] || { echo "netpipe/run.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
    case $1 in
        -s|--sizes) need_arg "$@"; SIZES=$2; shift 2 ;;
        -r|--rounds) need_arg "$@"; ROUNDS=$2; shift 2 ;;
        -W|--window) need_arg "$@"; WINDOW=$2; shift 2 ;;
        -c|--count) need_arg "$@"; COUNT=$2; shift 2 ;;
        -n|--repeats) need_arg "$@"; NP_N=$2; shift 2 ;;
        --cpus) need_arg "$@"; CPUS=$2; shift 2 ;;
        -o|--output) need_arg "$@"; OUT=$2; shift 2 ;;
        -l|--logs) need_arg "$@"; LOGDIR=$2; shift 2 ;;
        --timeout) need_arg "$@"; TMO=$2; shift 2 ;;
        --mpi) MPI=1; shift ;;
        --btl) need_arg "$@"; BTL=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "netpipe/run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) BUILD=$1; shift ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib.sh"
NGX=$BUILD/ngx
[[ -x $NGX ]] || { echo "netpipe/run.sh: no ngx in $BUILD (build first)" >&2; exit 2; }
WINDOW=${WINDOW:-$NP_N}
for v in ROUNDS WINDOW NP_N; do is_uint "${!v}" || { echo "netpipe/run.sh: $v must be a whole number" >&2; exit 2; }; done
[[ $WINDOW -ge 1 ]] || { echo "netpipe/run.sh: the window must be at least 1" >&2; exit 2; }
if [[ -z $COUNT ]]; then
    COUNT=$(((3 * NP_N + WINDOW - 1) / WINDOW - 1))
    ((COUNT < 2)) && COUNT=2
fi
is_uint "$COUNT" || { echo "netpipe/run.sh: COUNT must be a whole number" >&2; exit 2; }
CPU_A=${CPUS%,*} CPU_B=${CPUS#*,}
if ! command -v NPtcp > /dev/null; then
    echo "netpipe/run.sh: installing netpipe-tcp" >&2
    apt-get install -y netpipe-tcp > /dev/null 2>&1 || echo "netpipe/run.sh: could not install netpipe-tcp; NPtcp rows will be NA" >&2
fi
if [[ $MPI == 1 ]]; then
    command -v mpirun > /dev/null || { echo "netpipe/run.sh: --mpi needs mpirun (Open MPI)" >&2; exit 2; }
    if ! command -v NPopenmpi > /dev/null; then
        echo "netpipe/run.sh: installing netpipe-openmpi" >&2
        apt-get install -y netpipe-openmpi > /dev/null 2>&1 || echo "netpipe/run.sh: could not install netpipe-openmpi; NPmpi rows will be NA" >&2
    fi
    MPIRUN=(mpirun --allow-run-as-root -np 2 --bind-to core --map-by core --mca btl "$BTL")
fi
WORK=${LOGDIR:-$(mktemp -d)}
mkdir -p "$WORK"
SAMPLES=$WORK/samples.tsv
: > "$SAMPLES"
trap 'bench_cleanup; [[ -z $LOGDIR ]] && rm -rf "$WORK"' EXIT
LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$BUILD/modules} NGX_PATTERN_PATH=${NGX_PATTERN_PATH:-$BUILD/patterns}

# ngx_bandwidth JSON SIZE median|best: the row's bandwidth_MBps, from its
# median sample or (best) its fastest one, as NetPIPE keeps its fastest trial.
ngx_bandwidth() {
    python3 - "$@" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])).get("results", []):
    if r["size_bytes"] == int(sys.argv[2]) and r.get("bandwidth_MBps") is not None:
        scale = r["median_us"] / r["min_us"] if sys.argv[3] == "best" else 1.0
        print(r["bandwidth_MBps"] * scale)
PY
}

run_ngx() { # TOOL SIZE ROUND PATTERN_ARGS...
    local tool=$1 s=$2 r=$3 tag="${1}_${2}_r$3"
    shift 3
    local t0 rc
    t0=$(now_s)
    timeout "$TMO" "$NGX" --cpus "$CPU_B,$CPU_A" -m tcp -s "$s" --max-rel-ci off "$@" -o "$WORK/$tag.json" > "$WORK/$tag.log" 2>&1
    rc=$?
    record_run "wall_s_$s" "$tool" "$r" "$rc" "$(since "$t0")" "$tag"
    record_run "MBps_$s" "$tool" "$r" "$rc" "$(ngx_bandwidth "$WORK/$tag.json" "$s" median)" "$tag"
    record_run "MBps_$s" "$tool-best" "$r" "$rc" "$(ngx_bandwidth "$WORK/$tag.json" "$s" best)" "$tag"
}

run_np() { # TOOL SIZE ROUND [-s]
    local tool=$1 s=$2 r=$3 tag="${1}_${2}_r$3" port
    shift 3
    if ! command -v NPtcp > /dev/null; then record "MBps_$s" "$tool" "$r" NA "not installed"; return; fi
    port=$(free_port_base 1)
    start_server "$WORK/${tag}_rx.log" taskset -c "$CPU_A" NPtcp "$@" -P "$port" -l "$s" -u "$s" -p 0 -n "$NP_N"
    local pg=$SERVER_PG
    if ! wait_listen "$port" tcp; then stop_server "$pg"; record "MBps_$s" "$tool" "$r" NA "receiver did not listen"; return; fi
    local t0 rc v=""
    t0=$(now_s)
    timeout "$TMO" taskset -c "$CPU_B" NPtcp "$@" -P "$port" -h 127.0.0.1 -l "$s" -u "$s" -p 0 -n "$NP_N" \
        -o "$WORK/$tag.out" > "$WORK/$tag.log" 2>&1 < /dev/null
    rc=$?
    record_run "wall_s_$s" "$tool" "$r" "$rc" "$(since "$t0")" "$tag"
    stop_server "$pg"
    [[ -s $WORK/$tag.out ]] && v=$(awk '{ printf "%.4f", $2 / 8; exit }' "$WORK/$tag.out") # Mbit/s to MB/s
    record_run "MBps_$s" "$tool" "$r" "$rc" "$v" "$tag"
}

# run_ngx_mpi SIZE ROUND: ngx -m mpi -x bw under mpirun, ranks bound to cores.
run_ngx_mpi() {
    local s=$1 r=$2 tag="ngx-mpi-bw_${1}_r$2" t0 rc
    t0=$(now_s)
    timeout "$TMO" "${MPIRUN[@]}" "$NGX" -m mpi -x bw -s "$s" --max-rel-ci off --bw-window "$WINDOW" -c "$COUNT" --warmup 1 \
        -o "$WORK/$tag.json" > "$WORK/$tag.log" 2>&1 < /dev/null
    rc=$?
    record_run "wall_s_$s" ngx-mpi-bw "$r" "$rc" "$(since "$t0")" "$tag"
    record_run "MBps_$s" ngx-mpi-bw "$r" "$rc" "$(ngx_bandwidth "$WORK/$tag.json" "$s" median)" "$tag"
    record_run "MBps_$s" ngx-mpi-bw-best "$r" "$rc" "$(ngx_bandwidth "$WORK/$tag.json" "$s" best)" "$tag"
}

# run_np_mpi SIZE ROUND: NPopenmpi -s (NetPIPE's MPI streaming mode) under mpirun.
run_np_mpi() {
    local s=$1 r=$2 tag="NPmpi-stream_${1}_r$2" t0 rc v=""
    if ! command -v NPopenmpi > /dev/null; then record "MBps_$s" NPmpi-stream "$r" NA "not installed"; return; fi
    rm -f "$WORK/$tag.out"
    t0=$(now_s)
    (cd "$WORK" && timeout "$TMO" "${MPIRUN[@]}" NPopenmpi -s -l "$s" -u "$s" -p 0 -n "$NP_N" \
        -o "$WORK/$tag.out" > "$WORK/$tag.log" 2>&1 < /dev/null)
    rc=$?
    record_run "wall_s_$s" NPmpi-stream "$r" "$rc" "$(since "$t0")" "$tag"
    [[ -s $WORK/$tag.out ]] && v=$(awk '{ printf "%.4f", $2 / 8; exit }' "$WORK/$tag.out") # Mbit/s to MB/s
    record_run "MBps_$s" NPmpi-stream "$r" "$rc" "$v" "$tag"
}

IFS=, read -r -a size_list <<< "$SIZES"
tools=(ngx-bw NPtcp-stream ngx-pingpong NPtcp)
[[ $MPI == 1 ]] && tools+=(ngx-mpi-bw NPmpi-stream)
for ((r = 1; r <= ROUNDS; r++)); do
    for s in "${size_list[@]}"; do
        for ((k = 0; k < ${#tools[@]}; k++)); do
            t=${tools[$(((k + r - 1) % ${#tools[@]}))]}
            case $t in
                ngx-bw) run_ngx "$t" "$s" "$r" -x bw --bw-window "$WINDOW" -c "$COUNT" --warmup 1 ;;
                ngx-pingpong) run_ngx "$t" "$s" "$r" -x pingpong -c $((3 * NP_N - 20)) --warmup 20 ;;
                ngx-mpi-bw) run_ngx_mpi "$s" "$r" ;;
                NPmpi-stream) run_np_mpi "$s" "$r" ;;
                NPtcp-stream) run_np "$t" "$s" "$r" -s ;;
                NPtcp) run_np "$t" "$s" "$r" ;;
            esac
        done
    done
    echo "round $r of $ROUNDS done" >&2
done
BENCH_LOAD_START=$LOAD_START BENCH_LOAD_END=$(cut -d' ' -f1 /proc/loadavg) BENCH_OUT=$OUT \
    BENCH_LOGS=${LOGDIR} BENCH_SIZES=$SIZES BENCH_ROUNDS=$ROUNDS BENCH_WINDOW=$WINDOW BENCH_CPUS=$CPUS \
    BENCH_NP_N=$NP_N BENCH_COUNT=$COUNT BENCH_MPI=$MPI BENCH_BTL=$BTL \
    BENCH_V_NPMPI="$(dpkg-query -W -f '${Version}' netpipe-openmpi 2>/dev/null || echo unknown)" \
    BENCH_V_NETPIPE="$(dpkg-query -W -f '${Version}' netpipe-tcp 2>/dev/null || echo unknown)" \
    python3 "$HERE/../report.py" netpipe "$SAMPLES"
