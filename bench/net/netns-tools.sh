#!/bin/bash
# bench/net/netns-tools.sh: how close the test network of tests/net/netns.sh
# comes to what it was configured for, over R rounds (root: namespaces). Each
# round runs the tests of suite net-realtime, which bound these figures only
# within a factor of 2, and records what they measured:
#   - tbf.sh: a 2 s TCP stream over a veth pair with tbf at 100 Mbit/s,
#     goodput against the rate (TCP/IP/Ethernet headers cost about 4% of it);
#   - relay-delay.sh: the median TCP ping-pong through ngx-netdelay at
#     100 us one way minus the one through a relay at 0 us, against 200 us;
#   - relay-drop.sh: 2000 UDP datagrams through a relay dropping 5%;
#   - cluster.sh: node-to-node goodput on the emulated cluster's NICs.
# Prints the accuracy table (bench/report.py accuracy).
#
#     bench/net/netns-tools.sh [BUILD_DIR] [-r ROUNDS]
set -u
source "$(dirname "$0")/../lib.sh"
accuracy_args "$0" "$@"
ACCURACY=$(mktemp)
trap 'rm -f "$ACCURACY"' EXIT
for ((r = 1; r <= ROUNDS; r++)); do
    accuracy_run_test "$r" "tbf:" tests/net/tbf.sh
    accuracy_run_test "$r" "relay:" tests/net/relay-delay.sh
    accuracy_run_test "$r" "relay 5% drop:" tests/net/relay-drop.sh
    accuracy_run_test "$r" "cluster:" tests/net/cluster.sh
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
accuracy_report
