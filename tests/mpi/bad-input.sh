#!/bin/bash
# -m mpi without a launcher: a clear message and a non-zero exit; an odd
# number of ranks: exit 2 with a message; ngx compare on bad files: exit 2.
source "$(dirname "$0")/common.sh"
out=$(timeout 30 "$NGX" -m mpi -x pingpong -s 1 2>&1) && fail "-m mpi without mpirun succeeded"
echo "$out" | grep -q "module mpi needs to run under mpirun/srun" || { echo "$out"; fail "no clear message"; }
out=$(ngx_mpirun vader -np 3 -- "$NGX" -m tcp -x pingpong -s 1 2>&1)
rc=$?
[[ $rc == 2 ]] || { echo "$out"; fail "odd ranks: exit $rc, expected 2"; }
echo "$out" | grep -q "even number of ranks" || fail "odd ranks: no message"
"$NGX" compare /nonexistent.json /nonexistent2.json 2>/dev/null; [[ $? == 2 ]] || fail "compare: missing file"
echo "{" >"$SCRATCH/bad.json"
"$NGX" compare "$SCRATCH/bad.json" "$SCRATCH/bad.json" 2>/dev/null; [[ $? == 2 ]] || fail "compare: not JSON"
echo '{"a": 1}' >"$SCRATCH/bad2.json"
"$NGX" compare "$SCRATCH/bad2.json" "$SCRATCH/bad2.json" 2>/dev/null; [[ $? == 2 ]] || fail "compare: no fields"
echo PASS
