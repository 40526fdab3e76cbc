#!/bin/bash
# params-per-module.sh: --bw-params with a file of several modules' loggp
# runs (what -m a,b -x loggp -o FILE saves) gives each module of
# -m a,b -x bw its own run's model: every row of the two-module run carries
# the prediction that the module's model alone gives (the two models differ,
# so a row predicted from the other module's would fail); a module the file
# has no run of exits 2 naming the modules it holds.
source "$(dirname "$0")/common.sh"
python3 - "$SCRATCH" <<'PY'
import json, sys
scratch = sys.argv[1]
def model(L):
    return {"kind": "loggp", "ranges": [{"from_bytes": 1, "to_bytes": 1048576, "L_us": L, "o_us": 1, "O_us_per_byte": 0,
            "o_r_us": 1.5, "O_r_us_per_byte": 0, "g_us": 2, "G_us_per_byte": 0.001}]}
runs = [{"module": "sim", "pattern": "loggp", "model": model(5)}, {"module": "tcp", "pattern": "loggp", "model": model(40)}]
json.dump({"runs": runs}, open(f"{scratch}/both.json", "w"))
for run in runs:
    json.dump({"model": run["model"]}, open(f"{scratch}/{run['module']}.json", "w"))
PY
BW=(-x bw -s 64,4Ki -c 3 --warmup 1 --bw-window 4 --timeout 20)
SIM=(--sim-clock virtual --sim-L 5 --sim-os 1 --sim-or 1.5 --sim-g 2 --sim-G 0.001)
bw_run "$SCRATCH/two.txt" -m sim,tcp "${SIM[@]}" "${BW[@]}" --bw-params "$SCRATCH/both.json" -o "$SCRATCH/two.json" ||
    { cat "$SCRATCH/two.txt"; fail "-m sim,tcp with a two-run --bw-params: exit $?"; }
bw_run "$SCRATCH/sim.txt" -m sim "${SIM[@]}" "${BW[@]}" --bw-params "$SCRATCH/sim.json" -o "$SCRATCH/sim-alone.json" ||
    { cat "$SCRATCH/sim.txt"; fail "-m sim with its own model: exit $?"; }
bw_run "$SCRATCH/tcp.txt" -m tcp "${BW[@]}" --bw-params "$SCRATCH/tcp.json" -o "$SCRATCH/tcp-alone.json" ||
    { cat "$SCRATCH/tcp.txt"; fail "-m tcp with its own model: exit $?"; }
python3 - "$SCRATCH" <<'PY' || fail "the predictions"
import json, sys
scratch = sys.argv[1]
runs = json.load(open(f"{scratch}/two.json"))["runs"]
assert [r["module"] for r in runs] == ["sim", "tcp"], [r["module"] for r in runs]
predicted = {}
for run in runs:
    alone = json.load(open(f"{scratch}/{run['module']}-alone.json"))["results"]
    mine = [r["predicted_us"] for r in run["results"]]
    assert mine == [r["predicted_us"] for r in alone], (run["module"], mine, alone)
    predicted[run["module"]] = mine
assert all(s < t for s, t in zip(predicted["sim"], predicted["tcp"])), predicted
print("predicted_us per module:", predicted)
PY
bw_run "$SCRATCH/shm.txt" -m shm "${BW[@]}" --bw-params "$SCRATCH/both.json"
rc=$?
[[ $rc == 2 ]] || { cat "$SCRATCH/shm.txt"; fail "-m shm with a file of sim and tcp runs: exit $rc, expected 2"; }
grep -q "no fitted model of module 'shm' (it holds: sim, tcp)" "$SCRATCH/shm.txt" ||
    { cat "$SCRATCH/shm.txt"; fail "the refusal does not name the modules"; }
echo "ok: $(grep -m1 "module 'shm'" "$SCRATCH/shm.txt")"
echo PASS
