#!/bin/bash
# -x loghssp under mpirun: 4 ranks of the mpi module on this machine as two
# emulated nodes (--host-of a,a,b,b; on a real cluster: mpirun -np 4 --map-by
# ppr:2:node, the host names tell the tiers). Both tiers measured in one
# run, checked as in loghssp-local.sh (loghssp-check.py). Skipped
# without mpirun or the mpi module.
source "$(dirname "$0")/common.sh"
have_mpi || skip "mpirun or the mpi module is missing (MPI not found at configure time)"
flock -w 300 /tmp/ngx-net.lock timeout -k 5 180 "${MPIRUN_LOCAL[@]}" --mca btl self,vader --mca mpi_yield_when_idle 1 \
    -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -np 4 \
    "$NGX" -m mpi -x loghssp --host-of a,a,b,b -s 1,1Ki,16Ki -c 60 --warmup 10 -o "$SCRATCH/run.json" \
    >"$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "the run under mpirun failed"; }
sed -n '/^# LoGH/,$p' "$SCRATCH/out.txt"
python3 "$(dirname "$0")/loghssp-check.py" "$SCRATCH/run.json" "$NGX" "$SCRATCH" --pairs 1,0,2,0 ||
    fail "the run's tiers do not hold"
