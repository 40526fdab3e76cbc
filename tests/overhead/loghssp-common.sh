# loghssp-common.sh: LoGH{sS}P from two saved overhead runs (sourced by
# loghssp.sh, real transports, and loghssp-fit-sim.sh, the sim in
# virtual time): both runs measure SIZES, the model is fitted without the
# held-out size and predicts it (ngx predict); fit_and_check checks the
# model's form and prints eqs. (8)/(9) at the held-out size.
sizes=1,1Ki,16Ki,32Ki,64Ki
held_out=32768 # bytes: measured, left out of the fit, predicted
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
    "$NGX" predict --params "$SCRATCH/model.json" --op p2p --tier "$1" -s "$2" --format json |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["predictions"][0]["time_us"])'
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
