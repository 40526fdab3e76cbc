#!/bin/bash
# listen-connect.sh: `ngx --listen 127.0.0.1:PORT` and `ngx --connect
# 127.0.0.1:PORT -m tcp -x pingpong ...` on loopback: both exit 0, the client
# writes the JSON (bootstrap.kind "tcp", 2 ranks) with every asked size.
source "$(dirname "$0")/../lib/ngx-run.sh"
port=$(free_port) || fail "no free port"
it_bg server.log --listen "127.0.0.1:$port" --accept-timeout 30
srv=$BG_PID
ngx_run 60 --connect "127.0.0.1:$port" -m tcp -x pingpong -s 1-64Ki -c 100 --warmup 10 -o c.json
crc=$RC
wait_pid "$srv" 15
[[ $crc == 0 ]] || { cat server.log; fail "client exited $crc"; }
[[ $RC == 0 ]] || { cat server.log; fail "server exited $RC (after ${ELAPSED}s)"; }
check_results c.json tcp pow2:1-65536 100 --bootstrap tcp
python3 -c 'import json,sys; d=json.load(open("c.json")); assert d["bootstrap"]["ranks"] == 2, d["bootstrap"]' ||
    fail "bootstrap.ranks != 2"
ok "loopback --listen/--connect"

# The same with shm is refused or works: never a hang. (shm across --connect is
# still one host here, so it must work.)
port=$(free_port) || fail "no free port"
it_bg server2.log --listen "127.0.0.1:$port" --accept-timeout 30
srv=$BG_PID
ngx_run 60 --connect "127.0.0.1:$port" -m shm -x pingpong -s 1-1Ki -c 50 --warmup 5 -o s.json
crc=$RC
wait_pid "$srv" 15
[[ $crc == 0 && $RC == 0 ]] || { cat server2.log; fail "shm over --listen/--connect: client $crc, server $RC"; }
check_results s.json shm pow2:1-1024 50 --bootstrap tcp
ok "loopback --listen/--connect with shm"
echo PASS
