#!/bin/bash
# udp-loss.sh: the lossy udp module under 5% random packet drops (the
# ngx-netdelay TUN relay between two namespaces, UDP only: the TCP bootstrap
# is spared) still measures in the agreed order: pingpong and loggp with
# --passes 3 complete, the schedule is round-robin (both sides checked
# their plans at every pass; a disagreement would end the run), losses were
# retried, and every size keeps exactly -c samples over its regular passes.
# Exit 77 without root, namespaces or the relay.
source "$(dirname "$0")/../lib/ngx-run-netns.sh"
netns_require tun
netns_init
netns_relay_pair d 0 0.05 --seed 11 --drop-proto udp || fail "relay pair with drops"

run_over() {  # PORT OUT NGX_OPTION...
    local port=$1 out=$2 a b ip
    shift 2
    a=$(netns_get d ns_a) b=$(netns_get d ns_b) ip=$(netns_get d ip_a)
    netns_bg "$a" "$IT_DIR/server.log" "$NGX" --listen "$ip:$port" --accept-timeout 30 --timeout 5
    local srv=$NETNS_BG_PID
    ip netns exec "$b" timeout -k 2 240 "$NGX" --connect "$ip:$port" -m udp "$@" --timeout 5 \
        --udp-loss-timeout-us 20000 -o "$out" >"$IT_DIR/out" 2>"$IT_DIR/err" </dev/null
    RC=$?
    netns_wait_bg "$srv" 10
    local src=$?
    [[ $RC == 0 ]] || fail "udp: client exit $RC: $(cat "$IT_DIR/err") / server: $(cat "$IT_DIR/server.log")"
    [[ $src == 0 ]] || fail "udp: server exit $src: $(cat "$IT_DIR/server.log")"
}

check() {  # FILE COUNT PASSES SIZE...
    python3 "$(dirname "$0")/check_passes.py" "$@" --lost || fail "$1"
}

run_over 7341 "$IT_DIR/pingpong.json" -x pingpong -s 1,64,1024 -c 300 --warmup 10 --passes 3
check "$IT_DIR/pingpong.json" 300 3 1 64 1024
ok "pingpong over udp with 5% drops: round-robin in 3 passes"
run_over 7342 "$IT_DIR/loggp.json" -x loggp --loggp-n 4 -s 1,64,1024 -c 90 --warmup 10 --passes 3
check "$IT_DIR/loggp.json" 90 3 1 64 1024
ok "loggp over udp with 5% drops: round-robin in 3 passes"
echo PASS
