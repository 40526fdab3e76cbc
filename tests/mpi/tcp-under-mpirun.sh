#!/bin/bash
# `mpirun -np 2 ngx -m tcp` measures raw TCP between the ranks with the MPI
# bootstrap, and `-m tcp,mpi` puts a comparison in the table and the JSON.
source "$(dirname "$0")/common.sh"
out=$SCRATCH/both.json
ngx_mpirun tcp -np 2 -- "$NGX" -m tcp,mpi -x pingpong -s 1,1Ki -c 300 -o "$out" >"$SCRATCH/log" 2>&1 ||
    { cat "$SCRATCH/log"; fail "mpirun ngx -m tcp,mpi"; }
cat "$SCRATCH/log"
grep -q "^# comparison" "$SCRATCH/log" || fail "no comparison table"
python3 - "$out" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["bootstrap"]["kind"] == "mpi", d["bootstrap"]
assert [r["module"] for r in d["runs"]] == ["tcp", "mpi"]
c = d["comparison"]
assert c["baseline"] == "tcp" and len(c["sizes"]) == 2, c
for row in c["sizes"]:
    v = row["values"]
    assert v[0]["median_us"] > 0 and v[1]["median_us"] > 0 and v[1]["ratio"] > 0, row
print("comparison ok")
PY
"$NGX" compare "$out" >"$SCRATCH/cmp" || fail "ngx compare on the saved file"
grep -q "ratio" "$SCRATCH/cmp" || fail "ngx compare printed no table"
echo PASS
