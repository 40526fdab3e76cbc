#!/bin/bash
# test-relay-delay.sh: ngx-netdelay's added delay is what was asked for. The
# median TCP ping-pong round trip through a relay with one-way delay D minus
# the one through a relay with no delay must be 2 D within 15% (D = 100 us).
# The bound is wider than the 10% that tests/loggp asserts for L because the
# no-delay path pays wake-up latencies that the delayed path hides while the
# relay spins (seen on a loaded CI machine: -10.4% with lateness under 1 us).
# Shared 2-core machines are noisy: a failed comparison is measured once more.
set -u
source "$(dirname "$0")/netns.sh"
netns_require tun probe
netns_init
fail() { echo "FAIL: $*"; exit 1; }

delay=${NGX_TEST_DELAY_US:-100}
netns_relay_pair r0 0 || fail "relay pair without delay"
netns_relay_pair rd "$delay" || fail "relay pair with $delay us"

ok=0
for attempt in 1 2; do
    base=$(netns_probe r0 rtt --iters 1000) || fail "ping-pong through the 0 us relay"
    slow=$(netns_probe rd rtt --iters 1000) || fail "ping-pong through the $delay us relay"
    m0=$(netns_kv "$base" median_us) md=$(netns_kv "$slow" median_us)
    added=$(awk -v a="$md" -v b="$m0" 'BEGIN { printf "%.2f", a - b }')
    echo "attempt $attempt: relay 0 us: $base"
    echo "attempt $attempt: relay $delay us: $slow"
    echo "attempt $attempt: round trip grew by $added us, expected $((2 * delay)) us" \
         "($(awk -v a="$added" -v e="$((2 * delay))" 'BEGIN { printf "%+.1f", 100 * (a - e) / e }')%)"
    if netns_within "$added" "$((2 * delay))" 15; then ok=1; break; fi
done
for p in r0 rd; do
    _netns_stop_pid "$(netns_get "$p" relay_pid)"
    sed 's/^/  /' "$(netns_get "$p" relay_log)"
done
[[ $ok == 1 ]] || fail "added round-trip delay is not 2 x $delay us within 15%"
echo PASS
