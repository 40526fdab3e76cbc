#!/bin/bash
# listen-dial.sh: the tcp module of a --listen server dials only the host its
# client connected from (a client cannot make it connect to a third host). A
# client whose tcp listener is on 127.0.0.2 (--tcp-address) while its control
# connection comes from
# 127.0.0.1 asks the server to dial another address: the server refuses,
# saying why, and both sides fail (exit 1) instead of connecting. The same
# for the udp module: a client bound to 127.0.0.2 (--udp-address) would have
# the server send its datagrams there, and is refused.
source "$(dirname "$0")/../lib/ngx-run.sh"
port=$(free_port) || fail "no free port"
it_bg server.log --listen "127.0.0.1:$port" --accept-timeout 30 --timeout 5
srv=$BG_PID
ngx_run 60 --connect "127.0.0.1:$port" -m tcp -x pingpong -s 1 -c 5 --timeout 5 --tcp-address 127.0.0.2
crc=$RC
wait_pid "$srv" 20
[[ $RC == 1 ]] || { cat server.log; fail "server exit $RC, expected 1"; }
[[ $crc != 0 ]] || fail "the client exited 0"
grep -q "asks to be reached at 127.0.0.2, but it is at 127.0.0.1; this side dials only the peer's own address" server.log ||
    fail "the server does not say why it refused: $(cat server.log)"
ok "dialling a third address refused: client exit $crc, server exit $RC"

port=$(free_port) || fail "no free port"
it_bg server-udp.log --listen "127.0.0.1:$port" --accept-timeout 30 --timeout 5
srv=$BG_PID
ngx_run 60 --connect "127.0.0.1:$port" -m udp -x pingpong -s 1 -c 5 --timeout 5 --udp-address 127.0.0.2
crc=$RC
wait_pid "$srv" 20
[[ $RC == 1 ]] || { cat server-udp.log; fail "udp: server exit $RC, expected 1"; }
[[ $crc != 0 ]] || fail "udp: the client exited 0"
grep -q "asks for datagrams at 127.0.0.2, but it is at 127.0.0.1; this side sends only to the peer's own address" \
    server-udp.log || fail "udp: the server does not say why it refused: $(cat server-udp.log)"
ok "udp: datagrams to a third address refused: client exit $crc, server exit $RC"

# The same client without --tcp-address is served (the check does not refuse the ordinary case).
port=$(free_port) || fail "no free port"
it_bg server2.log --listen "127.0.0.1:$port" --accept-timeout 30 --timeout 5
srv=$BG_PID
ngx_run 60 --connect "127.0.0.1:$port" -m tcp -x pingpong -s 1 -c 5 --timeout 5
crc=$RC
wait_pid "$srv" 20
[[ $crc == 0 && $RC == 0 ]] || { cat server2.log err; fail "client exit $crc, server exit $RC"; }
ok "the peer's own address dialled"
port=$(free_port) || fail "no free port"
it_bg server2-udp.log --listen "127.0.0.1:$port" --accept-timeout 30 --timeout 5
srv=$BG_PID
ngx_run 60 --connect "127.0.0.1:$port" -m udp -x pingpong -s 1 -c 5 --timeout 5
crc=$RC
wait_pid "$srv" 20
[[ $crc == 0 && $RC == 0 ]] || { cat server2-udp.log err; fail "udp: client exit $crc, server exit $RC"; }
ok "udp: the peer's own address used"
echo PASS
