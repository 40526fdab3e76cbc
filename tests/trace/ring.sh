#!/bin/bash
# ring.c with 4 ranks under the tracer: ngx-trace-dump accepts the trace and
# shows per rank exactly the calls ring.c made (check_ring.py: counts per
# kind, world-rank peers, bytes, tags, request ids matching their waits, the
# wildcard's resolved source, call <= return, both clock alignments).
# Again with a 7-record buffer: hundreds of flushes, some between a Waitall
# and its completion records. With a fourth argument (the tracer built with
# ASan and UBSan) and LIBASAN (the ASan runtime) set, a third run preloads
# that tracer, with the runtime first.
source "$(dirname "$0")/common.sh"
check() { # NAME: the dump of $SCRATCH/NAME passes check_ring.py, without warnings
    "$TRACE_DUMP" --json "$SCRATCH/$1" >"$SCRATCH/json" 2>"$SCRATCH/err" || fail "$1: dump exit $?: $(cat "$SCRATCH/err")"
    [[ -s $SCRATCH/err ]] && fail "$1: dump warned: $(cat "$SCRATCH/err")"
    python3 "$(dirname "$0")/check_ring.py" 4 <"$SCRATCH/json" || fail "$1: the trace does not show ring.c's calls"
}
trace_mpirun "$SCRATCH/t" 4 -- "$RING" >"$SCRATCH/out" 2>&1 || fail "mpirun: $(tail -5 "$SCRATCH/out")"
"$TRACE_DUMP" "$SCRATCH/t" >"$SCRATCH/text" 2>&1 || fail "dump (text) exit $?: $(tail -3 "$SCRATCH/text")"
head -3 "$SCRATCH/text"
check t
trace_mpirun "$SCRATCH/small" 4 -b 7 -- "$RING" >"$SCRATCH/out" 2>&1 || fail "-b 7: mpirun: $(tail -5 "$SCRATCH/out")"
check small >/dev/null
echo "with a 7-record buffer: $(grep -c '"kind":"flush"' "$SCRATCH/json") flush records, the same calls"
if [[ $# -ge 1 && -n ${LIBASAN:-} && -f ${LIBASAN:-} ]]; then
    flock /tmp/ngx-net.lock timeout -k 5 "$MPI_TIMEOUT" mpirun --bind-to none --oversubscribe \
        --mca oob_tcp_if_include lo --mca btl self,vader -np 4 -x LD_PRELOAD="$LIBASAN:$1" \
        -x NGX_TRACE_DIR="$SCRATCH/asan" -x NGX_TRACE_BUFFER_EVENTS=7 -x ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
        -x UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$RING" >"$SCRATCH/out" 2>&1 ||
        fail "the tracer built with ASan and UBSan: $(tail -20 "$SCRATCH/out")"
    check asan >/dev/null
    echo "the tracer built with ASan and UBSan (7-record buffer): no report, the same calls"
fi
echo "PASS: 4 ranks, every call of ring.c traced"
