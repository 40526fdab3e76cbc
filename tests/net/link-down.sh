#!/bin/bash
# link-down.sh: taking a link down mid-run makes a running ping-pong fail
# at its deadline (not hang), on a veth pair and on a relay pair, and the
# link works again once it is brought back up.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/netns.sh"
netns_require tun probe
netns_init

check_pair() {
    local p=$1 a b ip t0 t1 rc
    a=$(netns_get "$p" ns_a) b=$(netns_get "$p" ns_b) ip=$(netns_get "$p" ip_b)
    netns_bg "$b" "$NETNS_DIR/$p-srv.log" "$NETNS_NETPROBE" rtt-server --addr "$ip" --port 7000 \
        --ready-file "$NETNS_DIR/$p.ready" --timeout 20
    local srv=$NETNS_BG_PID
    netns_wait_file "$NETNS_DIR/$p.ready" 10 || fail "$p: server not ready"
    netns_bg "$a" "$NETNS_DIR/$p-cli.log" "$NETNS_NETPROBE" rtt-client --addr "$ip" --port 7000 \
        --iters 10000000 --timeout 3
    local cli=$NETNS_BG_PID
    sleep 0.5
    kill -0 "$cli" 2>/dev/null || { cat "$NETNS_DIR/$p-cli.log"; fail "$p: client ended before the fault"; }
    t0=$(date +%s.%N)
    netns_link_down "$p" b || fail "$p: link down"
    netns_wait_bg "$cli" 10
    rc=$?
    t1=$(date +%s.%N)
    echo "$p: client after link down: status $rc after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s: $(cat "$NETNS_DIR/$p-cli.log")"
    [[ $rc == 1 ]] || fail "$p: expected the client to fail with status 1 at its deadline, got $rc"
    _netns_stop_pid "$srv"
    netns_link_up "$p" b || fail "$p: link up"
    local out
    out=$(netns_probe "$p" rtt --iters 200) || fail "$p: ping-pong after link up"
    echo "$p: after link up: $out"
}

netns_veth_pair v || fail "veth pair"
check_pair v
netns_relay_pair r 20 || fail "relay pair"
check_pair r
_netns_stop_pid "$(netns_get r relay_pid)"
echo "relay: $(grep -h 'write errors' "$(netns_get r relay_log)" | tr '\n' ' ')"
echo PASS
