#!/bin/bash
# LoGH{sS}P (Al-Tawil and Moritz 1998, section 3.3, eqs. 8-9) from two saved
# overhead runs, `ngx fit --loghssp INTRA INTER`, on real transports (the
# sim's exact case: loghssp-fit-sim.sh; the fit: loghssp-common.sh):
# intra-node = the shm module on this machine, inter-node =
# the tcp module between two network namespaces joined by a veth pair
# (--listen/--connect; each namespace its own "node"). Checks:
#  1. the model holds s_s, s_r, S and o_s, o_r, L, G, all finite and >= 0,
#     and the fit prints the tiers' ratio;
#  2. the gap the runs show: for small messages (<= 1 KiB: overheads and
#     latency) the inter-node end-to-end time is more than 5x the intra-node
#     one (the paper's "factor of ten"; a syscall and the kernel's stack
#     against shared memory; 90-200x measured), and so are the overheads
#     (o_s + o_r > s_s + s_r). Not asserted for large messages: a veth pair
#     on one host copies through the same memory as shm (G/S is printed);
#  3. `ngx predict --params MODEL --op p2p --tier intra|inter -s SIZE` gives
#     eq. (8) / eq. (9) of the model, inter > intra.
# How well eqs. (8)/(9) predict a held-out size on the real transports is
# printed, not asserted: on a shared 2-CPU VM tcp's half round trip across
# the veth pair is bimodal per size (6 or 19 us at 1 B by whether the
# receiving CPU was awake; 32 KiB once 29 us between 12 us at 16 KiB and
# 32 us at 64 KiB), so it is an accuracy figure: bench/overhead/loghssp.sh
# collects it over rounds.
source "$(dirname "$0")/common.sh"
NETNS_NO_TRAP=1
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
trap 'netns_cleanup; rm -rf "$SCRATCH"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
netns_require
source "$(dirname "$0")/loghssp-common.sh"


inter_run() {
    netns_init
    netns_veth_pair p || return 1
    local a b ip port=7341 srv crc
    a=$(netns_get p ns_a) b=$(netns_get p ns_b) ip=$(netns_get p ip_a)
    netns_bg "$a" "$SCRATCH/server.log" env NGX_MODULE_PATH="$NGX_MODULE_PATH" NGX_PATTERN_PATH="$NGX_PATTERN_PATH" \
        "$NGX" --listen "$ip:$port" --accept-timeout 30
    srv=$NETNS_BG_PID
    NETNS_CMD_TIMEOUT=120 netns_exec "$b" "$NGX" --connect "$ip:$port" -m tcp -x overhead -s $sizes -c 300 \
        --warmup 30 -o "$SCRATCH/inter.json" >"$SCRATCH/log" 2>&1
    crc=$?
    netns_wait_bg "$srv" 20 || { cat "$SCRATCH/server.log"; return 1; }
    [[ $crc == 0 ]] || { cat "$SCRATCH/log"; return 1; }
}
measure() { # both runs
    "$NGX" -m shm -x overhead -s $sizes -c 300 --warmup 30 --cpus 0,1 -o "$SCRATCH/intra.json" >"$SCRATCH/log" 2>&1 ||
        { cat "$SCRATCH/log"; fail "the intra-node (shm) run failed"; }
    exec 9>/tmp/ngx-net.lock
    flock -w 240 9 || fail "/tmp/ngx-net.lock stayed busy for 240 s"
    inter_run || fail "the inter-node (tcp across namespaces) run failed"
    flock -u 9
}

# Part 2: the real transports.
measure
fit_and_check || fail "the LoGH{sS}P model of the real runs"

intra=$(predict intra 1Ki) inter=$(predict inter 1Ki)
echo "predict 1 KiB: intra $intra us, inter $inter us"
python3 - "$SCRATCH/model.json" "$intra" "$inter" <<'PY' || fail "ngx predict is not eqs. (8)/(9) of the model"
import json, sys
m, intra, inter = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3])
i, o, k = m["intra"], m["inter"], 1024
eq8 = i["s_s_us"] + i["s_r_us"] + (k - 1) * i["S_us_per_byte"]
eq9 = o["o_s_us"] + o["o_r_us"] + (k - 1) * o["G_us_per_byte"] + o["L_us"]
assert abs(intra - eq8) < 1e-3 and abs(inter - eq9) < 1e-3 and inter > intra, (intra, eq8, inter, eq9)
PY
echo PASS
