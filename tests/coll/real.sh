#!/usr/bin/env bash
# ngx's own collectives in real time over a module without non-blocking
# calls (tcp, shm: 4 local ranks): every algorithm of allreduce, allgather
# and alltoall at 8 B and at 1 MiB, whose exchanges do not fit shm's 64 KiB
# rings or a loopback socket's buffers. A rank sends first only to a higher
# rank (fit::receives_first_at), so no exchange can deadlock: every row is
# measured, the run complete. Timing is not asserted (real time, shared
# CPUs); the reductions' sums are, by the pattern itself.
#     real.sh MODULE
source "$(dirname "$0")/common.sh"
MODULE=$1
for op in allreduce allgather alltoall; do
    out=$SCRATCH/$op.json
    coll_run 4 "$SCRATCH/out.txt" -m "$MODULE" -x coll --coll-op "$op" -s 8,1Mi -c 2 --warmup 1 --timeout 20 -o "$out" ||
        { cat "$SCRATCH/out.txt"; fail "$MODULE $op: the run failed"; }
    python3 - "$out" "$op" "$MODULE" <<'PY' || exit 1
import json, sys
out, op, module = sys.argv[1:4]
run = json.load(open(out)).get("runs", [None])[0] or json.load(open(out))
if run["status"] != "complete":
    sys.exit("FAIL: %s %s: status %s: %s" % (module, op, run["status"], run.get("error")))
rows = run["model"]["rows"]
algorithms = {r["algorithm"] for r in rows}
sizes = {r["bytes"] for r in rows}
if len(rows) != 2 * len(algorithms) or sizes != {8, 1 << 20} or any(not r["median_us"] > 0 for r in rows):
    sys.exit("FAIL: %s %s: rows %s" % (module, op, rows))
print("ok: %s %s over 4 ranks: %d algorithms (%s) at 8 B and 1 MiB" % (module, op, len(algorithms), ", ".join(sorted(algorithms))))
PY
done
echo PASS
