#!/usr/bin/env bash
# bench/mpi/run.sh: 1-byte MPI ping-pong, side by side in one run, over the
# vader and the tcp BTL: the minimal MPI_Send/MPI_Recv program (pingpong.c,
# MPI_Init, MPI_Wtime per round trip), NPopenmpi (Debian's netpipe-openmpi,
# installed when missing and root) and `ngx -m mpi -x pingpong -s 1`.
#
# The tools are interleaved in R rounds, rotated each round, every run under
# the same `mpirun --bind-to core` placement, so that a burst of noise hits
# all of them alike; each round gives one number per tool (the median half
# round trip; NPopenmpi: its 1-byte time, a mean), and the table shows the
# median and min over the rounds and each tool's ratio to the best peer
# (minimal or NPopenmpi), of the medians and paired per round
# (bench/README.md). Goal (ngx within 5% of the minimal program: it must not
# distort what it measures), paired per round, each timing against the peer
# that times the same way:
# ngx (a timer read per round trip) against the minimal program (the same),
# and ngx --pingpong-timing batch (one read per batch of 100) against
# NPopenmpi (one per batch of its own). The ratio to the best peer whatever
# its timing is printed beside them.
#     bench/mpi/run.sh [-r ROUNDS] [-c COUNT] [-o FILE.json] [BUILD_DIR]
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib.sh"

usage() {
    cat <<'USAGE'
usage: bench/mpi/run.sh [options] [BUILD_DIR]

  BUILD_DIR          meson build directory with ngx (default ./build)
  -r, --rounds R     interleaved rounds (default 5)
  -c, --count N      timed round trips of each run (default 20000)
  --btls LIST        BTLs to compare, of vader and tcp (default "vader tcp")
  -o, --output FILE  write the results as JSON to FILE
  --timeout S        limit of each single run (default 120)
  -h, --help         this help
USAGE
}

BUILD=./build ROUNDS=5 COUNT=20000 BTLS="vader tcp" OUT="" TMO=120
need_arg() { [[ $# -ge 2 && -n $2 ]] || { echo "mpi/run.sh: $1 needs a value" >&2; exit 2; }; }
positional=()
while [[ $# -gt 0 ]]; do
    case $1 in
        -r|--rounds)  need_arg "$@"; ROUNDS=$2; shift 2 ;;
        -c|--count)   need_arg "$@"; COUNT=$2; shift 2 ;;
        --btls)       need_arg "$@"; BTLS=$2; shift 2 ;;
        -o|--output)  need_arg "$@"; OUT=$2; shift 2 ;;
        --timeout)    need_arg "$@"; TMO=$2; shift 2 ;;
        -h|--help)    usage; exit 0 ;;
        -*)           echo "mpi/run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *)            positional+=("$1"); shift ;;
    esac
done
[[ ${#positional[@]} -le 1 ]] || { usage >&2; exit 2; }
[[ ${#positional[@]} -eq 1 ]] && BUILD=${positional[0]}
for v in "$ROUNDS" "$COUNT" "$TMO"; do
    is_uint "$v" && [[ $v -ge 1 ]] || { echo "mpi/run.sh: not a whole number >= 1: $v" >&2; exit 2; }
done
for btl in $BTLS; do
    [[ $btl == vader || $btl == tcp ]] || { echo "mpi/run.sh: --btls: unknown BTL '$btl' (vader, tcp)" >&2; exit 2; }
done
BUILD=${BUILD%/}
NGX=$BUILD/ngx
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$BUILD/modules} NGX_PATTERN_PATH=${NGX_PATTERN_PATH:-$BUILD/patterns}
command -v mpicc > /dev/null || { echo "mpi/run.sh: mpicc not found (libopenmpi-dev)"; exit 77; }

WORK=$(mktemp -d /tmp/ngx-bench-mpi.XXXXXX) || exit 1
SAMPLES=$WORK/samples.tsv
: > "$SAMPLES"
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
command -v NPopenmpi > /dev/null || install_tools netpipe-openmpi
mpicc -O2 -o "$WORK/pingpong" "$HERE/pingpong.c" || exit 1

mpi() { # mpi BTL PROGRAM ARGS...: two ranks, one per core, only this BTL (and self)
    local btl=$1
    shift
    timeout -k 5 "$TMO" mpirun --allow-run-as-root -np 2 --bind-to core --mca oob_tcp_if_include lo \
        --mca btl_tcp_if_include lo --mca btl "self,$btl" -x NGX_MODULE_PATH -x NGX_PATTERN_PATH "$@"
}

run_tool() { # run_tool TOOL BTL ROUND
    local tool=$1 btl=$2 r=$3 tag="$1-$2-r$3" v rc
    case $tool in
        minimal)
            mpi "$btl" "$WORK/pingpong" "$COUNT" 1 > "$WORK/$tag.log" 2>&1
            rc=$?
            v=$(awk 'NF == 1 { print $1; exit }' "$WORK/$tag.log") ;;
        NPopenmpi)
            if ! command -v NPopenmpi > /dev/null; then record "mpi_${btl}_us" NPopenmpi "$r" NA "not installed"; return; fi
            (cd "$WORK" && mpi "$btl" NPopenmpi -l 1 -u 1 -o "$WORK/$tag.np" > "$WORK/$tag.log" 2>&1)
            rc=$?
            v=$(awk 'NR == 1 { printf "%.4f\n", $NF * 1e6 }' "$WORK/$tag.np" 2>/dev/null) ;; # seconds -> us
        ngx | ngx-batch)
            local timing=per-sample
            [[ $tool == ngx-batch ]] && timing=batch
            mpi "$btl" "$NGX" -m mpi -x pingpong -s 1 -c "$COUNT" --pingpong-timing "$timing" -o "$WORK/$tag.json" \
                > "$WORK/$tag.log" 2>&1
            rc=$?
            v=$(ngx_median "$WORK/$tag.json" 1) ;;
    esac
    record_run "mpi_${btl}_us" "$tool" "$r" "$rc" "$v" "$tag"
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "ngx bench: MPI 1-byte ping-pong over $BTLS, $ROUNDS rounds, count $COUNT; load average $LOAD_START" >&2
TOOLS=(ngx minimal ngx-batch NPopenmpi)
for ((r = 1; r <= ROUNDS; r++)); do
    echo "round $r/$ROUNDS" >&2
    for btl in $BTLS; do
        for ((k = 0; k < ${#TOOLS[@]}; k++)); do
            run_tool "${TOOLS[$(( (k + r - 1) % ${#TOOLS[@]} ))]}" "$btl" "$r"
        done
    done
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

export BENCH_ROUNDS=$ROUNDS BENCH_COUNT=$COUNT BENCH_BTLS="$BTLS" BENCH_LOAD_START="$LOAD_START" \
    BENCH_LOAD_END="$LOAD_END" BENCH_OUT="$OUT" BENCH_LOGS="" \
    BENCH_V_NGX="$(timeout 10 "$NGX" --version 2>/dev/null | head -n 1)" \
    BENCH_V_OPENMPI="$(pkg_version libopenmpi3)" BENCH_V_NETPIPE="$(pkg_version netpipe-openmpi)"
python3 "$HERE/../report.py" mpi "$SAMPLES"
