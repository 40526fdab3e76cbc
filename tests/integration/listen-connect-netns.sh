#!/bin/bash
# netns.sh: --listen / --connect between two network namespaces joined by a
# veth pair (server in ns A on its veth address, client in ns B): both exit
# 0 and the client's JSON has every size. Exit 77 without namespaces.
source "$(dirname "$0")/../lib/ngx-run-netns.sh"
netns_require
netns_init
netns_veth_pair p || fail "veth pair"
a=$(netns_get p ns_a) b=$(netns_get p ns_b) ip=$(netns_get p ip_a)
port=7311
netns_bg "$a" "$IT_DIR/server.log" env NGX_MODULE_PATH="${NGX_MODULE_PATH:-}" "$NGX" --listen "$ip:$port" --accept-timeout 30
srv=$NETNS_BG_PID
NETNS_CMD_TIMEOUT=60 netns_exec "$b" "$NGX" --connect "$ip:$port" -m tcp -x pingpong -s 1-64Ki -c 100 --warmup 10 \
    -o "$IT_DIR/ns.json" >"$IT_DIR/out" 2>"$IT_DIR/err"
crc=$?
netns_wait_bg "$srv" 15
src=$?
[[ $crc == 0 ]] || { cat "$IT_DIR/server.log"; fail "client in $b exited $crc"; }
[[ $src == 0 ]] || { cat "$IT_DIR/server.log"; fail "server in $a exited $src"; }
check_results "$IT_DIR/ns.json" tcp pow2:1-65536 100 --bootstrap tcp
ok "veth --listen $ip:$port / --connect from the other namespace"
echo PASS
