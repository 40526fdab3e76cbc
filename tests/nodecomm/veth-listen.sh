#!/bin/bash
# The launch without MPI across a network: two namespaces ("nodes", one
# host name each through their own UTS namespace) joined by a veth pair;
# `ngx --listen` in node B and `ngx --connect B:PORT --pairs 4 -m tcp -x
# nodecomm` in node A start 4 ranks each, and every pair spans the two
# nodes (no "one node" note, no --nodecomm-one-node). Each direction is
# shaped as under mpirun (veth-htb.sh, nc_htb_pairs): htb, a parent
# class of R_N = 100 Mbit/s shared by the pairs and one class of R_C = 40
# Mbit/s per pair (k* = 2.5). A pair's tcp connection would get an
# ephemeral port; --tcp-port 7100 --tcp-port-per-rank yes makes pair i's
# listener (rank i, node A) bind 7100 + i, and a u32 filter on that port
# puts each pair's flow in its own class. Why classes by port and not a
# per-flow limit that needs no classification (fq maxrate under the shared
# class): fq is not in this kernel ("Specified qdisc kind is unknown"), and
# htb with one filter per port is what a network engineer reads and checks
# class by class: `tc -s class show` counts what each pair's class carried,
# and the test asserts every class carried its pair's flow (a flow that
# missed its filter would run unshaped, and the fit alone could not say
# why). The max-rate fit over the large sizes must give R_C and R_N within
# a factor of 2 of the configured rates (R_N at least R_C).
# How close they come: bench/nodecomm/htb.sh.
source "$(dirname "$0")/common.sh"
nc_two_nodes tbf
pairs=4
nc_htb_pairs $pairs 100 40 7100 # R_N, R_C (Mbit/s), port of pair 0's listener
ns_a=$(netns_get v ns_a) ns_b=$(netns_get v ns_b) ip_b=$(netns_get v ip_b)
port=7300
measure() { # JSON
    port=$((port + 1))
    netns_bg "$ns_b" "$SCRATCH/server" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$ns_b" \
        "$NGX" --listen "$ip_b:$port" --accept-timeout 60
    local server=$NETNS_BG_PID rc src
    NETNS_CMD_TIMEOUT=240 netns_exec_host "$ns_a" "$NGX" --connect "$ip_b:$port" --pairs $pairs -m tcp \
        --tcp-port 7100 --tcp-port-per-rank yes -x nodecomm --nodecomm-regimes 128Ki- -s 128Ki,256Ki,512Ki,1Mi \
        -c 4 --warmup 1 --timeout 30 -o "$1" >"$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
    netns_wait_bg "$server" 60
    src=$?
    sed -n '/^# T(k/,$p' "$SCRATCH/out"
    [[ $rc == 0 && $src == 0 ]] || {
        cat "$SCRATCH/err" "$SCRATCH/server"
        fail "--listen/--connect across the namespaces: client exit $rc, server exit $src"
    }
    ! grep -q 'run on one node' "$SCRATCH/err" "$SCRATCH/server" || fail "a pair was placed on one node"
    nc_py "$1" 'b = ctx["bootstrap"]; assert b == {"kind": "tcp", "ranks": 2 * '$pairs'}, b' ||
        fail "not the TCP rendezvous of $((2 * pairs)) ranks"
}
nc_htb_verdict 40 100
