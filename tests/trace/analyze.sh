#!/bin/bash
# phases.c (4 ranks) under the tracer, then `ngx trace analyze` with the
# hand-written LogGPS parameters params-slow.json: predicted overhead,
# sender and receiver synchronization within 5 % of check_analyze.py's hand
# computation (Ino et al. 2001, Tables 3 and 4), and the what-if
# --set S=1048576 (every message eager) changing them and the run time as the
# hand computation says. The JSON is checked against
# schema/ngx-trace-analysis.schema.json when python3-jsonschema is there.
# Arguments: common.sh's, then ngx and phases.
source "$(dirname "$0")/common.sh"
NGX=$1 PHASES=$2
here=$(dirname "$0")
trace_mpirun "$SCRATCH/t" 4 -- "$PHASES" 600 >"$SCRATCH/out" 2>&1 || fail "mpirun: $(tail -5 "$SCRATCH/out")"
timeout 60 "$NGX" trace analyze "$SCRATCH/t" --params "$here/params-slow.json" -o "$SCRATCH/a.json" \
    >"$SCRATCH/table" 2>"$SCRATCH/err" || fail "analyze exit $?: $(cat "$SCRATCH/err")"
cat "$SCRATCH/table"
python3 "$here/check_analyze.py" "$here/params-slow.json" "$SCRATCH/a.json" "$SCRATCH/out" ||
    fail "the analysis differs from the hand computation"
timeout 60 "$NGX" trace analyze "$SCRATCH/t" --params "$here/params-slow.json" --set S=1048576 \
    --format csv -o "$SCRATCH/w.json" >"$SCRATCH/w.csv" 2>"$SCRATCH/err" || fail "--set S: exit $?: $(cat "$SCRATCH/err")"
python3 "$here/check_analyze.py" "$here/params-slow.json" "$SCRATCH/w.json" "$SCRATCH/out" 1048576 ||
    fail "the what-if differs from the hand computation"
grep -q '^what_if,total,' "$SCRATCH/w.csv" || fail "the CSV has no what_if total row"
# Each rank's CPU use between MPI_Init and MPI_Finalize, and the verdict on it:
# 4 ranks on a host of fewer CPUs are named; the table prints the verdict.
python3 - "$SCRATCH/a.json" "$(getconf _NPROCESSORS_ONLN)" <<'PY' || fail "the CPU verdict of the analysis"
import json, sys
a, cpus = json.load(open(sys.argv[1])), int(sys.argv[2])
cpu = a["cpu_use"]
assert sorted(r["rank"] for r in cpu["ranks"]) == [0, 1, 2, 3], cpu["ranks"]
for r in cpu["ranks"]:
    assert r["wall_s"] > 0 and 0 <= r["cpu_s"] <= 1.1 * r["wall_s"] + 0.05 and r["cpus_online"] == cpus, r
assert cpu["cpu_bound"] == (cpus < 4) or any("waited" in why for why in cpu["reasons"]), cpu
assert (cpus < 4) == any("4 ranks share the" in why for why in cpu["reasons"]), cpu["reasons"]
PY
grep -q "^# warning: the CPUs, not the network\|^# CPUs: 4 ranks" "$SCRATCH/table" || fail "no CPU line in the table"
if python3 -c 'import jsonschema' 2>/dev/null; then
    for f in a w; do
        python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
            "$NGX_SOURCE_ROOT/schema/ngx-trace-analysis.schema.json" "$SCRATCH/$f.json" ||
            fail "$f.json does not conform to the schema"
    done
    echo "both analyses conform to schema/ngx-trace-analysis.schema.json"
fi
echo "PASS: overhead, sender and receiver sync and the S what-if within 5 % of the hand computation"
