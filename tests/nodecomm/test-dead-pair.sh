#!/bin/bash
# A pair that dies (SIGKILL of rank 3, pair 1's responder, with 2 pairs over
# tcp) ends the job within the deadline (--timeout 5, plus mpirun's
# teardown) with a non-zero exit, and rank 0 has written the JSON with the
# points done before (k = 1 points do not involve pair 1). Short points
# (a barrier before each round trip), many passes: the kill falls mid-run.
source "$(dirname "$0")/common.sh"
need_mpirun
json=$SCRATCH/dead.json
nc_mpirun 4 -- "$NGX" -m tcp -x nodecomm --nodecomm-one-node -s 1,4,16,64,256,1Ki -c 2000 --warmup 10 \
    --nodecomm-passes 20 --timeout 5 -o "$json" >"$SCRATCH/log" 2>&1 &
job=$!
victim=
for _ in $(seq 100); do
    sleep 0.1
    for p in $(pgrep -x ngx); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=3" || continue
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "NGX_PATTERN_PATH=$NGX_PATTERN_PATH" && victim=$p
    done
    [[ -n $victim ]] && break
done
[[ -n $victim ]] || { kill "$job"; fail "rank 3 not found"; }
sleep 3 # a few points done
start=$(date +%s%N)
kill -9 "$victim"
wait "$job"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "exit $rc, ${ms} ms after the kill; log:"
sed 's/^/    /' "$SCRATCH/log" | tail -30
[[ $rc != 0 ]] || fail "exit 0 after a dead pair"
[[ $rc != 124 ]] || fail "the job hung"
((ms < 20000)) || fail "took ${ms} ms (deadline 5 s + teardown)"
[[ -s $json ]] || fail "rank 0 wrote no JSON"
nc_py "$json" '
assert run["status"] == "error", run["status"]
done = len(run["results"])
why = run["error"]
print(f"json: status error, {done} points written: {why}")
assert done >= 1, "no point written"
' || fail "the JSON of the dead run"
echo PASS
