#!/bin/bash
# relay-delay.sh: with a known added delay, loggp's latency grows by the
# added one-way delay: within a factor of 2 (a real-time bound,
# tests/lib/bounds.py: the delay shows up in L, neither lost nor doubled,
# on any machine), and L_eel with the delay is at least the delay.
# Two namespace pairs joined by the ngx-netdelay TUN relay, one at 0 us, one
# at 200 us each way (same relay overhead in both); `ngx --listen` /
# `ngx --connect ... -m tcp -x loggp -s 1-64` over each. How close L's growth
# comes to 200 us is an accuracy figure: bench/loggp/realtime.sh.
#
# Why L of eq. (1) and not L_eel = PRTT(1,0,1)/2: the delay adds to L only,
# but the relay also changes what the sides spend per message (o measured by
# eq. (6) grew from about 12 to 16-20 us through the delayed relay, whose
# thread competes for the 2 CPUs), and L_eel = L + o_s + o_r carries that:
# on a loaded CI run L_eel grew by 229-237 us while L grew by 200-205 us.
# L_eel is printed for the record.
IT_NO_TRAP=1
source "$(dirname "$0")/common.sh"
NETNS_NO_TRAP=1
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
trap 'netns_cleanup; it_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
need_tool python3
netns_require tun
lg_need_module tcp
netns_init
delay=${NGX_TEST_DELAY_US:-200}
netns_relay_pair r0 0 || fail "relay pair without delay"
netns_relay_pair rd "$delay" || fail "relay pair with $delay us"
port=7420
measure() {  # PAIR OUT.json
    local p=$1 out=$2 a b ip srv rc
    a=$(netns_get "$p" ns_a) b=$(netns_get "$p" ns_b) ip=$(netns_get "$p" ip_a)
    port=$((port + 1))
    netns_bg "$a" "$IT_DIR/server-$p.log" "$NGX" --listen "$ip:$port" --accept-timeout 30 --timeout 20
    srv=$NETNS_BG_PID
    ip netns exec "$b" timeout -k 5 120 "$NGX" --connect "$ip:$port" --timeout 20 -m tcp -x loggp \
        -s 1-64 -c 200 --warmup 20 -o "$out" >"$IT_DIR/out" 2>"$IT_DIR/err" </dev/null
    rc=$?
    netns_wait_bg "$srv" 20 || echo "server: $(tr '\n' ' ' <"$IT_DIR/server-$p.log")"
    [[ $rc == 0 ]] || { echo "client ($p) exit $rc: $(tail -3 "$IT_DIR/err")"; return 1; }
}
measure r0 "$IT_DIR/base.json" || fail "the run without delay"
measure rd "$IT_DIR/delayed.json" || fail "the run with $delay us"
python3 "$LG_DIR/realtime_check.py" delay "$IT_DIR/base.json" "$IT_DIR/delayed.json" --us "$delay" ||
    fail "L growth with $delay us one way"
for p in r0 rd; do
    _netns_stop_pid "$(netns_get "$p" relay_pid)"
    sed 's/^/  relay: /' "$(netns_get "$p" relay_log)"
done
echo PASS
