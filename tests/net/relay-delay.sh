#!/bin/bash
# relay-delay.sh: ngx-netdelay adds the delay it was asked for. The
# median TCP ping-pong round trip through a relay with one-way delay D minus
# the one through a relay with no delay must be 2 D within a factor of 2
# (D = 100 us; a real-time bound, tests/lib/bounds.sh): on any machine the
# delay shows up, neither lost nor doubled. How close it comes is an
# accuracy figure: bench/net/netns-tools.sh.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/../lib/bounds.sh"
netns_require tun probe
netns_init
delay=${NGX_TEST_DELAY_US:-100}
netns_relay_pair r0 0 || fail "relay pair without delay"
netns_relay_pair rd "$delay" || fail "relay pair with $delay us"
base=$(netns_probe r0 rtt --iters 1000) || fail "ping-pong through the 0 us relay"
slow=$(netns_probe rd rtt --iters 1000) || fail "ping-pong through the $delay us relay"
m0=$(netns_kv "$base" median_us) md=$(netns_kv "$slow" median_us)
added=$(awk -v a="$md" -v b="$m0" 'BEGIN { printf "%.2f", a - b }')
echo "relay 0 us: $base"
echo "relay $delay us: $slow"
for p in r0 rd; do
    _netns_stop_pid "$(netns_get "$p" relay_pid)"
    sed 's/^/  /' "$(netns_get "$p" relay_log)"
done
assert_within_factor "round trip growth (us)" "$added" "$((2 * delay))" 2 ||
    fail "the round trip grew by $added us, not 2 x $delay us within a factor of 2"
echo PASS
