#!/bin/bash
# bench/loggp/sim-realtime.sh: the sim module in real time, over R rounds:
# how close loggp, loggps and the overhead pattern come to the parameters the
# sim was given when its costs are busy-waited on this machine rather than
# counted in virtual time. Each round runs the scripts that suite 'virtual'
# runs in virtual time (exact there), without "virtual": tests/loggp/
# sim-truth.sh A and B, sim-lines.sh C, sim-overhead.sh 0.3 and 2.25,
# sim-switch.sh, loggps-truth.sh E, tests/overhead/sim-truth.sh,
# tests/strided/sim.sh and tests/nodecomm/sim-recovery.sh (mpirun
# and local), and records every figure they compare with the truth. Prints the accuracy table (bench/report.py accuracy) and each
# script's verdict (its real-time tolerance, 2-5%).
#
#     bench/loggp/sim-realtime.sh [BUILD_DIR] [-r ROUNDS]
set -u
source "$(dirname "$0")/../lib.sh"
accuracy_args "$0" "$@"
ACCURACY=$(mktemp)
trap 'rm -f "$ACCURACY"' EXIT
for ((r = 1; r <= ROUNDS; r++)); do
    accuracy_run_test "$r" "sim A:" tests/loggp/sim-truth.sh A
    accuracy_run_test "$r" "sim B:" tests/loggp/sim-truth.sh B
    accuracy_run_test "$r" "sim lines C:" tests/loggp/sim-lines.sh C
    accuracy_run_test "$r" "sim o 0.3:" tests/loggp/sim-overhead.sh 0.3
    accuracy_run_test "$r" "sim o 2.25:" tests/loggp/sim-overhead.sh 2.25
    accuracy_run_test "$r" "sim switch:" tests/loggp/sim-switch.sh
    accuracy_run_test "$r" "loggps E:" tests/loggp/loggps-truth.sh E
    accuracy_run_test "$r" "overhead:" tests/overhead/sim-truth.sh
    accuracy_run_test "$r" "strided:" tests/strided/sim.sh
    accuracy_run_test "$r" "nodecomm mpirun:" tests/nodecomm/sim-recovery.sh mpirun
    accuracy_run_test "$r" "nodecomm local:" tests/nodecomm/sim-recovery.sh local
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
accuracy_report
