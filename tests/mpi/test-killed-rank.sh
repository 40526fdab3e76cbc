#!/bin/bash
# A rank killed mid-run ends the job with a non-zero exit within the
# deadline (--timeout 5) plus mpirun's teardown, for mpi and tcp.
source "$(dirname "$0")/common.sh"
for module in mpi tcp; do
    ngx_mpirun tcp -np 2 -- "$NGX" -m "$module" -x pingpong -s 1 -c 10000000 --timeout 5 >"$SCRATCH/log" 2>&1 &
    job=$!
    sleep 2
    victim=
    for p in $(pgrep -x ngx); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" || continue
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "NGX_MODULE_PATH=$NGX_MODULE_PATH" && victim=$p
    done
    [[ -n $victim ]] || { kill "$job"; fail "$module: rank 1 not found"; }
    start=$(date +%s%N)
    kill -9 "$victim"
    wait "$job"
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    echo "$module: exit $rc, ${ms} ms after the kill"
    [[ $rc != 0 ]] || fail "$module: exit 0 after a killed rank"
    ((ms < 15000)) || fail "$module: took ${ms} ms (deadline 5 s + teardown)"
done
echo PASS
