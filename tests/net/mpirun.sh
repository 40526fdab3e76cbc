#!/bin/bash
# mpirun.sh: mpirun with the nsrsh agent runs one rank in each namespace
# of a pair (veth and relay), each rank seeing its own network namespace and
# hostname.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/netns.sh"
netns_require mpi tun
netns_init
export NGX_NSRSH_LOG=$NETNS_DIR/nsrsh.log

check_pair() {
    local p=$1 a b out want
    a=$(netns_get "$p" ns_a) b=$(netns_get "$p" ns_b)
    out=$(netns_mpirun "$p" -- sh -c 'echo "$(hostname) $(readlink /proc/self/ns/net)"' 2>&1) ||
        { echo "$out"; fail "$p: mpirun across the namespaces"; }
    echo "$p: ranks:"; echo "$out" | sed 's/^/  /'
    for ns in "$a" "$b"; do
        want="$ns $(ip netns exec "$ns" readlink /proc/self/ns/net)"
        grep -qxF "$want" <<<"$out" || fail "$p: no rank reported '$want'"
    done
    [[ $(wc -l <<<"$out") == 2 ]] || fail "$p: expected exactly two ranks"
}

netns_veth_pair v || fail "veth pair"
check_pair v
netns_relay_pair r 50 || fail "relay pair"
check_pair r
echo "nsrsh launches:"; cut -c1-150 "$NGX_NSRSH_LOG"
grep -q " -> $(netns_get v ns_b): " "$NGX_NSRSH_LOG" || fail "nsrsh did not launch into $(netns_get v ns_b)"
echo PASS
