#!/bin/bash
# The local launch against rates configured with tc: `ngx --pairs 4 -m tcp
# -x nodecomm` forks 8 processes on one host, so there is no second node
# and no wire between them, but their tcp connections still cross the
# loopback device, and in a namespace of its own (ns_a of a veth pair: the
# helpers make namespaces in pairs; the veth is unused) lo can carry the
# same link as veth-htb.sh (nc_htb_loopback): htb, per direction a
# class of R_N = 100 Mbit/s shared by the pairs with one class of R_C = 40
# Mbit/s per pair under it (k* = 2.5), pair i chosen by the port its
# listener (rank i) binds, 7100 + i (--tcp-port 7100 --tcp-port-per-rank
# yes): source port for rank i to rank 4 + i, destination port back. The
# max-rate fit over the large sizes must give R_C and R_N within a factor of 2 of the
# configured rates, and every pair's class must have carried its flow. What
# this cannot show is a second host's NIC and wire (veth-htb.sh and
# veth-listen.sh do).
# How close they come: bench/nodecomm/htb.sh.
source "$(dirname "$0")/common.sh"
nc_two_nodes tbf
pairs=4 ns=$(netns_get v ns_a)
nc_htb_loopback "$ns" $pairs 100 40 7100 # R_N, R_C (Mbit/s), port of pair 0's listener
measure() { # JSON
    NETNS_CMD_TIMEOUT=240 netns_exec "$ns" "$NGX" --pairs $pairs -m tcp --tcp-port 7100 --tcp-port-per-rank yes \
        -x nodecomm --nodecomm-regimes 128Ki- -s 128Ki,256Ki,512Ki,1Mi -c 4 --warmup 1 --timeout 30 -o "$1" \
        >"$SCRATCH/out" 2>"$SCRATCH/err" </dev/null
    local rc=$?
    sed -n '/^# T(k/,$p' "$SCRATCH/out"
    [[ $rc == 0 ]] || { cat "$SCRATCH/err"; fail "ngx --pairs $pairs in $ns: exit $rc"; }
    nc_py "$1" 'b = ctx["bootstrap"]; assert b == {"kind": "local", "ranks": 2 * '$pairs'}, b' ||
        fail "not the local launch of $((2 * pairs)) ranks"
}
nc_htb_verdict 40 100
