#!/bin/bash
# ngx check over a real rate limit (a real change is flagged, none is not): two
# namespaces joined by a veth pair with tbf on both directions; ngx --listen
# in one, ngx --connect -m tcp -x pingpong --raw in the other, over sizes
# where the link's rate dominates. With --tolerance 100% (only a change
# beyond a factor of 2 counts: a real-time bound, docs/testing.md), a rate
# cut from 400 to 100 Mbit/s between two runs is flagged (exit 1); two runs
# at 400 Mbit/s are not (exit 0). How small a change it catches on real runs
# (400 against 360 Mbit/s) is measured by bench/integration/check-tbf.sh.
# Skipped (77) without namespaces or tbf.
source "$(dirname "$0")/../lib/ngx-run-netns.sh"
netns_require tbf
netns_init
netns_veth_pair v || fail "veth pair"
a=$(netns_get v ns_a) b=$(netns_get v ns_b) ip=$(netns_get v ip_a)
port=7480
measure() { # measure RATE_MBIT FILE: one pingpong run over tbf at RATE
    netns_tbf v "$1mbit" 4kb 50ms || fail "tbf $1 Mbit/s"
    port=$((port + 1))
    netns_bg "$a" "$IT_DIR/server.log" "$NGX" --listen "$ip:$port" --accept-timeout 30 --timeout 20
    local server=$NETNS_BG_PID
    ip netns exec "$b" timeout -k 5 120 "$NGX" --connect "$ip:$port" --timeout 20 -m tcp -x pingpong \
        -s 16Ki,32Ki,64Ki -c 60 --warmup 5 --raw -o "$2" >"$IT_DIR/out" 2>"$IT_DIR/err" </dev/null ||
        fail "ngx --connect at $1 Mbit/s: $(tail -3 "$IT_DIR/err")"
    netns_wait_bg "$server" 20 || fail "server: $(tr '\n' ' ' <"$IT_DIR/server.log")"
    validate_json "$2"
}
# NGX_CHECK_TBF_RATES and NGX_CHECK_TBF_KEEP (a directory the three runs are
# copied to) serve bench/integration/check-tbf.sh.
rates=(${NGX_CHECK_TBF_RATES:-400 400 100}) # baseline, the same again, the changed rate (Mbit/s)
measure "${rates[0]}" base.json
measure "${rates[1]}" same.json
measure "${rates[2]}" changed.json
[[ -z ${NGX_CHECK_TBF_KEEP:-} ]] || cp base.json same.json changed.json "$NGX_CHECK_TBF_KEEP/"
ngx_run 30 check --tolerance 100% base.json changed.json
cat out
[[ $RC == 1 ]] || fail "${rates[0]} -> ${rates[2]} Mbit/s not flagged: exit $RC"
ngx_run 30 check --tolerance 100% base.json same.json
cat out
[[ $RC == 0 ]] || fail "${rates[0]} -> ${rates[1]} Mbit/s flagged: exit $RC"
echo PASS
