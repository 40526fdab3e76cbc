#!/bin/bash
# relay-drop.sh: ngx-netdelay's random loss: 2000 UDP datagrams through a
# relay dropping 5% arrive with a loss of 5% within a factor of 2 (a
# real-time bound: the TUN queue in front of the relay may drop too, its
# count is printed), and none are lost without --drop.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/../lib/bounds.sh"
netns_require tun probe
netns_init

netns_relay_pair clean 0 || fail "relay pair without loss"
netns_relay_pair lossy 0 0.05 --seed 12345 || fail "relay pair with 5% loss"

out=$(netns_probe clean udp --count 2000) || fail "udp through the clean relay"
echo "no drop: $out"
[[ $(netns_kv "$out" lost) == 0 ]] || fail "datagrams were lost without --drop"

out=$(netns_probe lossy udp --count 2000) || fail "udp through the lossy relay"
echo "5% drop: $out"
loss=$(netns_kv "$out" loss_pct)
for p in clean lossy; do
    echo "pair $p: packets dropped by the TUN queue in front of the relay:" \
         "$(ip netns exec "$(netns_get "$p" ns_a)" cat /sys/class/net/tun-a/statistics/tx_dropped)"
    _netns_stop_pid "$(netns_get "$p" relay_pid)"
    sed 's/^/  /' "$(netns_get "$p" relay_log)"
done
assert_within_factor "loss (%)" "$loss" 5 2 || fail "loss $loss% is not 5% within a factor of 2"
echo PASS
