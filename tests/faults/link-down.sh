#!/bin/bash
# link-down.sh [MODULE]: --listen in namespace A, --connect from namespace B over a
# veth pair, ping-pong with --timeout 2; once a size is reported, the veth in
# A goes down. The client must exit non-zero within the deadline + 1 s with a
# message naming the peer or the deadline; the server must end too (no hang),
# and the client's JSON keeps the sizes done, status "error". MODULE is tcp
# (default) or udp (a silent link is a loss first, then the resync meeting
# over the bootstrap runs into the deadline). Exit 77 without namespaces.
source "$(dirname "$0")/../lib/ngx-run-netns.sh"
module=${1:-tcp}
netns_require
netns_init
netns_veth_pair p || fail "veth pair"
a=$(netns_get p ns_a) b=$(netns_get p ns_b) ip=$(netns_get p ip_a)
timeout_s=2
netns_bg "$a" "$IT_DIR/server.log" "$NGX" --listen "$ip:7312" --accept-timeout 30 --timeout "$timeout_s"
srv=$NETNS_BG_PID
ip netns exec "$b" timeout -k 2 60 "$NGX" --connect "$ip:7312" -m "$module" -x pingpong -s 1-1Mi -c 20000 --passes 1 --max-rel-ci off --warmup 10 \
    --timeout "$timeout_s" -o "$IT_DIR/f.json" >"$IT_DIR/out" 2>"$IT_DIR/err" </dev/null &
cli=$!
IT_PIDS+=("$cli")
for ((i = 0; i < 600; i++)); do
    grep -Eq '^ +1 +1B ' "$IT_DIR/out" && break
    kill -0 "$cli" 2>/dev/null || { cat "$IT_DIR/server.log"; fail "client ended before the fault: $(cat "$IT_DIR/err")"; }
    sleep 0.05
done
grep -Eq '^ +1 +1B ' "$IT_DIR/out" || fail "no size finished within 30 s"
kill -0 "$cli" 2>/dev/null || fail "client ended before the fault"
netns_link_down p a || fail "link down"
wait_pid "$cli" 20
crc=$RC celapsed=$ELAPSED
echo "link down: client exit $crc after $celapsed s; stderr: $(tr '\n' ' ' <"$IT_DIR/err")"
netns_wait_bg "$srv" 10
src=$?
echo "server exit $src; log: $(tr '\n' ' ' <"$IT_DIR/server.log")"
[[ $crc != 0 && $crc != 124 ]] || fail "client exit $crc: expected a failure, not success or a hang"
[[ $crc == 1 ]] || fail "client exit $crc, expected 1 (runtime failure)"
le "$celapsed" "$((timeout_s + 1))" || fail "client took $celapsed s, more than the deadline + 1 s"
grep -Eqi 'peer|within|deadline' "$IT_DIR/err" || fail "the client's message names neither the peer nor the deadline"
grep -Eq "^ngx: $module pingpong: size [0-9]+ [KMG]?i?B, repetition [0-9]+" "$IT_DIR/err" ||
    fail "the client's message does not name the step ('$module pingpong: size N B, repetition N')"
! grep -Eq 'AddressSanitizer|runtime error:' "$IT_DIR/err" || fail "a sanitizer reported an error"
[[ $src == 1 ]] || fail "server exit $src: expected 1 (a runtime failure, not success, a hang or a crash)"
check_results "$IT_DIR/f.json" "$module" - 20000 --status error --min-results 1 --bootstrap tcp
ok "$module: link down mid-run"
echo PASS
