#!/bin/bash
# LoGH{sS}P (Al-Tawil and Moritz 1998, section 3.3, eqs. 8-9) from two saved
# overhead runs, `ngx fit --loghssp INTRA INTER`, in two parts.
#
# Part 1, exact (sim in virtual time, known parameters): both runs measure
# 1 B .. 64 KiB, the model is fitted without 32 KiB and predicts it
# (ngx predict). The fitted tiers must be the sim's (s_s = o_s, s_r = o_r,
# S = G of the intra run; o_s, o_r, L, G of the inter run) and eq. (9) must
# equal the inter run's measured 32 KiB, both within 0.5%: a G or S taken
# from the held-out size, or from a single size, or a wrong intercept, fails.
#
# Part 2, real: intra-node = the shm module on this machine, inter-node =
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
sizes=1,1Ki,16Ki,32Ki,64Ki
held_out=32768 # bytes: measured, left out of the fit, predicted


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

# the runs without the held-out size, for the fit
without_held_out() {  # RUN.json OUT.json
    python3 - "$1" "$2" "$held_out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["results"] = [r for r in doc["results"] if r["size_bytes"] != int(sys.argv[3])]
json.dump(doc, open(sys.argv[2], "w"))
PY
}
predict() {  # TIER SIZE
    "$NGX" predict --params "$SCRATCH/model.json" --op p2p --tier "$1" -s "$2" | sed -n 's/.*T_s-r \([0-9.]*\) us.*/\1/p'
}

# Fits the runs without the held-out size, checks the model, and
# prints eqs. (8)/(9) at the held-out size beside the measured time.
fit_and_check() {
    without_held_out "$SCRATCH/intra.json" "$SCRATCH/intra-fit.json" && without_held_out "$SCRATCH/inter.json" \
        "$SCRATCH/inter-fit.json" || fail "leaving $held_out B out of the runs"
    "$NGX" fit --loghssp "$SCRATCH/intra-fit.json" "$SCRATCH/inter-fit.json" -o "$SCRATCH/model.json" |
        tee "$SCRATCH/fit.txt" || fail "ngx fit --loghssp failed"
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
PY

    held_out_report
}

# Prints eqs. (8)/(9) at the held-out size against the runs' measured half
# round trip there (minimum of the samples; the median beside it).
held_out_report() {
    python3 - "$SCRATCH/intra.json" "$SCRATCH/inter.json" "$held_out" "$(predict intra $held_out)" \
        "$(predict inter $held_out)" <<'PY'
import json, sys
size = int(sys.argv[3])
for path, predicted, eq in ((sys.argv[1], float(sys.argv[4]), 8), (sys.argv[2], float(sys.argv[5]), 9)):
    r = next(r for r in json.load(open(path))["results"] if r["size_bytes"] == size)
    measured = r["half_rtt_min_us"]
    print(f'held out {size} B: eq. ({eq}) {predicted:.2f} us, measured {measured:.2f} us (median '
          f'{r["half_rtt_us"]:.2f}), error {100 * (predicted - measured) / measured:+.1f}%')
PY
}

# Part 1: the sim's tiers, exact. The intra run: a short, wide link
# (L 1 us, G 0.0002 us/B) and small overheads; the inter run: a long,
# narrow one with larger overheads.
exact_part() {
    local os=0.3 or=0.5 g=0.0002 Os=4 Or=2 L=20 G=0.004
    sim_run "$SCRATCH/intra.json" --sim-os $os --sim-or $or --sim-L 1 --sim-G $g || fail "the sim intra run failed"
    sim_run "$SCRATCH/inter.json" --sim-os $Os --sim-or $Or --sim-L $L --sim-G $G || fail "the sim inter run failed"
    fit_and_check || fail "the fit of the sim runs failed"
    python3 - "$SCRATCH/model.json" "$SCRATCH/inter.json" "$held_out" "$(predict inter $held_out)" \
        $os $or $g $Os $Or $L $G <<'PY' || fail "LoGH{sS}P of the sim runs is not the sim's"
import json, sys
m, inter = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
size, predicted = int(sys.argv[3]), float(sys.argv[4])
os_, or_, g, Os, Or, L, G = map(float, sys.argv[5:])
truth = {("intra", "s_s_us"): os_, ("intra", "s_r_us"): or_, ("intra", "S_us_per_byte"): g,
         ("inter", "o_s_us"): Os, ("inter", "o_r_us"): Or, ("inter", "L_us"): L, ("inter", "G_us_per_byte"): G}
bad = [f"{t}.{k} {m[t][k]:.6g} (sim {v:.6g})" for (t, k), v in truth.items() if abs(m[t][k] - v) > 0.005 * v]
measured = next(r for r in inter["results"] if r["size_bytes"] == size)["half_rtt_min_us"]
print(f"sim, held out {size} B: eq. (9) {predicted:.3f} us, measured {measured:.3f} us")
if abs(predicted - measured) > 0.005 * measured:
    bad.append(f"eq. (9) at {size} B {predicted:.3f} us against {measured:.3f} us measured")
assert not bad, "; ".join(bad)
PY
}
sim_run() {  # OUT SIM_OPTION...
    local out=$1
    shift
    timeout -k 5 60 "$NGX" -m sim --sim-clock virtual "$@" -x overhead -s $sizes -c 20 --warmup 2 -o "$out" \
        >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; return 1; }
}

exact_part
echo "part 1 (sim, exact): the tiers and the held-out size are the sim's"

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
