#!/bin/bash
# A rank killed mid-run (SIGKILL of rank 1) ends the job within the deadline
# (--timeout 5) plus mpirun's teardown, for mpi and tcp, and the survivor
# (rank 0, the driver) fails as ngx fails: it names the step (module,
# pattern, size, repetition) and the side that noticed, and ends the job
# with exit code 1 (MPI_Abort(1)). mpirun itself exits with the victim's
# status (137, SIGKILL), so the survivor's code is read from mpirun's report.
# Any other signal (a crash, an ASan or UBSan abort of the survivor) fails.
#
# Open MPI 4.1's mpirun itself sometimes dies of SIGSEGV while it tears the
# job down (in its PMIx log handler, orte_rml_oob_send_buffer_nb, as rank 0's
# MPI_Abort message arrives after rank 1's connection was lost; seen once in
# CI, 2026-11-26). That is the launcher, not ngx: bash then reports the
# mpirun command itself as killed by the signal, and the survivor's report
# is lost with it. Such a run is measured once more; a second one fails.
source "$(dirname "$0")/common.sh"
# launcher_crashed: the mpirun process (not a rank) died of a signal.
launcher_crashed() {
    grep -Eq 'Segmentation fault.*timeout .*mpirun' "$SCRATCH/log"
}
for run in tcp tcp-again mpi mpi-again; do
    module=${run%-again}
    if [[ $run == *-again ]]; then
        launcher_crashed || continue
        echo "$module: Open MPI's mpirun crashed in its own teardown; measured once more"
    fi
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
    echo "$module: exit $rc, ${ms} ms after the kill; log:"
    sed 's/^/    /' "$SCRATCH/log"
    [[ $rc != 0 ]] || fail "$module: exit 0 after a killed rank"
    [[ $rc != 124 ]] || fail "$module: the job hung (killed by timeout after $MPI_TIMEOUT s)"
    ((ms < 15000)) || fail "$module: took ${ms} ms (deadline 5 s + teardown)"
    ! grep -Eq 'AddressSanitizer|runtime error:' "$SCRATCH/log" || fail "$module: a sanitizer reported an error"
    if launcher_crashed && [[ $run == "$module" ]]; then
        continue # judged by the run once more
    fi
    ! grep -q 'Segmentation fault' "$SCRATCH/log" || fail "$module: a crash reported an error"
    ! grep -Eq 'rank 0 .*exited on signal' "$SCRATCH/log" || fail "$module: the survivor (rank 0) died of a signal"
    grep -Eq "^ngx( \(rank [0-9]+\))?: $module pingpong: size 1 B, repetition [0-9]+.*($module (send|recv|receive)|stuck in step).*peer" "$SCRATCH/log" ||
        fail "$module: the survivor did not report the step (size 1 B, repetition N), side and peer"
    tr '\n' ' ' <"$SCRATCH/log" | grep -Eq 'MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD +with errorcode 1\.' ||
        fail "$module: the survivor did not end the job with exit code 1 (MPI_Abort(1))"
done
echo PASS
