#!/bin/bash
# LoGH{sS}P (Al-Tawil and Moritz 1998, section 3.3, eqs. 8-9) from two saved
# overhead runs, `ngx fit --loghssp INTRA INTER`, over the sim in virtual
# time (exact, known parameters): both runs measure 1 B .. 64 KiB, the model
# is fitted without 32 KiB and predicts it (ngx predict). The fitted tiers
# must be the sim's (s_s = o_s, s_r = o_r, S = G of the intra run; o_s, o_r,
# L, G of the inter run) and eq. (9) must equal the inter run's measured
# 32 KiB, both within 0.5%: a G or S taken from the held-out size, or from a
# single size, or a wrong intercept, fails. --format csv prints the tiers'
# parameters, their ratio and eqs. (8)/(9) per size as CSV. The same on real
# transports: loghssp.sh.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/loghssp-common.sh"

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
    ngx_deadline 60 -m sim --sim-clock virtual "$@" -x overhead -s $sizes -c 20 --warmup 2 -o "$out" \
        >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; return 1; }
}

csv_part() {
    "$NGX" fit --loghssp "$SCRATCH/intra-fit.json" "$SCRATCH/inter-fit.json" --format csv >"$SCRATCH/fit.csv" ||
        fail "ngx fit --loghssp --format csv"
    python3 "$NGX_SOURCE_ROOT/tests/lib/fit_csv.py" "$SCRATCH/fit.csv" "LoGH{sS}P=tier,parameter,value" \
        "ratio inter/intra=overheads,gap_per_byte" \
        "eqs. (8) and (9)=size_bytes,intra_predicted_us,intra_measured_us,inter_predicted_us,inter_measured_us,ratio" ||
        fail "the CSV of ngx fit --loghssp --format csv"
}

exact_part
csv_part
echo PASS

