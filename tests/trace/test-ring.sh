#!/bin/bash
# ring.c with 4 ranks under the tracer: ngx-trace-dump accepts the trace and
# shows per rank exactly the calls ring.c made (check_ring.py: counts per
# kind, world-rank peers, bytes, tags, request ids matching their waits, the
# wildcard's resolved source, call <= return, both clock alignments).
source "$(dirname "$0")/common.sh"
trace_mpirun "$SCRATCH/t" 4 -- "$RING" >"$SCRATCH/out" 2>&1 || fail "mpirun: $(tail -5 "$SCRATCH/out")"
"$TRACE_DUMP" "$SCRATCH/t" >"$SCRATCH/text" 2>"$SCRATCH/err" || fail "dump (text) exit $?: $(cat "$SCRATCH/err")"
"$TRACE_DUMP" --json "$SCRATCH/t" >"$SCRATCH/json" 2>"$SCRATCH/err" || fail "dump exit $?: $(cat "$SCRATCH/err")"
[[ -s $SCRATCH/err ]] && fail "dump warned: $(cat "$SCRATCH/err")"
head -3 "$SCRATCH/text"
python3 "$(dirname "$0")/check_ring.py" 4 <"$SCRATCH/json" || fail "the trace does not show ring.c's calls"
echo "PASS: 4 ranks, every call of ring.c traced"
