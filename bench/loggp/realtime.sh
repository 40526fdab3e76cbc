#!/bin/bash
# bench/loggp/realtime.sh: the accuracy of loggp over real transports, over
# R rounds: what the tests of suite loggp-realtime bound only within a factor
# of 2, against what the setup implies (root for the namespaces):
#   - G over a veth pair with tbf at 200 Mbit/s (tests/loggp/tbf-rate.sh)
#     against 1/rate (tbf also counts 66 header bytes per 1448-byte segment:
#     about +4.6%);
#   - L's growth through ngx-netdelay at 200 us one way
#     (tests/loggp/relay-delay.sh) against 200 us;
#   - whether the change detection finds shm's 56-byte inline switch
#     (16..256 B, x1.2, pinned): per round "found", "missed" or "hidden"
#     (the step across 56 B under 8 times the run's noise).
# Prints the accuracy table (bench/report.py accuracy) and the switch counts.
#
#     bench/loggp/realtime.sh [BUILD_DIR] [-r ROUNDS]
set -u
source "$(dirname "$0")/../lib.sh"
accuracy_args "$0" "$@"
ACCURACY=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$ACCURACY" "$scratch"' EXIT
found=0 missed=0 hidden=0
for ((r = 1; r <= ROUNDS; r++)); do
    accuracy_run_test "$r" "tbf 200 Mbit/s:" tests/loggp/tbf-rate.sh
    accuracy_run_test "$r" "relay 200 us:" tests/loggp/relay-delay.sh
    timeout -k 5 120 "$NGX" -m shm -x loggp -s 16-256 --grade 1.2 --cpus 0,1 -o "$scratch/shm.json" >/dev/null 2>&1
    python3 "$SOURCE_ROOT/tests/loggp/loggp_check.py" change-point "$scratch/shm.json" --at 56 --resolve 8 >/dev/null
    case $? in 0) found=$((found + 1)) ;; 3) hidden=$((hidden + 1)) ;; *) missed=$((missed + 1)) ;; esac
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
accuracy_report
echo "shm inline switch at 56 B: found in $found, missed in $missed, hidden by noise in $hidden of $ROUNDS rounds"
