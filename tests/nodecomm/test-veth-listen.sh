#!/bin/bash
# The launch without MPI across a network: two namespaces ("nodes", one
# host name each through their own UTS namespace) joined by a veth pair;
# `ngx --listen` in node B and `ngx --connect B:PORT --pairs 3 -m tcp -x
# nodecomm` in node A start 3 ranks each, and every pair spans the two
# nodes (no "one node" note, no --nodecomm-one-node). Each direction is
# shaped by one tbf of R_N = 100 Mbit/s shared by the pairs (the pairs'
# ports are ephemeral here, so no per-pair class: R_C is the veth's, far
# above R_N): the max-rate fit over the large sizes must give R_N within 10%
# of the configured rate (payload rate: MTU 9000 keeps the headers under
# 1%). Noisy machine: one more run before failing.
source "$(dirname "$0")/common.sh"
nc_two_nodes tbf
ns_a=$(netns_get v ns_a) ns_b=$(netns_get v ns_b) ip_b=$(netns_get v ip_b)
for side in a b; do
    ns=$(netns_get v ns_$side) dev=$(netns_get v dev_$side)
    # A queue deep enough for every pair's window: the rate, not drops, sets T.
    tc -n "$ns" qdisc replace dev "$dev" root tbf rate 100mbit burst 9200 limit 8000000 2>"$SCRATCH/tc.err" || {
        echo "SKIP: tbf shaping failed here: $(cat "$SCRATCH/tc.err")"
        exit 77
    }
    ip netns exec "$ns" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0 || fail "sysctl in $ns"
    # One MTU per skb, so the shaper meters what it sends (see test-veth-htb.sh).
    ip -n "$ns" link set dev "$dev" gso_max_segs 1 gso_max_size 9000 || fail "limiting GSO in $ns"
done
check() {
    nc_py "$1" '
b = ctx["bootstrap"]
assert b == {"kind": "tcp", "ranks": 6}, b
r = m["ranges"][0]["models"]["maxrate3"]
rn, want = r["R_N_Bps"]["value"] or math.inf, 100e6 / 8
alpha = r["alpha_us"]["value"]
print(f"fitted R_N {rn/1e6:.3f} MB/s (configured {want/1e6}), alpha {alpha:.0f} us")
if not want * 0.9 <= rn <= want * 1.1:
    print(f"R_N {rn:.4g} not within 10% of {want:.4g}"); sys.exit(1)
'
}
port=7300
for attempt in 1 2; do
    json=$SCRATCH/listen$attempt.json
    port=$((port + 1))
    netns_bg "$ns_b" "$SCRATCH/server" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$ns_b" \
        "$NGX" --listen "$ip_b:$port" --accept-timeout 60
    server=$NETNS_BG_PID
    NETNS_CMD_TIMEOUT=240 netns_exec_host "$ns_a" "$NGX" --connect "$ip_b:$port" --pairs 3 -m tcp -x nodecomm \
        --nodecomm-regimes 128Ki- -s 128Ki,256Ki,512Ki,1Mi -c 4 --warmup 1 --timeout 30 -o "$json" \
        >"$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
    netns_wait_bg "$server" 60
    src=$?
    sed -n '/^# T(k/,$p' "$SCRATCH/out"
    [[ $rc == 0 && $src == 0 ]] || {
        cat "$SCRATCH/err" "$SCRATCH/server"
        fail "--listen/--connect across the namespaces: client exit $rc, server exit $src"
    }
    ! grep -q 'run on one node' "$SCRATCH/err" "$SCRATCH/server" || fail "a pair was placed on one node"
    if check "$json"; then
        echo PASS
        exit 0
    fi
    echo "attempt $attempt off; measuring once more"
done
fail "the max-rate fit missed the tbf rate twice in a row"
