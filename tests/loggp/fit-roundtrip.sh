#!/bin/bash
# fit-roundtrip.sh MODULE: `ngx fit` reproduces a run offline (re-fitting a
# saved run gives the pattern's own output). One loggp run of MODULE (sim: the rendezvous set of
# sim-truth.sh, so there is a change point to reproduce; tcp: loopback,
# 1 B..64 KiB, 50 samples) with --raw-prtt, then:
#   ngx fit run.csv  -> the same change points, range bounds, and per range
#                       g, G, o (all from the PRTT medians) and L_eel;
#   ngx fit run.json -> the same, plus L and o_r (the JSON carries o_r, the
#                       raw-PRTT CSV does not: from the CSV, L uses 2o).
# Relative tolerance 1e-6 (the CSV holds 10 significant digits).
source "$(dirname "$0")/truth.sh"
lg_need_cpus
module=${1:-sim}
lg_need_module "$module"
case $module in
sim) args=(-m sim --sim-L 4 --sim-os 2.5 --sim-or 1.5 --sim-g 4 --sim-G 0.001 --sim-S 2048 -s 1-6Ki --grade 1.25) ;;
tcp) args=(-m tcp -s 1-64Ki -c 50) ;;
*) fail "module '$module': expected sim or tcp" ;;
esac
ngx_run 150 "${args[@]}" -x loggp --cpus 0,1 -o "$IT_DIR/run.json" --raw-prtt "$IT_DIR/run.csv"
[[ $RC == 0 ]] || fail "the loggp run failed (exit $RC)"
head -1 "$IT_DIR/run.csv" | grep -qx 'size_bytes,n,delay_us,prtt_1_0_us,prtt_n_0_us,prtt_n_d_us,o_r_us,rel_ci95' ||
    fail "--raw-prtt header: $(head -1 "$IT_DIR/run.csv")"
rows=$(($(wc -l <"$IT_DIR/run.csv") - 1))
sizes=$(json_field "$IT_DIR/run.json" 'len(d["results"])')
[[ $rows == "$sizes" ]] || fail "--raw-prtt has $rows rows for $sizes sizes"
ngx_run 30 fit "$IT_DIR/run.csv" -o "$IT_DIR/fit-csv.json"
[[ $RC == 0 ]] || fail "ngx fit run.csv: exit $RC"
"${LG_CHECK[@]}" same "$IT_DIR/run.json" "$IT_DIR/fit-csv.json" || fail "ngx fit run.csv differs from the run"
# The CSV keeps every digit and the measured spread (rel_ci95), so the model is the run's, exactly:
# lines, L, intervals, quality and the prediction error.
python3 - "$IT_DIR/run.json" "$IT_DIR/fit-csv.json" <<'PY' || fail "ngx fit run.csv: the model is not exactly the run's"
import json, sys
run, fit = (json.load(open(p))["model"] for p in sys.argv[1:3])
diff = sorted(k for k in set(run) | set(fit) if run.get(k) != fit.get(k))
assert not diff, f"fields that differ: {diff}"
print("ngx fit run.csv == the run's model:", len(run["ranges"]), "range(s), error", run["prediction_error"])
PY
ngx_run 30 fit "$IT_DIR/run.json" -o "$IT_DIR/fit-json.json"
[[ $RC == 0 ]] || fail "ngx fit run.json: exit $RC"
"${LG_CHECK[@]}" same "$IT_DIR/run.json" "$IT_DIR/fit-json.json" --with-L || fail "ngx fit run.json differs from the run"
ok "$module: ngx fit reproduces the run from the CSV (g, G, o, change points) and from the JSON (also L, o_r)"
echo PASS
