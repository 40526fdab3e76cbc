#!/bin/bash
# peer-stuck.sh stop|kill: two ranks under mpirun (tcp BTL on loopback);
# once the first size is reported, rank 1 (the responder) is stopped
# (SIGSTOP: alive but silent, the case that hung -m mpi with the default
# --mpi-progress block) or killed (SIGKILL). For -m mpi and -m tcp the job
# must end with exit 1 within --timeout + 1 s + the launcher's slack, the
# message must name the step, the size and the side, and rank 0's -o JSON
# must hold the sizes done with status "error".
# A killed rank: mpirun sees it die and ends the job (SIGTERM to rank 0, then
# its own exit code 137); rank 0 must still name where it was and write its
# files (a rank stuck in MPI when the SIGTERM comes: the watchdog does).
# Launcher slack: see fault-common.sh.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/fault-common.sh"
fault=${1:?usage: peer-stuck.sh stop|kill}
case $fault in
# A stopped rank: mpirun's teardown after MPI_Abort waits for it to take its
# SIGCONT and SIGTERM; measured 1.0-1.3 s on loopback, up to 3.4 s in 3 of
# about 20 runs on 2026-11-26 (CI once: exit 6.68 s after the fault, the
# JSON written in time). ngx's own part keeps its limit (fault-common.sh).
stop) signal=STOP LAUNCHER_SLACK_MS=3000 ;;
kill) signal=KILL FAULT_KILLED_RANK=1 ;; # mpirun itself exits 137 when it sees the killed rank first
*) fail "unknown fault '$fault'" ;;
esac
timeout_s=3
for module in mpi tcp; do
    out=$SCRATCH/$module.out err=$SCRATCH/$module.err json=$SCRATCH/$module.json
    ngx_mpirun tcp -np 2 --mca mpi_yield_when_idle 1 -- "$NGX" -m "$module" -x pingpong -s 1-1Ki -c 5000 --passes 1 --max-rel-ci off --warmup 10 \
        --timeout "$timeout_s" -o "$json" >"$out" 2>"$err" </dev/null &
    job=$!
    wait_first_size "$out" "$job" || fail "$module: no size reported before the fault: $(tail -5 "$err")"
    victim=$(rank_pid 1) || { kill "$job"; fail "$module: rank 1 not found"; }
    start=$(date +%s%N)
    kill -"$signal" "$victim"
    wait "$job"
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    kill -KILL "$victim" 2>/dev/null # never leave a stopped rank behind
    echo "$module, SIG$signal: exit $rc after $ms ms; stderr:"
    grep -v '^$' "$err" | head -8
    check_fault_outcome "$module" "$rc" "$ms" "$timeout_s" "$err" "$json" "$start"
done
echo PASS
