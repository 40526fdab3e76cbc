#!/bin/bash
# cluster.sh: the emulated cluster of netns.sh (netns_cluster) is what the
# cluster tests of layouts and coll take it for: N nodes with host names of
# their own, mpirun places rank r on node r mod N, and every NIC carries the
# rate it was given -- a slow node's links run at its rate, the others at
# theirs (TCP goodput within a factor of 2, a real-time bound), and a link
# to the slow node never measures faster than the fast links.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/../lib/bounds.sh"
netns_require tbf probe mpi
netns_init

fast=${NGX_TEST_CLUSTER_MBIT:-150}
slow=$((fast / 3))
netns_cluster c 4 "${fast}mbit" 3 "${slow}mbit" || fail "cluster"
[[ $(netns_cluster_get c nodes) == 4 ]] || fail "node count"
netns_cluster c 4 2>/dev/null && fail "a second cluster of the same name was accepted"
netns_cluster d 1 2>/dev/null && fail "a one-node cluster was accepted"

placed=$(netns_cluster_mpirun c 8 -- sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname)"') ||
    fail "mpirun across the cluster"
echo "rank host:" $placed
[[ $(wc -l <<<"$placed") == 8 ]] || fail "expected 8 ranks"
while read -r rank host; do
    [[ $host == "$(netns_cluster_get c ns_$((rank % 4)))" ]] || fail "rank $rank runs on $host, not node $((rank % 4))"
done <<<"$placed"

measure() {  # I J RATE: node I streams to node J for 1.5 s; goodput within a factor of 2 of RATE; sets GOT
    netns_cluster_pair c "$1" "$2" "l$1$2" || fail "pair view $1-$2"
    local out got
    out=$(netns_probe "l$1$2" stream --seconds 1.5) || fail "stream $1 -> $2"
    got=$(netns_kv "$out" mbit_s)
    echo "node $1 -> node $2: $got Mbit/s (NICs at $3)"
    assert_within_factor "node $1 -> node $2 (Mbit/s)" "$got" "$3" 2 ||
        fail "node $1 -> node $2: $got Mbit/s is not $3 within a factor of 2"
    GOT=$got
}
measure 0 1 "$fast"
fast01=$GOT
measure 1 3 "$slow"
assert_at_least "fast link 0 -> 1 over slow link 1 -> 3" "$fast01" "$GOT" || fail "the slow node's link measured faster"
measure 3 2 "$slow"
netns_cluster_rate c 3 "${fast}mbit" || fail "changing node 3's rate"
measure 2 3 "$fast"
echo PASS
