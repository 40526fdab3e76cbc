#!/bin/bash
# LoGH{sS}P (paper 003 section 3.3, eqs. 8-9) from two saved overhead runs:
# intra-node = the shm module on this machine, inter-node = the tcp module
# between two network namespaces joined by a veth pair (--listen/--connect;
# each namespace its own "node"). Checks:
#  1. `ngx fit --loghssp INTRA INTER -o MODEL` writes s_s, s_r, S and
#     o_s, o_r, L, G, all finite and >= 0, and prints the tiers' ratio;
#  2. the gap the runs show: for small messages (<= 1 KiB: overheads and
#     latency) the inter-node end-to-end time is more than 5x the
#     intra-node one (the paper's "factor of ten"; a syscall and the kernel's
#     stack against shared memory), and so are the overheads
#     (o_s + o_r > s_s + s_r). Not asserted for large messages: a veth pair
#     on one host copies through the same memory as shm (G/S is printed);
#  3. eq. (9) reproduces the inter-node run at its smallest size (where L
#     is taken) within 5%;
#  4. `ngx predict --params MODEL --op p2p --tier intra|inter -s SIZE` gives
#     eq. (8) / eq. (9) of the model, inter > intra.
source "$(dirname "$0")/common.sh"
NETNS_NO_TRAP=1
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
trap 'netns_cleanup; rm -rf "$SCRATCH"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
netns_require
sizes=1,1Ki,16Ki,64Ki

"$NGX" -m shm -x overhead -s $sizes -c 300 --warmup 30 --cpus 0,1 -o "$SCRATCH/intra.json" >"$SCRATCH/log" 2>&1 ||
    { cat "$SCRATCH/log"; fail "the intra-node (shm) run failed"; }

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
exec 9>/tmp/ngx-net.lock
flock -w 240 9 || fail "/tmp/ngx-net.lock stayed busy for 240 s"
inter_run || fail "the inter-node (tcp across namespaces) run failed"
flock -u 9

"$NGX" fit --loghssp "$SCRATCH/intra.json" "$SCRATCH/inter.json" -o "$SCRATCH/model.json" | tee "$SCRATCH/fit.txt" ||
    fail "ngx fit --loghssp failed"
grep -q "^# ratio inter/intra" "$SCRATCH/fit.txt" || fail "no ratio of the tiers printed"
python3 - "$SCRATCH/model.json" "$SCRATCH/inter.json" <<'PY' || fail "the LoGH{sS}P model does not show the tiers"
import json, math, sys
m, inter = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert m["kind"] == "loghssp" and m["pattern"] == "overhead", m
values = list(m["intra"].values()) + list(m["inter"].values())
assert all(math.isfinite(v) and v >= 0 for v in values), m
i, o = m["intra"], m["inter"]
print(f'intra: s_s {i["s_s_us"]:.3f} us, s_r {i["s_r_us"]:.3f} us, S {i["S_us_per_byte"]:.6f} us/B; '
      f'inter: o_s {o["o_s_us"]:.3f}, o_r {o["o_r_us"]:.3f}, L {o["L_us"]:.3f} us, G {o["G_us_per_byte"]:.6f} us/B')
assert o["o_s_us"] + o["o_r_us"] > i["s_s_us"] + i["s_r_us"], "inter-node overheads not above intra-node"
for row in m["ratio"]["sizes"]:
    print(f'{row["size_bytes"]} B: intra {row["intra_measured_us"]:.2f} us (eq. 8: {row["intra_predicted_us"]:.2f}), '
          f'inter {row["inter_measured_us"]:.2f} us (eq. 9: {row["inter_predicted_us"]:.2f}), ratio {row["ratio"]:.1f}')
    if row["size_bytes"] <= 1024:
        assert row["ratio"] > 5, row
first = m["ratio"]["sizes"][0]
assert abs(first["inter_predicted_us"] - first["inter_measured_us"]) <= 0.05 * first["inter_measured_us"], first
PY

predict() { "$NGX" predict --params "$SCRATCH/model.json" --op p2p --tier "$1" -s 1Ki | sed -n 's/.*T_s-r \([0-9.]*\) us.*/\1/p'; }
intra=$(predict intra) inter=$(predict inter)
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
