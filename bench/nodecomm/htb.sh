#!/bin/bash
# bench/nodecomm/htb.sh: how close the nodecomm max-rate fit (Gropp et al.
# 2016) comes to rates configured with htb, over R rounds (root: namespaces,
# mpirun): R_C = 40 Mbit/s per pair and R_N = 100 Mbit/s shared by 4 pairs,
# for each launch (tests/nodecomm/veth-htb.sh under mpirun across two
# namespaces, veth-listen.sh with --listen/--connect, local-htb.sh
# forked on one loopback). The tests of suite nodecomm-realtime bound these
# within a factor of 2; this is their accuracy. Prints the accuracy table.
#
#     bench/nodecomm/htb.sh [BUILD_DIR] [-r ROUNDS]
set -u
source "$(dirname "$0")/../lib.sh"
accuracy_args "$0" "$@"
ACCURACY=$(mktemp)
trap 'rm -f "$ACCURACY"' EXIT
for ((r = 1; r <= ROUNDS; r++)); do
    accuracy_run_test "$r" "mpirun:" tests/nodecomm/veth-htb.sh
    accuracy_run_test "$r" "listen/connect:" tests/nodecomm/veth-listen.sh
    accuracy_run_test "$r" "local:" tests/nodecomm/local-htb.sh
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
accuracy_report
