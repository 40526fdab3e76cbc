#!/bin/bash
# `ngx fit` on a saved nodecomm run whose T(k, n) was made here from known
# models, k = 1..4, n = 1 KiB..1 MiB: data of the slides' modified model
# T = max(k n / R_N, alpha + n / R_C) (alpha 20 us, R_C 1e9 B/s, R_N 2.5e9
# B/s) gives those parameters back within 1% from the `modified` fit, with a
# smaller Table-2 error sum than the three-parameter max-rate fit; data of
# the max-rate model T = alpha + k n / min(R_N, k R_C) gives its parameters
# back from `maxrate3`; --nodecomm-regimes cuts the regimes asked for; -o
# writes the refitted document; --format csv prints the three tables as CSV
# (T(k, n), the aggregate bandwidth, the models one row per parameter)
# whose T(k, n) is the run's.
source "$(dirname "$0")/common.sh"
make_run() { # FILE MODEL(modified|maxrate3)
    python3 - "$1" "$2" <<'PY'
import json, sys
alpha, rc, rn = 20.0, 1e9 / 1e6, 2.5e9 / 1e6  # us, bytes/us
pairs, sizes = [1, 2, 3, 4], [1024 << i for i in range(11)]
def t(k, n):
    if sys.argv[2] == "modified":
        return max(k * n / rn, alpha + n / rc)
    return alpha + k * n / min(rn, k * rc)
table = [[t(k, n) for n in sizes] for k in pairs]
doc = {"pattern": "nodecomm", "model": {"kind": "nodecomm",
       "nodecomm": {"pairs": pairs, "sizes": sizes, "T_us": table, "T_mean_us": table}, "ranges": []}}
json.dump(doc, open(sys.argv[1], "w"))
PY
}
for model in modified maxrate3; do
    make_run "$SCRATCH/$model.json" $model
    "$NGX" fit "$SCRATCH/$model.json" --nodecomm-regimes 1- -o "$SCRATCH/$model.fit.json" >"$SCRATCH/out" 2>&1 ||
        { cat "$SCRATCH/out"; fail "ngx fit on $model data: exit $?"; }
    sed -n '/^# nodecomm models/,$p' "$SCRATCH/out"
    nc_py "$SCRATCH/$model.fit.json" "
models = m['ranges'][0]['models']
f = models['$model']
got = (f['alpha_us']['value'], f['R_C_Bps']['value'], f['R_N_Bps']['value'])
want = (20.0, 1e9, 2.5e9)
print('$model fit:', got)
assert all(abs(g - w) <= 0.01 * w for g, w in zip(got, want)), (got, want)
other = models['maxrate3' if '$model' == 'modified' else 'modified']
assert f['rel_error_sum'] < other['rel_error_sum'], (f['rel_error_sum'], other['rel_error_sum'])
" || fail "ngx fit did not recover the $model parameters"
done
"$NGX" fit "$SCRATCH/maxrate3.json" --nodecomm-regimes 1-64Ki,64Ki- -o "$SCRATCH/two.json" >/dev/null ||
    fail "ngx fit with two regimes"
nc_py "$SCRATCH/two.json" "
r = m['ranges']
assert [(x['from_bytes'], x['to_bytes']) for x in r] == [(1, 65536), (65536, None)], r
print('two regimes: 1 B .. 64 KiB, 64 KiB ..')
" || fail "the regimes asked for"
"$NGX" fit "$SCRATCH/maxrate3.json" --nodecomm-regimes 1- --format csv >"$SCRATCH/fit.csv" || fail "ngx fit --format csv"
python3 "$NGX_SOURCE_ROOT/tests/lib/fit_csv.py" "$SCRATCH/fit.csv" \
    "T(k, n) us=bytes,k=1_us,k=2_us,k=3_us,k=4_us" "aggregate bandwidth=bytes,k=1_MBps,k=2_MBps,k=3_MBps,k=4_MBps" \
    "nodecomm models=from_bytes,to_bytes,points,model,parameter,value,ci95_low,ci95_high,not_fitted" ||
    fail "the CSV of ngx fit --format csv"
python3 - "$SCRATCH/fit.csv" "$SCRATCH/maxrate3.json" <<'PY' || fail "the CSV's T(k, n) is not the run's"
import csv, json, sys
block = open(sys.argv[1]).read().split("\n\n")[0]
rows = list(csv.reader(line for line in block.splitlines() if not line.startswith("#")))[1:]
data = json.load(open(sys.argv[2]))["model"]["nodecomm"]
got = [[float(x) for x in row[1:]] for row in rows]
want = [list(column) for column in zip(*data["T_us"])]
assert [int(row[0]) for row in rows] == data["sizes"] and got == want, (got, want)
print(f"csv: T(k, n) of {len(rows)} sizes equals the run's")
PY
echo PASS
