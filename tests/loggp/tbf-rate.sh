#!/bin/bash
# tbf-rate.sh: on a real link with a known rate, loggp's G is 1/rate within
# a factor of 2 (a real-time bound, tests/lib/bounds.py; how close it comes
# is measured by bench/loggp/realtime.sh). Two namespaces joined by a
# veth pair, tbf at 200 Mbit/s on both directions with a small bucket (burst
# 4 kB, so the bucket's free bytes are a small part of every message; queue
# latency 50 ms, so a burst of 16 x 64 KiB is queued, not dropped); `ngx
# --listen` in one namespace, `ngx --connect ... -m tcp -x loggp` in the
# other over 4 KiB..64 KiB (steps of 1.5x), where the link dominates: G of
# the range holding the largest size must be 8/200 = 0.04 us/byte within a
# factor of 2, and that range must hold at least 3 sizes.
# 20 samples per size (a repetition of PRTT(16,d,64 KiB) takes ~90 ms).
IT_NO_TRAP=1
source "$(dirname "$0")/common.sh"
NETNS_NO_TRAP=1
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
trap 'netns_cleanup; it_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
need_tool python3
netns_require tbf
lg_need_module tcp
netns_init
rate=${NGX_TEST_TBF_MBIT:-200}
netns_veth_pair v || fail "veth pair"
netns_tbf v "${rate}mbit" 4kb 50ms || fail "tbf"
a=$(netns_get v ns_a) b=$(netns_get v ns_b) ip=$(netns_get v ip_a)
port=7410
run() {
    port=$((port + 1))
    netns_bg "$a" "$IT_DIR/server.log" "$NGX" --listen "$ip:$port" --accept-timeout 30 --timeout 20
    local srv=$NETNS_BG_PID
    ip netns exec "$b" timeout -k 5 120 "$NGX" --connect "$ip:$port" --timeout 20 -m tcp -x loggp \
        -s 4Ki-64Ki --grade 1.5 -c 20 --warmup 3 -o "$IT_DIR/tbf.json" >"$IT_DIR/out" 2>"$IT_DIR/err" </dev/null
    local rc=$?
    netns_wait_bg "$srv" 20 || echo "server: $(tr '\n' ' ' <"$IT_DIR/server.log")"
    [[ $rc == 0 ]] || { echo "client exit $rc: $(tail -3 "$IT_DIR/err")"; return 1; }
    sed -n '/^# loggp parameters/,$p' "$IT_DIR/out"
}
run || fail "the run over tbf ${rate} Mbit/s"
python3 "$LG_DIR/realtime_check.py" rate "$IT_DIR/tbf.json" --mbit "$rate" || fail "G over tbf ${rate} Mbit/s"
echo PASS
