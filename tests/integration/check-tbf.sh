#!/bin/bash
# ngx check over a real rate limit (a real change is flagged, none is not): two
# namespaces joined by a veth pair with tbf on both directions; ngx --listen
# in one, ngx --connect -m tcp -x pingpong --raw in the other, over sizes
# where the link's rate dominates, each run a launch of its own. At 100
# Mbit/s the link, not the two CPUs, sets the time even on a loaded machine
# (at 400 Mbit/s a busy sender fell short of the rate, so the rate's changes
# showed diluted). With the default minimum effect (15% against one launch):
# a rate 15% lower (100 -> 85 Mbit/s, each size 17.6% slower) is flagged
# (exit 1); two launches at 100 Mbit/s are not (exit 0). Skipped (77)
# without namespaces or tbf.
IT_NO_TRAP=1
source "$(dirname "$0")/lib.sh"
NETNS_NO_TRAP=1
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
trap 'netns_cleanup; it_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
netns_require tbf
netns_init
netns_veth_pair v || fail "veth pair"
a=$(netns_get v ns_a) b=$(netns_get v ns_b) ip=$(netns_get v ip_a)
port=7480
measure() { # measure RATE_MBIT FILE: one pingpong run over tbf at RATE
    netns_tbf v "$1mbit" 16kb 100ms || fail "tbf $1 Mbit/s"
    port=$((port + 1))
    netns_bg "$a" "$IT_DIR/server.log" "$NGX" --listen "$ip:$port" --accept-timeout 30 --timeout 20
    local server=$NETNS_BG_PID
    ip netns exec "$b" timeout -k 5 120 "$NGX" --connect "$ip:$port" --timeout 20 -m tcp -x pingpong \
        -s 128Ki,256Ki -c 20 --warmup 5 --raw -o "$2" >"$IT_DIR/out" 2>"$IT_DIR/err" </dev/null ||
        fail "ngx --connect at $1 Mbit/s: $(tail -3 "$IT_DIR/err")"
    netns_wait_bg "$server" 20 || fail "server: $(tr '\n' ' ' <"$IT_DIR/server.log")"
    validate_json "$2"
}
measure 100 r100a.json
measure 100 r100b.json
measure 85 r85.json
ngx_run 30 check r100a.json r85.json
cat out
[[ $RC == 1 ]] || fail "100 -> 85 Mbit/s not flagged: exit $RC"
ngx_run 30 check r100a.json r100b.json
cat out
[[ $RC == 0 ]] || fail "100 -> 100 Mbit/s flagged: exit $RC"
echo PASS
