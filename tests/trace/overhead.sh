#!/bin/bash
# The tracer's cost per event: bench/trace/overhead.sh runs 1e5 MPI_Test
# calls on a pending receive with and without the tracer (min of 5 runs) and
# prints both. Reported, not asserted (2 shared cores): the test fails only
# if a run fails or prints no number.
source "$(dirname "$0")/common.sh"
out=$(flock /tmp/ngx-net.lock bash "$NGX_SOURCE_ROOT/bench/trace/overhead.sh" "$TRACE_RUN" "$RING" 100000 5) ||
    fail "overhead.sh: $out"
echo "$out"
grep -Eq '^overhead per event +-?[0-9.]+ ns' <<<"$out" || fail "no overhead figure"
