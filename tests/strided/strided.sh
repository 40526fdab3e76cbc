#!/usr/bin/env bash
# The strided pattern over one transport (tcp, mpi-vader, mpi-tcp), what
# holds on any machine (real-time figures bounded within a factor of 2,
# tests/lib/bounds.sh; docs/testing.md):
#  - d = 1 costs what the contiguous ping-pong costs, within a factor of 2
#    (the fastest half round trip at 4, 64 and 128 KiB);
#  - d = 64 is not faster than d = 1 at the largest size (128 KiB);
#  - T_0,0 goes through the module (mpi: to its own rank; tcp: the module's
#    loopback connection to its own process) and costs more than the copy
#    T_mem alone at every size;
#  - log3P (Cameron et al. 2007) predicts held-out (s, d) points within a
#    factor of 2 (a mean relative error of the leave-one-out predictions of
#    at most 1): over vader the packed path (o_net of strided transfers
#    calibrated on the other strides' remote times, models/log3p/log3p.hpp), since
#    the paper's form is off there by construction (a contiguous message
#    moves in one copy, a derived datatype through copy-in/copy-out
#    fragments); over tcp and the tcp BTL the paper's form. Both are printed.
# How close log3P comes (the paper reports 5%), and whether it beats LogGP,
# is an accuracy figure: bench/strided/log3p.sh, results in
# bench/results/strided-log3p.md.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/../lib/bounds.sh"
mode=$1
[[ $mode == tcp ]] || need_mpi
sizes=4Ki,8Ki,16Ki,32Ki,64Ki,128Ki
measure() {
    run_ngx "$mode" -x strided -s $sizes --strides 1,16,64 -c 100 -o "$SCRATCH/strided.json" \
        >"$SCRATCH/strided.txt" 2>&1 || { cat "$SCRATCH/strided.txt"; fail "strided run failed"; }
    # The ping-pong with the strided run's count (a minimum over more samples is lower by itself).
    run_ngx "$mode" -x pingpong -s 4Ki,64Ki,128Ki -c 100 -o "$SCRATCH/pp.json" >"$SCRATCH/pp.txt" 2>&1 ||
        { cat "$SCRATCH/pp.txt"; fail "pingpong run failed"; }
}
check() {
    local bad=0 size unit pp d1 d64 self held packed grid loggp checked form
    for size in 4096 65536 131072; do
        unit=$(py "$SCRATCH/strided.json" "at($size, 1, 'min_us')")
        pp=$(py "$SCRATCH/pp.json" "rows()[[r['size_bytes'] for r in rows()].index($size)]['min_us']")
        assert_within_factor "$size B: strided d=1 against the ping-pong (fastest half round trip, us)" "$unit" "$pp" 2 ||
            bad=1
    done
    d1=$(py "$SCRATCH/strided.json" "at(131072, 1, 't01_us')")
    d64=$(py "$SCRATCH/strided.json" "at(131072, 64, 't01_us')")
    assert_at_least "128 KiB: T_0,1 with d=64 against d=1 (us)" "$d64" "$d1" || bad=1
    self=$(py "$SCRATCH/strided.json" "d['model']['strided']['send_to_self']")
    echo "  send to self: $self"
    [[ $self == *"through the module"* ]] || { echo "  FAIL T_0,0 did not go through the module"; bad=1; }
    py "$SCRATCH/strided.json" "[(r['size_bytes'], r['t00_us'], r['tmem_us']) for r in rows(1) if not r['t00_us'] > r['tmem_us']]" |
        grep -qx '\[\]' || { echo "  FAIL T_0,0(s,1) not above T_mem(s) at some size"; bad=1; }
    held=$(py "$SCRATCH/strided.json" "d['model']['models']['log3p']['held_out']['mean_relative']")
    packed=$(py "$SCRATCH/strided.json" "d['model']['models']['log3p']['packed_path']['held_out']['mean_relative']")
    grid=$(py "$SCRATCH/strided.json" "d['model']['models']['log3p']['error_on_grid']['mean_relative']")
    loggp=$(py "$SCRATCH/strided.json" "d['model']['models']['loggp']['error_on_grid']['mean_relative']")
    echo "  log3P mean error: held-out $held (packed path $packed), on the grid $grid; LogGP on the grid $loggp"
    checked=$held form="paper's form"
    [[ $mode == mpi-vader ]] && checked=$packed form="packed path"
    assert_error_within_factor "log3P held-out ($form)" "$checked" 2 || bad=1
    return $bad
}
# Up to three attempts: a factor of 2 holds on any machine whose ranks get
# the CPUs, but on 2 shared cores both ranks can lose them for milliseconds
# (seen at load 20: every one of 100 samples of vader's 128 KiB took 7 ms);
# a run so spoiled is measured again, not judged. When every failed attempt
# had a run that says the CPUs set its time (cpu_use.cpu_bound), the bounds
# could not be judged on this machine now: skipped, saying so.
echo "strided over $mode"
judged=0
for attempt in 1 2 3; do
    echo "--- attempt $attempt (load $(cut -d' ' -f1-3 /proc/loadavg))"
    measure
    check && { echo PASS; exit 0; }
    if cpu_bound "$SCRATCH/strided.json" "$SCRATCH/pp.json"; then
        echo "  (the CPUs set this attempt's time: cpu_use.cpu_bound)"
    else
        judged=1
    fi
done
cat "$SCRATCH/strided.txt"
[[ $judged == 1 ]] || skip "strided over $mode: in all three attempts the CPUs, not the transport, set the runs' time (other load on the cores); the bounds need the ranks to get the CPUs"
fail "strided over $mode: three attempts failed"
