#!/bin/bash
# A pair that dies (SIGKILL of rank 3, pair 1's responder, with 2 pairs over
# tcp) ends the job within the deadline and rank 0 has written the JSON with
# the points done before (k = 1 points do not involve pair 1). Short points
# (a barrier before each round trip), many passes: the kill falls mid-run,
# once the first point is on the table.
# Exit: mpirun's status is that of the first rank that failed, here the one
# killed by SIGKILL: exactly 128 + 9 = 137 (the surviving ranks end with
# MPI_Abort(1), mpi_bootstrap.cpp; mpirun keeps the first failure).
# Time: mpirun ends the job as soon as it sees the dead rank; without that,
# rank 0 would fail its next barrier at the deadline (--timeout 5) and abort,
# and a failed rank other than 0 waits the deadline + 1 s (abort_lag_ns)
# before aborting itself. So at most timeout + 1 s + teardown: asserted
# <= timeout + 5 s.
source "$(dirname "$0")/common.sh"
need_mpirun
json=$SCRATCH/dead.json
nc_mpirun 4 -- "$NGX" -m tcp -x nodecomm --nodecomm-one-node -s 1,4,16,64,256,1Ki -c 2000 --warmup 10 \
    --nodecomm-passes 20 --timeout 5 -o "$json" >"$SCRATCH/log" 2>&1 &
job=$!
descends_from() { # PID ANCESTOR: this job's rank, not another run's
    local pid=$1
    while ((pid > 1)); do
        ((pid == $2)) && return 0
        pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null) || return 1
    done
    return 1
}
victim=
for _ in $(seq 2400); do # mpirun may wait for /tmp/ngx-net.lock first (another suite's run)
    sleep 0.1
    kill -0 "$job" 2>/dev/null || break
    for p in $(pgrep -x ngx); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=3" || continue
        descends_from "$p" "$job" && victim=$p
    done
    [[ -n $victim ]] && break
done
[[ -n $victim ]] || { kill "$job" 2>/dev/null; fail "rank 3 not found"; }
for _ in $(seq 600); do # the first point done (a row of the table), at most 60 s on a loaded machine
    grep -Eq '^ +[0-9]+ +[0-9]+(B|KiB) +[0-9]+ ' "$SCRATCH/log" && break
    sleep 0.1
done
start=$(date +%s%N)
kill -9 "$victim"
wait "$job"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "exit $rc, ${ms} ms after the kill; log:"
sed 's/^/    /' "$SCRATCH/log" | tail -30
[[ $rc == 137 ]] || fail "exit $rc after a dead pair, expected 137 (mpirun: a rank killed by SIGKILL)"
((ms <= 10000)) || fail "took ${ms} ms (deadline 5 s + at most 5 s)"
[[ -s $json ]] || fail "rank 0 wrote no JSON"
nc_py "$json" '
assert run["status"] == "error", run["status"]
done = len(run["results"])
why = run["error"]
print(f"json: status error, {done} points written: {why}")
assert done >= 1, "no point written"
' || fail "the JSON of the dead run"
echo PASS
