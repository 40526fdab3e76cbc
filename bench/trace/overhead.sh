#!/usr/bin/env bash
# The tracer's cost per event, side by side: N MPI_Test calls on a pending
# receive (tests/trace/ring.c --test-loop, one rank) without the tracer, with
# it and its default buffer (65536 records: the flushes' writes amortised over
# the events), and with a buffer larger than N (recording only), RUNS times
# each, interleaved; prints the min ns per call of each and the differences.
#
#     bench/trace/overhead.sh BUILD/tools/trace/ngx-trace-run BUILD/tests/trace/ring [N [RUNS]]
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: overhead.sh NGX-TRACE-RUN RING [N [RUNS]]" >&2; exit 2; }
run=$1 ring=$2 n=${3:-100000} runs=${4:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpi=(mpirun --bind-to none --oversubscribe --mca oob_tcp_if_include lo --mca btl self,vader -np 1)
one() { # plain|traced|unflushed: ns per MPI_Test of one run
    local out
    case $1 in
        plain) out=$(timeout 60 "${mpi[@]}" "$ring" --test-loop "$n") ;;
        traced) out=$(timeout 60 bash "$run" -o "$dir/t" -- "${mpi[@]}" "$ring" --test-loop "$n") ;;
        unflushed) out=$(timeout 60 bash "$run" -o "$dir/t" -b $((n + 16)) -- "${mpi[@]}" "$ring" --test-loop "$n") ;;
    esac
    awk '/^ns_per_test/ {print $2}' <<<"$out"
}
declare -A all=()
for _ in $(seq "$runs"); do
    for kind in plain traced unflushed; do
        all[$kind]+="$(one $kind) "
    done
done
min() { tr ' ' '\n' <<<"$1" | grep . | sort -g | head -1; }
p=$(min "${all[plain]}") t=$(min "${all[traced]}") u=$(min "${all[unflushed]}")
printf '%-34s %8s ns   (runs: %s)\n' "MPI_Test untraced" "$p" "${all[plain]}"
printf '%-34s %8s ns   (runs: %s)\n' "MPI_Test traced, default buffer" "$t" "${all[traced]}"
printf '%-34s %8s ns   (runs: %s)\n' "MPI_Test traced, no flush in loop" "$u" "${all[unflushed]}"
awk -v t="$t" -v u="$u" -v p="$p" -v n="$n" -v r="$runs" 'BEGIN {
    printf "overhead per event %10.1f ns   (%d calls, min of %d runs; flushes included)\n", t - p, n, r
    printf "recording only     %10.1f ns\n", u - p }'
