#!/bin/bash
# listen-access.sh: what a --listen server accepts: the clients --allow and
# --secret-file admit, and runs within the operator's limits (--max-*).
# --allow: a client outside the networks is closed on and logged, one inside
# is served. --secret-file: a client without the secret, or with another one,
# is refused (exit 2 naming why) and the server goes on; a client holding it
# is served, and neither the secret nor its file's name crosses the wire (a
# relay records the control connection); a client with a secret refuses a
# server without one. Limits:
# --pairs, --timeout, sizes and -c beyond --max-* are refused naming the
# limit, a client within them is served; the server's own --timeout wins
# over the client's. The start-up line says where the
# server listens (a bare port: every interface) and what it accepts; server
# options are refused on a client.
source "$(dirname "$0")/../lib/ngx-run.sh"
run_args=(-m tcp -x pingpong -s 1-64 -c 10 --warmup 1)
# start_server LOG HOST_PREFIX ARG...: a server on HOST_PREFIX$port ("" for a bare port); sets srv, port
start_server() {
    local log=$1 host=$2
    shift 2
    port=$(free_port) || fail "no free port"
    it_bg "$log" --listen "$host$port" --accept-timeout 60 "$@"
    srv=$BG_PID
    for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
    grep -q 'listening on' "$log" || fail "no start-up line: $(cat "$log")"
}
# expect_refused WHAT EXIT PATTERN CLIENT_ARG...: the client exits EXIT naming PATTERN
expect_refused() {
    local what=$1 code=$2 pattern=$3
    shift 3
    ngx_run 30 --connect "127.0.0.1:$port" "$@"
    [[ $RC == "$code" ]] || fail "$what: client exit $RC, expected $code: $(cat err)"
    grep -q -- "$pattern" err || fail "$what: the client's message does not say '$pattern': $(cat err)"
    kill -0 "$srv" 2>/dev/null || fail "$what: the server ended"
    ok "$what: refused ($(grep -o -- "$pattern.*" err | head -1 | cut -c1-110))"
}
expect_served() { # WHAT CLIENT_ARG...: the client and the (one-client) server exit 0
    local what=$1
    shift
    ngx_run 60 --connect "127.0.0.1:$port" "$@"
    local crc=$RC
    wait_pid "$srv" 20
    [[ $crc == 0 && $RC == 0 ]] || { cat err; fail "$what: client exit $crc, server exit $RC"; }
    ok "$what: served"
}

# --allow: 127.0.0.1 is outside 127.0.0.2/32 (closed on, logged), inside 10.0.0.0/8,127.0.0.0/24.
start_server allow1.log 127.0.0.1: --allow 127.0.0.2/32
grep -q 'accepting connections from 127.0.0.2/32' allow1.log || fail "the start-up line: $(cat allow1.log)"
ngx_run 30 --connect "127.0.0.1:$port" "${run_args[@]}" --timeout 3
[[ $RC == 1 ]] || fail "a client outside --allow: exit $RC, expected 1 (closed on): $(cat err)"
grep -q 'refused a connection from 127.0.0.1: not in --allow 127.0.0.2/32' allow1.log ||
    fail "no log line for the refused connection: $(cat allow1.log)"
kill -TERM "$srv"
wait_pid "$srv" 10
ok "a client outside --allow closed on and logged"
start_server allow2.log 127.0.0.1: --allow 10.0.0.0/8,127.0.0.0/24
expect_served "a client inside --allow" "${run_args[@]}"

# --secret-file on both sides.
printf 'the-secret-of-this-test-0123456789\n' >secret
printf 'another-secret-entirely-9876543210\n' >other
chmod 600 secret other
start_server secret.log 127.0.0.1: --secret-file secret
grep -q 'holding the shared secret' secret.log || fail "the start-up line: $(cat secret.log)"
expect_refused "no secret" 2 'requires a shared secret' "${run_args[@]}"
expect_refused "a wrong secret" 2 'the shared secret does not match' "${run_args[@]}" --secret-file other
grep -c 'dropped the client' secret.log | grep -q 2 || fail "two dropped clients expected in the log: $(cat secret.log)"
# The right secret, the control connection carried by a relay that records
# it: neither the secret nor its file's name crosses the wire (or goes into the JSON).
relay_port=$(free_port) || fail "no free port"
timeout -k 5 60 python3 "$IT_SCRIPT_DIR/listen_client.py" --deadline 40 relay "$relay_port" "$port" wire.log >relay.out 2>&1 &
relay=$!
for _ in $(seq 50); do grep -q 'relay ready' relay.out && break; sleep 0.1; done
ngx_run 60 --connect "127.0.0.1:$relay_port" "${run_args[@]}" --secret-file secret -o sec.json
crc=$RC
wait_pid "$srv" 20
[[ $crc == 0 && $RC == 0 ]] || { cat err secret.log relay.out; fail "the right secret: client exit $crc, server exit $RC"; }
wait "$relay"
grep -q 'auth hmac-sha256' wire.log || fail "the relay did not carry the handshake: $(head -c 300 wire.log | od -c | head)"
grep -q -e 'the-secret-of-this-test' -e 'secret-file' wire.log && fail "the secret or its file's name crossed the wire"
grep -q -- 'secret-file' sec.json && fail "the secret file's name went into the JSON"
ok "the right secret: served; neither the secret nor its file's name on the wire ($(wc -c <wire.log) bytes seen)"
start_server open.log 127.0.0.1:
expect_refused "a client with a secret, a server without" 2 'does not ask for a shared secret' "${run_args[@]}" \
    --secret-file secret
kill -TERM "$srv"
wait_pid "$srv" 10
chmod 644 secret
ngx_run 10 --listen "127.0.0.1:$(free_port)" --secret-file secret
[[ $RC == 2 ]] && grep -q 'chmod 600' err || fail "a secret file others can read: exit $RC, $(cat err)"
ok "a secret file others can read refused"

# Limits, on a bare port (every interface, said on start).
start_server limits.log "" --max-pairs 2 --max-timeout 5 --max-size 4Ki --max-count 100
grep -q 'listening on every interface' limits.log || fail "a bare port must say every interface: $(cat limits.log)"
grep -q -- '--max-pairs 2, --max-timeout 5 s, --max-size 4 KiB, --max-count 100' limits.log ||
    fail "the limits are not on the start-up line: $(cat limits.log)"
expect_refused "--pairs over --max-pairs" 2 "asks for --pairs 3, beyond this server's limit of 2 (--max-pairs)" \
    "${run_args[@]}" --pairs 3
expect_refused "--timeout over --max-timeout" 2 "limit of 5 s (--max-timeout)" "${run_args[@]}" --timeout 10
expect_refused "sizes over --max-size" 2 "(--max-size)" -m tcp -x pingpong -s 1-8Ki -c 10 --timeout 5
expect_refused "-c over --max-count" 2 "asks for -c 1000, beyond this server's limit of 100 (--max-count)" \
    -m tcp -x pingpong -s 1-64 -c 1000 --timeout 5
expect_served "a client within the limits" "${run_args[@]}" --timeout 5 --pairs 2

# The server's own --timeout wins over its client's: a client that asks for
# --timeout 30 and then never opens its second pair's connection is given up
# on after the server's 2 s.
start_server precedence.log 127.0.0.1: --timeout 2
timeout -k 5 60 python3 "$IT_SCRIPT_DIR/listen_client.py" --deadline 40 propose "$port" --connect "127.0.0.1:$port" \
    -m tcp -x pingpong -s 1 -c 5 --pairs 2 --timeout 30 >propose.out 2>&1
grep -q '^answer after .*: ok ' propose.out || fail "the run was not accepted: $(cat propose.out precedence.log)"
wait_pid "$srv" 25
[[ $RC == 1 ]] || fail "the server with --timeout 2: exit $RC after ${ELAPSED}s, expected 1: $(cat precedence.log)"
grep -q "pair connections.*within 2 s" precedence.log || fail "not the server's deadline: $(cat precedence.log)"
le "$ELAPSED" 20 || fail "the server waited ${ELAPSED}s: the client's --timeout 30 won"
ok "the server's --timeout wins: gave up on the missing pair after ${ELAPSED}s"

# Server options are the server's.
ngx_run 10 --connect "127.0.0.1:1" "${run_args[@]}" --max-pairs 4
[[ $RC == 2 ]] && grep -q -- '--max-pairs is an option of the server' err || fail "--max-pairs on a client: $RC $(cat err)"
ok "server options refused on a client"
echo PASS
