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
#  3. eqs. (8) and (9) at a size held out of the fit: both runs measure
#     32 KiB too, the model is fitted without it (the runs' other sizes: L
#     at 1 B, G and S the median slope) and predicts it (ngx predict); the
#     prediction must be within a tolerance of the measured half round trip
#     (minimum of 100) of that size: the run's own noise there (its median
#     less its minimum, relative: 5-7% seen, 36% in a run at load 12) plus
#     what one straight line from 1 B cannot follow: shm's cost per byte
#     falls with the size (caches: the median slope, 1-16 KiB, over-predicts
#     32 KiB by 18-25% in quiet runs), hence 25% for eq. (8); the tcp curve
#     is straighter above 16 KiB (eq. 9 off by 6-9%), hence 15% for eq. (9).
#     Neither L nor G, S is taken at 32 KiB, so the check can fail: a G
#     from a stalled size, 60x too large, once seen (offline.cpp), would;
#  4. `ngx predict --params MODEL --op p2p --tier intra|inter -s SIZE` gives
#     eq. (8) / eq. (9) of the model, inter > intra.
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

# Fits the runs without the held-out size, checks the model, and tells
# whether eqs. (8)/(9) predict the held-out size.
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

    python3 - "$SCRATCH/intra.json" "$SCRATCH/inter.json" "$held_out" "$(predict intra $held_out)" \
        "$(predict inter $held_out)" <<'PY'
import json, sys
MISFIT_INTRA, MISFIT_INTER = 0.25, 0.15  # what the line cannot follow (see above)
size = int(sys.argv[3])
ok = True
for path, predicted, eq, misfit in ((sys.argv[1], float(sys.argv[4]), 8, MISFIT_INTRA),
                                    (sys.argv[2], float(sys.argv[5]), 9, MISFIT_INTER)):
    r = next(r for r in json.load(open(path))["results"] if r["size_bytes"] == size)
    measured = r["half_rtt_min_us"]
    noise = (r["half_rtt_us"] - measured) / measured
    tol = misfit + noise
    err = (predicted - measured) / measured
    good = abs(err) <= tol
    ok &= good
    print(f'held out {size} B: eq. ({eq}) {predicted:.2f} us, measured {measured:.2f} us (median '
          f'{r["half_rtt_us"]:.2f}), error {100 * err:+.1f}% (tolerance {100 * misfit:.0f}% + noise {100 * noise:.0f}%){"" if good else "  <-- FAILS"}')
sys.exit(0 if ok else 1)
PY
}

# Three attempts: tcp's 1 B half round trip across the veth pair is bimodal
# on this VM (about 6 or 19 us, by whether the receiving CPU was awake), and
# L is taken at 1 B, so one run in four or five missed the held-out size
# with the module before and after issue 16's changes alike.
for attempt in 1 2 3; do
    measure
    fit_and_check && break
    [[ $attempt == 3 ]] && fail "eqs. (8)/(9) do not predict the held-out size (3 attempts)"
    echo "attempt $attempt missed the held-out size (timing noise); measuring again"
done

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
