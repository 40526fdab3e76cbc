#!/bin/bash
# tbf.sh: a tbf rate limit set by netns_tbf holds: a 2 s TCP stream over
# the veth pair measures the configured rate within a factor of 2 (a real-time
# bound, tests/lib/bounds.sh; how close it comes is in bench/net/netns-tools.sh),
# netns_tbf is idempotent and netns_tbf_clear removes it.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/../lib/bounds.sh"
netns_require tbf probe
netns_init

rate_mbit=${NGX_TEST_TBF_MBIT:-100}
netns_veth_pair v || fail "veth pair"
# A bucket of a few KiB, as every emulated NIC has (netns.sh, netns_tbf).
netns_tbf v "${rate_mbit}mbit" 4kb 20ms || fail "tbf"
netns_tbf v "${rate_mbit}mbit" 4kb 20ms || fail "second netns_tbf is not idempotent"
tc -n "$(netns_get v ns_b)" qdisc show dev veth-b | grep -q tbf || fail "no tbf on the b side"

out=$(netns_probe v stream --seconds 2) || fail "stream"
echo "tbf ${rate_mbit} Mbit/s: $out"
got=$(netns_kv "$out" mbit_s)
mss=$(netns_kv "$out" mss)
# What tbf counts per segment: payload + TCP/IP with timestamps (52) + Ethernet (14).
wire=$(awk -v g="$got" -v m="$mss" 'BEGIN { printf "%.1f", g * (m + 66) / m }')
echo "goodput $got Mbit/s = $(awk -v g="$got" -v r="$rate_mbit" 'BEGIN { printf "%.1f", 100 * g / r }')% of the rate;" \
     "with headers $wire Mbit/s = $(awk -v g="$wire" -v r="$rate_mbit" 'BEGIN { printf "%.1f", 100 * g / r }')%"
assert_within_factor "goodput (Mbit/s)" "$got" "$rate_mbit" 2 || fail "goodput $got Mbit/s is not the tbf rate $rate_mbit within a factor of 2"

netns_tbf_clear v
tc -n "$(netns_get v ns_a)" qdisc show dev veth-a | grep -q tbf && fail "tbf still present after netns_tbf_clear"
echo PASS
