#!/bin/bash
# veth.sh: two namespaces joined by a veth pair can talk (TCP ping-pong
# both ways of the library's helpers), and setting the pair up twice is a no-op.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/netns.sh"
netns_require probe
netns_init

netns_veth_pair v || fail "veth pair"
netns_veth_pair v || fail "second netns_veth_pair is not idempotent"
a=$(netns_get v ns_a) b=$(netns_get v ns_b)
echo "pair v: $a ($(netns_get v ip_a)) <-> $b ($(netns_get v ip_b)), subnet $(netns_get v subnet)"

ip -n "$a" -o -4 addr show dev veth-a | grep -q "$(netns_get v ip_a)/24" || fail "ip_a is not on veth-a"
ip -n "$b" -o -4 addr show dev veth-b | grep -q "$(netns_get v ip_b)/24" || fail "ip_b is not on veth-b"
ip -n "$a" -o link show lo | grep -q 'UP' || fail "lo is down in $a"
# The test addresses exist only inside the namespaces.
ip -o addr show | grep -q "$(netns_get v ip_a)/" && fail "the pair's address leaked into the root namespace"

out=$(netns_probe v rtt --iters 500 --warmup 50) || fail "ping-pong over veth"
echo "veth ping-pong: $out"
[[ $(netns_kv "$out" n) == 500 ]] || fail "expected 500 round trips"

netns_exec "$b" true || fail "netns_exec"
[[ $(netns_exec_host "$b" hostname) == "$b" ]] || fail "netns_exec_host does not set the hostname"
echo PASS
