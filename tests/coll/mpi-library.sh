#!/usr/bin/env bash
# --coll-algorithm library over the mpi module (ABI 1.6 collective): the MPI
# library's own collective of every operation runs over P = 3 ranks under
# mpirun, each row names Open MPI's tuned choice and carries its prediction
# where ngx models that choice; the JSON conforms to the schema; a module
# without the library's collectives (sim) is refused with exit 2.
source "$(dirname "$0")/common.sh"
command -v mpirun >/dev/null || skip "needs mpirun (install openmpi-bin)"
"$NGX" --list-modules 2>/dev/null | grep -qw mpi || [[ -e $NGX_MODULE_PATH/ngx_mpi.so ]] ||
    skip "the mpi module is not built"
cat >"$SCRATCH/model.json" <<'JSON'
{"pattern": "loggp", "model": {"kind": "loggp", "ranges": [
  {"from_bytes": 1, "to_bytes": 1048576, "L_us": 5, "o_us": 1, "g_us": 2, "G_us_per_byte": 0.001}]}}
JSON
for op in bcast reduce allreduce allgather alltoall gather scatter barrier; do
    coll_run 3 "$SCRATCH/out.txt" -m mpi -x coll --coll-op "$op" --coll-algorithm library -s 8,4Ki -c 5 --warmup 1 \
        --timeout 20 --coll-params "$SCRATCH/model.json" -o "$SCRATCH/$op.json" ||
        { cat "$SCRATCH/out.txt"; fail "the library's $op failed"; }
    python3 - "$SCRATCH/$op.json" "$op" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
run = d.get("runs", [d])[0]
rows = run["model"]["rows"]
op = sys.argv[2]
if run["status"] != "complete" or len(rows) != 2:
    sys.exit("FAIL: %s: status %s, %d rows" % (op, run["status"], len(rows)))
for r in rows:
    if r["algorithm"] != "library" or r["op"] != op or r["P"] != 3 or not r["median_us"] > 0:
        sys.exit("FAIL: %s: row %s" % (op, r))
    if "predicted_algorithm" not in r or (r["predicted_algorithm"] is None) != (r["predicted_us"] is None):
        sys.exit("FAIL: %s: a prediction without its algorithm, or the reverse: %s" % (op, r))
print("ok: the library's %s over P = 3: %s" % (op, ", ".join("%d B %.3g us (predicted as %s: %s)" % (
    r["bytes"], r["median_us"], r["predicted_algorithm"], r["predicted_us"]) for r in rows)))
PY
    python3 "$NGX_SOURCE_ROOT/schema/validate.py" "$SCRATCH/$op.json" || fail "the library's $op: JSON beyond the schema"
done
coll_run 4 "$SCRATCH/out.txt" -m sim --sim-clock virtual -x coll --coll-algorithm library -s 8 -c 2
rc=$?
[[ $rc == 2 ]] && grep -q "has no collectives of its own" "$SCRATCH/out.txt" ||
    { cat "$SCRATCH/out.txt"; fail "sim with --coll-algorithm library: exit $rc, expected 2 naming it"; }
echo "ok: sim refused with exit 2: no collectives of its own"
