#!/bin/bash
# run.sh: the variant ladders (from the minimal program to ngx, one step at a
# time, each step's cost measured) side by side, interleaved, with the
# same CPU placement: for shm, shm_ladder's steps (batch, clock, tsc, pause, ring,
# ring4k (the ring with 4 KiB instead of 64 KiB), ops, oldwait, spinwait) and `ngx -m shm -x pingpong` timed per sample and
# in batches; for MPI (vader), mpi_ladder's steps (batch, wtime, tsc, ops,
# checks, funneled, threads) and `ngx -m mpi -x pingpong` both ways. Each round runs every step
# once, the order rotated by one place per round. Then, once, instruction
# counts with valgrind's callgrind (load-independent): per round trip of each
# shm step talking to itself (shm_ladder -S: nothing waits), and ngx's own
# timed loop (the callgrind self cost of its loop and, for MPI, of the
# module's send/recv, everything but the MPI library itself).
#
#     bench/ladder/run.sh [BUILD_DIR] [-r ROUNDS] [-n N] [-w W] [--cpus A,B]
#                         [--paths "shm mpi"] [--no-instructions] [-o FILE.json] [-l DIR]
#
# Prints the table of bench/README.md ("The ladder") with the load average.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build
rounds=5 iters=20000 warmup=1000 cpus=0,1 paths="shm mpi" instructions=1 out="" keep=""
usage() {
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
while [[ $# -gt 0 ]]; do
    case $1 in
    -r) rounds=${2:?}; shift 2 ;;
    -n) iters=${2:?}; shift 2 ;;
    -w) warmup=${2:?}; shift 2 ;;
    --cpus) cpus=${2:?}; shift 2 ;;
    --paths) paths=${2:?}; shift 2 ;;
    --no-instructions) instructions=0; shift ;;
    -o) out=${2:?}; shift 2 ;;
    -l) keep=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    -*) echo "run.sh: unknown option $1" >&2; usage ;;
    *) build=$(cd "$1" && pwd) || exit 2; shift ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ && $iters =~ ^[1-9][0-9]*$ && $warmup =~ ^[0-9]+$ ]] || usage
[[ $cpus =~ ^[0-9]+,[0-9]+$ ]] || { echo "run.sh: --cpus A,B expected, got '$cpus'" >&2; exit 2; }
cpu_a=${cpus%,*} cpu_b=${cpus#*,}
batch=100
(( iters >= batch )) || { echo "run.sh: -n must be at least $batch (one batch)" >&2; exit 2; }
ngx=$build/ngx
export NGX_MODULE_PATH=$build/modules NGX_PATTERN_PATH=$build/patterns
for f in "$ngx" "$build/bench/shm_ladder"; do
    [[ -x $f ]] || { echo "run.sh: $f not built (ninja -C $build)"; exit 1; }
done
if [[ -n $keep ]]; then
    mkdir -p "$keep" && work=$(cd "$keep" && pwd)
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
SAMPLES=$work/samples.tsv
: > "$SAMPLES"
TMO=120
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" >> "$SAMPLES"; }
is_number() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
load_start=$(load)

# ---- one step ---------------------------------------------------------------------

ngx_median() { python3 "$root/bench/report.py" ngx-median "$1" 1; }

# ngx's pingpong options: per sample, or in batches of $batch round trips.
ngx_args() {
    local common=(-x pingpong -s 1 --passes 1 --max-rel-ci off --format json)
    if [[ $1 == batch ]]; then
        echo "${common[*]} -c $((iters / batch)) --warmup $(((warmup + batch - 1) / batch)) --pingpong-timing batch --pingpong-batch $batch"
    else
        echo "${common[*]} -c $iters --warmup $warmup"
    fi
}

shm_step() { # STEP ROUND
    local step=$1 r=$2 log=$work/shm-$1-$2 value rc
    case $step in
    ngx | ngx-batch)
        # --cpus B,A: ngx's rank 0 times, as the minimal programs' -a side on B
        timeout "$TMO" "$ngx" -m shm $(ngx_args "${step#ngx-}") --cpus "$cpu_b,$cpu_a" -o "$log.json" > "$log.log" 2>&1
        rc=$?
        value=$([[ $rc == 0 ]] && ngx_median "$log.json")
        ;;
    *)
        local variant=$step ring=()
        [[ $step == ring4k ]] && variant=ring ring=(-R 4096) # the same ring, 64 cells instead of 1024
        timeout "$TMO" "$build/bench/shm_ladder" -v "$variant" "${ring[@]}" -a "$cpu_b" -b "$cpu_a" -w "$warmup" \
            -n "$iters" -B "$batch" > "$log.log" 2>&1
        rc=$?
        value=$(awk '!/^#/ {print $2}' "$log.log")
        ;;
    esac
    if [[ $rc == 0 ]] && is_number "$value"; then record shm "$step" "$r" "$value"; else
        record shm "$step" "$r" NA "failed (exit $rc, see $log.log)"; fi
}

mpi() { # mpirun with the vader BTL, ranks bound to cores; serialised with other helpers
    flock /tmp/ngx-net.lock timeout -k 5 "$TMO" mpirun --allow-run-as-root -np 2 --bind-to core \
        --mca btl self,vader -x NGX_MODULE_PATH -x NGX_PATTERN_PATH "$@"
}

mpi_step() { # STEP ROUND
    local step=$1 r=$2 log=$work/mpi-$1-$2 value rc
    case $step in
    ngx | ngx-batch)
        mpi "$ngx" -m mpi $(ngx_args "${step#ngx-}") -o "$log.json" > "$log.log" 2>&1
        rc=$?
        value=$([[ $rc == 0 ]] && ngx_median "$log.json")
        ;;
    *)
        mpi "$build/bench/mpi_ladder" -v "$step" -w "$warmup" -n "$iters" -B "$batch" > "$log.log" 2>&1
        rc=$?
        value=$(awk '!/^#/ && NF == 5 {print $2}' "$log.log")
        ;;
    esac
    if [[ $rc == 0 ]] && is_number "$value"; then record mpi "$step" "$r" "$value"; else
        record mpi "$step" "$r" NA "failed (exit $rc, see $log.log)"; fi
}

# Runs STEPS... once each, rotated by ROUND - 1 places.
rotated() { # FUNCTION ROUND STEPS...
    local fn=$1 r=$2
    shift 2
    local steps=("$@") n=$# k
    for ((k = 0; k < n; k++)); do
        "$fn" "${steps[$(((k + r - 1) % n))]}" "$r"
    done
}

shm_steps=(batch clock tsc pause ring ring4k ops oldwait spinwait ngx ngx-batch)
mpi_steps=(batch wtime tsc ops checks funneled threads ngx ngx-batch)
have_mpi=0
[[ -x $build/bench/mpi_ladder ]] && command -v mpirun > /dev/null && have_mpi=1
echo "ladder: rounds $rounds, $iters round trips (+ $warmup warm-up), batch $batch, cpus $cpu_a,$cpu_b; load $load_start"
for ((r = 1; r <= rounds; r++)); do
    [[ " $paths " == *" shm "* ]] && rotated shm_step "$r" "${shm_steps[@]}"
    if [[ " $paths " == *" mpi "* ]]; then
        if [[ $have_mpi == 1 ]]; then rotated mpi_step "$r" "${mpi_steps[@]}"; else
            record mpi ngx "$r" NA "no mpirun or mpi_ladder"; fi
    fi
done

# ---- instruction counts (once; callgrind, so independent of the load) ----------------

# Total instructions of a command under callgrind (children traced).
callgrind_total() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | awk '/Collected :/ {print $NF}' | tail -1
}

# Sum of the self cost, over the profiles PROFILES..., of the functions whose name matches REGEX.
self_cost() { # REGEX PROFILES...
    local regex=$1
    shift
    for p in "$@"; do callgrind_annotate --threshold=100 "$p" 2>/dev/null; done |
        awk -v re="$regex" '$0 ~ re {gsub(",", "", $1); s += $1} END {print s + 0}'
}

if [[ $instructions == 1 ]] && command -v valgrind > /dev/null; then
    if [[ " $paths " == *" shm "* ]]; then
        for step in "${shm_steps[@]}"; do
            [[ $step == ngx* || $step == ring4k ]] && continue
            a=$(callgrind_total "$build/bench/shm_ladder" -v "$step" -S -w 0 -n 10000 -B "$batch")
            b=$(callgrind_total "$build/bench/shm_ladder" -v "$step" -S -w 0 -n 30000 -B "$batch")
            is_number "$a" && is_number "$b" && record shm-instructions "$step" 0 "$(((b - a) / 20000))"
        done
        # ngx: its timed loop's own instructions per round trip (the module's send/recv
        # spin while waiting, so they are not counted here; the ladder's spinwait step
        # runs the module's code without waiting).
        rm -f "$work"/cg-shm.*
        valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$work/cg-shm.%p" \
            "$ngx" -m shm -x pingpong -s 1 -c 4000 --warmup 0 --passes 1 --max-rel-ci off --format json \
            -o "$work/cg-shm.json" > "$work/cg-shm.log" 2>&1
        loop=$(self_cost 'batched_loop' "$work"/cg-shm.[0-9]*)
        record shm-instructions ngx 0 "$((loop / 4000))"
    fi
    if [[ " $paths " == *" mpi "* && $have_mpi == 1 ]]; then
        # Everything of the driver's loop that is not the MPI library: ngx's loop and
        # the module's send/recv (ngx), the ladder's loop and its ops functions.
        rm -f "$work"/cg-mpi.*
        mpi valgrind --tool=callgrind --callgrind-out-file="$work/cg-mpi-ngx.%p" "$ngx" -m mpi -x pingpong -s 1 \
            -c 4000 --warmup 0 --passes 1 --max-rel-ci off --format json -o "$work/cg-mpi.json" > "$work/cg-mpi.log" 2>&1
        own=$(self_cost 'batched_loop|responder_loop|::mpi_send\(|::mpi_recv\(' "$work"/cg-mpi-ngx.[0-9]*)
        record mpi-instructions ngx 0 "$((own / 4000 / 2))"
        for step in tsc ops checks threads; do
            mpi valgrind --tool=callgrind --callgrind-out-file="$work/cg-mpi-$step.%p" "$build/bench/mpi_ladder" \
                -v "$step" -w 0 -n 4000 > /dev/null 2>&1
            own=$(self_cost 'time_side|echo_side|direct_send|direct_recv|branchy_send|branchy_recv|OpsLink' "$work"/cg-mpi-"$step".[0-9]*)
            record mpi-instructions "$step" 0 "$((own / 4000 / 2))"
        done
    fi
fi

export BENCH_LOAD_START=$load_start BENCH_LOAD_END=$(load) BENCH_ROUNDS=$rounds BENCH_ITERS=$iters \
    BENCH_BATCH=$batch BENCH_CPUS=$cpus BENCH_OUT=$out
python3 "$root/bench/report.py" ladder "$SAMPLES"
