#!/bin/bash
# A real program no one here wrote under the tracer and `ngx trace analyze`:
# HPC Challenge (Debian's hpcc; HPL is a Gaussian elimination) with a small
# input (N = 120) on 4 ranks over vader. Checks what holds on a loaded
# 2-core machine (check_hpcc.py): every call replayed, unmodelled events
# counted, each rank's prediction the sum of its parts and not below its
# computation, the what-if S = inf without sender synchronization, the JSON
# conforming to the schema; a truncated rank file exits 2. T_p against T_m
# is not asserted: 4 ranks busy-polling on 2 shared cores spend most of
# their MPI time descheduled, which LogGPS does not contain (docs/trace.md,
# "A real program"); bench/trace/real-program.sh measures it.
# Arguments: common.sh's, then ngx. Exits 77 when hpcc is not installed.
source "$(dirname "$0")/common.sh"
NGX=$1
here=$(dirname "$0")
command -v hpcc >/dev/null || skip "hpcc not installed (apt-get install hpcc; tools/test-deps.sh does)"
bash "$NGX_SOURCE_ROOT/bench/trace/hpccinf.sh" 120 4 >"$SCRATCH/hpccinf.txt" || fail "hpccinf.sh"
(cd "$SCRATCH" && trace_mpirun "$SCRATCH/t" 4 -- hpcc) >"$SCRATCH/out" 2>&1 || fail "mpirun hpcc: $(tail -5 "$SCRATCH/out")"
grep -q 'Success=1' "$SCRATCH/hpccoutf.txt" || fail "hpcc did not succeed: $(tail -5 "$SCRATCH/hpccoutf.txt")"
timeout 60 "$TRACE_DUMP" "$SCRATCH/t" >"$SCRATCH/dump" || fail "ngx-trace-dump exit $?"
timeout 120 "$NGX" trace analyze "$SCRATCH/t" --params "$here/params-vader.json" -o "$SCRATCH/a.json" \
    >"$SCRATCH/table" 2>"$SCRATCH/err" || fail "analyze exit $?: $(cat "$SCRATCH/err")"
head -9 "$SCRATCH/table"
timeout 120 "$NGX" trace analyze "$SCRATCH/t" --params "$here/params-vader.json" --set S=inf -o "$SCRATCH/w.json" \
    >/dev/null 2>"$SCRATCH/err" || fail "--set S=inf: exit $?: $(cat "$SCRATCH/err")"
python3 "$here/check_hpcc.py" "$SCRATCH/dump" "$SCRATCH/a.json" "$SCRATCH/w.json" || exit 1
if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
        "$NGX_SOURCE_ROOT/schema/ngx-trace-analysis.schema.json" "$SCRATCH/a.json" || fail "a.json does not conform to the schema"
fi
size=$(stat -c %s "$SCRATCH/t/rank-00001.ngxt")
truncate -s $((size - 40)) "$SCRATCH/t/rank-00001.ngxt"
timeout 60 "$NGX" trace analyze "$SCRATCH/t" --params "$here/params-vader.json" >/dev/null 2>"$SCRATCH/err"
rc=$?
[[ $rc -eq 2 ]] || fail "a truncated rank file: exit $rc, expected 2 ($(cat "$SCRATCH/err"))"
echo "truncated rank file: exit 2: $(cat "$SCRATCH/err")"
echo "PASS: hpcc's trace replayed event for event, unmodelled events counted"
