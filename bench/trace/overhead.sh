#!/usr/bin/env bash
# The tracer's cost per event, side by side: N MPI_Test calls on a pending
# receive (tests/trace/ring.c --test-loop, one rank) without and with
# libngx-trace.so, RUNS times each, interleaved; prints the min ns per call
# of each and their difference (the overhead per traced event).
#
#     bench/trace/overhead.sh BUILD/tools/trace/ngx-trace-run BUILD/tests/trace/ring [N [RUNS]]
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: overhead.sh NGX-TRACE-RUN RING [N [RUNS]]" >&2; exit 2; }
run=$1 ring=$2 n=${3:-100000} runs=${4:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpi=(mpirun --bind-to none --oversubscribe --mca oob_tcp_if_include lo --mca btl self,vader -np 1)
one() { # plain|traced: ns per MPI_Test of one run
    local out
    if [[ $1 == plain ]]; then
        out=$(timeout 60 "${mpi[@]}" "$ring" --test-loop "$n")
    else
        out=$(timeout 60 bash "$run" -o "$dir/t" -- "${mpi[@]}" "$ring" --test-loop "$n")
    fi
    awk '/^ns_per_test/ {print $2}' <<<"$out"
}
plain=() traced=()
for _ in $(seq "$runs"); do
    plain+=("$(one plain)")
    traced+=("$(one traced)")
done
min() { printf '%s\n' "$@" | sort -g | head -1; }
p=$(min "${plain[@]}") t=$(min "${traced[@]}")
printf '%-22s %10s ns   (runs: %s)\n' "MPI_Test untraced" "$p" "${plain[*]}"
printf '%-22s %10s ns   (runs: %s)\n' "MPI_Test traced" "$t" "${traced[*]}"
awk -v t="$t" -v p="$p" -v n="$n" -v r="$runs" \
    'BEGIN { printf "overhead per event %10.1f ns   (%d calls, min of %d runs)\n", t - p, n, r }'
