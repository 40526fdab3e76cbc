#!/usr/bin/env bash
# The strided pattern over one transport (tcp, mpi-vader, mpi-tcp):
#  - d = 1 costs what the contiguous ping-pong costs (within noise);
#  - d = 64 is slower than d = 1 at the largest size (128 KiB);
#  - T_0,0 goes through the module (mpi: to its own rank; tcp: the module's
#    loopback connection to its own process) and costs more than the copy
#    T_mem alone at every size;
#  - log3P (Cameron et al. 2007) predicts held-out (s, d) points: the mean
#    relative error of the leave-one-out predictions is printed, and beside it that
#    of the packed path (o_net of strided transfers calibrated on the other
#    strides' remote times, fit/log3p.hpp), which is reported, not checked.
# The bounds depend on whether the machine was quiet during the run
# (1-minute load below its CPUs): quiet, d = 1 within 25% (or 3 us, or three
# times what two runs of the ping-pong differ by) of the ping-pong, held-out
# error under 10% (the goal for a real run; Cameron et al. 2007 report 5%)
# and log3P better than LogGP on the grid; loaded (other jobs on the 2 cores), 50%,
# 60% and no model ranking: the model must still not be broken.
# The held-out bound also grows by twice the noise measured in the same
# attempt: the largest relative difference between the strided d = 1 and
# the ping-pong times of the same sizes (one transfer measured twice), so
# that the margin is what this machine shows now, not a constant from
# another one.
# Over shared memory (mpi-vader) the form of Cameron et al. 2007 is not
# accurate by construction: a contiguous message moves in one single copy while a
# derived datatype goes through copy-in/copy-out fragments, so o_net of
# contiguous transfers understates the network term of strided ones
# (measured 18-70% mean held-out error on this machine, 64-66% in three
# runs of one quiet CI). There the packed path is checked instead, the
# network term calibrated on strided transfers themselves (7-11% in those
# runs): 25% quiet and 100% loaded, without the ranking; the paper's form
# is printed beside it.
# A failed check is measured again, three attempts in all (timing noise, see below).
source "$(dirname "$0")/common.sh"
mode=$1
[[ $mode == tcp ]] || need_mpi
sizes=4Ki,8Ki,16Ki,32Ki,64Ki,128Ki

measure() {
    run_ngx "$mode" -x strided -s $sizes --strides 1,16,64 -c 100 -o "$SCRATCH/strided.json" \
        >"$SCRATCH/strided.txt" 2>&1 || { cat "$SCRATCH/strided.txt"; fail "strided run failed"; }
    # The ping-pong twice, with the strided run's count (a minimum over more
    # samples is lower by itself): how far two runs of one transfer differ
    # here widens the d = 1 check below.
    local i
    for i in 1 2; do
        run_ngx "$mode" -x pingpong -s 4Ki,64Ki,128Ki -c 100 -o "$SCRATCH/pp$i.json" >"$SCRATCH/pp.txt" 2>&1 ||
            { cat "$SCRATCH/pp.txt"; fail "pingpong run failed"; }
    done
    cp "$SCRATCH/pp1.json" "$SCRATCH/pp.json"
}

check() {
    local ok=0 load quiet tolerance noise=0
    load=$(py "$SCRATCH/strided.json" "d.get('load_average_1min', 99)")
    quiet=$(python3 -c "import os,sys; print(1 if float(sys.argv[1]) < os.cpu_count() else 0)" "$load")
    tolerance=$([[ $quiet == 1 ]] && echo 0.25 || echo 0.5)
    echo "  load $load on $(nproc) CPUs: $([[ $quiet == 1 ]] && echo quiet || echo loaded)"
    local repeat size
    for size in 4096 65536 131072; do
        repeat=$(python3 -c "import sys; a,b=map(float,sys.argv[1:]); print(abs(a-b)/min(a,b))" \
            "$(py "$SCRATCH/pp1.json" "rows()[[r['size_bytes'] for r in rows()].index($size)]['min_us']")" \
            "$(py "$SCRATCH/pp2.json" "rows()[[r['size_bytes'] for r in rows()].index($size)]['min_us']")")
        tolerance=$(python3 -c "import sys; print(max(float(sys.argv[1]), 3 * float(sys.argv[2])))" "$tolerance" "$repeat")
    done
    echo "  the ping-pong run twice differs by up to a third of $tolerance (the d=1 tolerance)"
    for size in 4096 65536 131072; do
        local unit pp
        unit=$(py "$SCRATCH/strided.json" "at($size, 1, 'min_us')")
        pp=$(py "$SCRATCH/pp.json" "rows()[[r['size_bytes'] for r in rows()].index($size)]['min_us']")
        echo "  $size B: fastest half round trip: strided d=1 $unit us, pingpong $pp us"
        python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a-b) <= max(float(sys.argv[3])*b, 3.0) else 1)" \
            "$unit" "$pp" "$tolerance" || { echo "  d=1 differs from ping-pong beyond noise at $size B"; ok=1; }
        noise=$(python3 -c "import sys; a,b,n=map(float,sys.argv[1:]); print(max(n, abs(a-b)/b))" "$unit" "$pp" "$noise")
    done
    # The same contiguous transfer timed twice (strided d = 1 and the
    # ping-pong, a few seconds apart) differs by `noise`: no model can
    # predict this machine's points closer than it measures them, so the
    # bound of the held-out error grows by twice that.
    echo "  noise measured here: d=1 and ping-pong differ by up to $noise (relative)"
    local d1 d64
    d1=$(py "$SCRATCH/strided.json" "at(131072, 1, 't01_us')")
    d64=$(py "$SCRATCH/strided.json" "at(131072, 64, 't01_us')")
    echo "  128 KiB: T_0,1 d=1 $d1 us, d=64 $d64 us"
    python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) > 1.1*float(sys.argv[1]) else 1)" "$d1" "$d64" ||
        { echo "  d=64 not slower than d=1 at 128 KiB"; ok=1; }
    local self
    self=$(py "$SCRATCH/strided.json" "d['model']['strided']['send_to_self']")
    echo "  send to self: $self"
    [[ $self == *"through the module"* ]] || { echo "  T_0,0 did not go through the module"; ok=1; }
    py "$SCRATCH/strided.json" "[(r['size_bytes'], r['t00_us'], r['tmem_us']) for r in rows(1) if not r['t00_us'] > r['tmem_us']]" |
        grep -qx '\[\]' || { echo "  T_0,0(s,1) not above T_mem(s) at some size"; ok=1; }
    local held grid loggp bound
    bound=$([[ $quiet == 1 ]] && echo 0.10 || echo 0.6)
    [[ $mode == mpi-vader ]] && bound=$([[ $quiet == 1 ]] && echo 0.25 || echo 1.0) && quiet=0
    bound=$(python3 -c "import sys; print(round(float(sys.argv[1]) + 2 * float(sys.argv[2]), 4))" "$bound" "$noise")
    held=$(py "$SCRATCH/strided.json" "d['model']['models']['log3p']['held_out']['mean_relative']")
    packed=$(py "$SCRATCH/strided.json" "d['model']['models']['log3p']['packed_path']['held_out']['mean_relative']")
    local checked=$held
    [[ $mode == mpi-vader ]] && checked=$packed
    grid=$(py "$SCRATCH/strided.json" "d['model']['models']['log3p']['error_on_grid']['mean_relative']")
    loggp=$(py "$SCRATCH/strided.json" "d['model']['models']['loggp']['error_on_grid']['mean_relative']")
    echo "  log3P mean error: held-out $held (packed path $packed), on the grid $grid; LogGP on the grid $loggp" \
        "(load $load, bound $bound)"
    python3 -c "import sys; h,g,l,b,q=map(float,sys.argv[1:]); sys.exit(0 if h < b and (g < l or not q) else 1)" \
        "$checked" "$grid" "$loggp" "$bound" "$quiet" ||
        { echo "  log3P held-out error $checked over $bound (or, quiet, not better than LogGP)"; ok=1; }
    return $ok
}

# Three attempts: besides load, this VM's host moves the two vCPUs, and a
# cache line between them then takes 0.1 or 0.5 us, sometimes flipping
# within a second (bench/loggp/README.md): the strided run and the
# ping-pong it is compared with can land on different placements (seen:
# vader 64 KiB d=1 40 us next to a 16 us ping-pong, then 16 vs 16).
echo "strided over $mode"
for attempt in 1 2 3; do
    measure
    check && { echo "PASS"; exit 0; }
    echo "attempt $attempt failed (timing noise on shared cores)"
done
cat "$SCRATCH/strided.txt"
fail "strided over $mode"
