#!/bin/bash
# switches.sh: the two-switch cluster of netns.sh (netns_cluster_switches):
# 2 + 2 nodes, NICs at R, one uplink at R each way (2:1 oversubscribed:
# half of one side's 2R). Nodes know their switch; mpirun places ranks on
# the nodes asked for (NETNS_CLUSTER_NODES); bad counts and a missing uplink
# rate are refused. Real-time bounds: one stream across the uplink gets R
# within a factor of 2; two streams at once across it (0 -> 2, 1 -> 3)
# share it, their sum at most 1.3 R, while two at once inside the switches
# (0 -> 1, 2 -> 3) each get at least 0.7 R: the uplink, not the NICs, is
# what the crossing pair shares.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/../lib/bounds.sh"
netns_start tbf probe mpi

rate=${NGX_TEST_CLUSTER_MBIT:-40}
netns_cluster_switches c 2 2 "${rate}mbit" "${rate}mbit" || fail "a 2 + 2 cluster on two switches"
[[ $(netns_cluster_get c nodes) == 4 ]] || fail "node count"
[[ $(netns_cluster_get c switches) == 0,0,1,1 ]] || fail "switches: $(netns_cluster_get c switches)"
[[ $(netns_cluster_get c switch_3) == 1 ]] || fail "node 3's switch"
netns_cluster_switches d 0 2 10mbit 10mbit 2>/dev/null && fail "a switch with no node was accepted"
netns_cluster_switches e 2 2 10mbit 2>/dev/null && fail "a cluster without an uplink rate was accepted"

placed=$(NETNS_CLUSTER_NODES=0,2,3 netns_cluster_mpirun c 3 -- sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname)"') ||
    fail "mpirun on nodes 0, 2 and 3"
echo "rank host:" $placed
want=(0 2 3)
while read -r rank host; do
    [[ $host == "$(netns_cluster_get c ns_${want[rank]})" ]] || fail "rank $rank runs on $host, not node ${want[rank]}"
done <<<"$placed"
NETNS_CLUSTER_NODES=0,9 netns_cluster_mpirun c 2 -- true 2>/dev/null && fail "a node the cluster lacks was accepted"

for p in 01 02 13 23; do netns_cluster_pair c "${p:0:1}" "${p:1:1}" "l$p" || fail "pair view $p"; done
streams() {  # PAIR PAIR: both stream at once for 2 s; prints their Mbit/s
    local a b
    netns_probe "l$1" stream --seconds 2 >"$NETNS_DIR/s$1" &
    a=$!
    netns_probe "l$2" stream --seconds 2 >"$NETNS_DIR/s$2" &
    b=$!
    wait "$a" && wait "$b" || fail "streams $1 and $2"
    echo "$(netns_kv "$(cat "$NETNS_DIR/s$1")" mbit_s) $(netns_kv "$(cat "$NETNS_DIR/s$2")" mbit_s)"
}
one=$(netns_kv "$(netns_probe l02 stream --seconds 1.5)" mbit_s) || fail "stream 0 -> 2"
echo "node 0 -> node 2 alone (across the uplink): $one Mbit/s (NICs and uplink at $rate)"
assert_within_factor "0 -> 2 alone (Mbit/s)" "$one" "$rate" 2 || fail "0 -> 2: $one Mbit/s"
read -r x y <<<"$(streams 02 13)"
echo "across at once: 0 -> 2 $x, 1 -> 3 $y Mbit/s (uplink $rate)"
half=$(awk -v r="$rate" 'BEGIN { print r / 2 }')
assert_within_factor "0 -> 2 sharing the uplink (Mbit/s)" "$x" "$half" 2 || fail "0 -> 2 across: $x Mbit/s"
assert_within_factor "1 -> 3 sharing the uplink (Mbit/s)" "$y" "$half" 2 || fail "1 -> 3 across: $y Mbit/s"
read -r u v <<<"$(streams 01 23)"
echo "inside the switches at once: 0 -> 1 $u, 2 -> 3 $v Mbit/s (NICs $rate)"
assert_within_factor "0 -> 1 inside switch 0 (Mbit/s)" "$u" "$rate" 2 || fail "0 -> 1: $u Mbit/s"
assert_within_factor "2 -> 3 inside switch 1 (Mbit/s)" "$v" "$rate" 2 || fail "2 -> 3: $v Mbit/s"
slow=$(printf '%s\n' "$x" "$y" | sort -g | tail -1)
fast=$(printf '%s\n' "$u" "$v" | sort -g | head -1)
assert_at_least "the slowest flow inside a switch over the fastest across the shared uplink" "$fast" "$slow" ||
    fail "a flow across the shared uplink ($slow Mbit/s) was not slower than one inside a switch ($fast)"
echo PASS
