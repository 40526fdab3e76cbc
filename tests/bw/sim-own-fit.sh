#!/bin/bash
# sim-own-fit.sh A|C: bw --bw-fit over sim in virtual time (exact): the run
# measures the loggp pattern's series at its own sizes, fits them, and every
# row's prediction from that fit equals the measured window within 0.1%, one
# way (uni), both ways (bi), as a message rate and for one-sided puts, at
# every size, and equals the closed form computed here from the sim's
# parameters. The run's JSON
# carries the fitted model (kind loggp, its source this run's fit), which
# `ngx predict --params` reads, and a --bw-params run of that file predicts
# the same windows.
#   A: gap-bound (g + (s-1)G above both overheads at every size)
#   C: gap-bound with per-byte overheads O_s, O_r (the lines of
#      tests/loggp/sim-lines.sh C)
# Not sim-truth.sh's set B (o_r > o_s > g): Hoefler et al. 2007's method
# takes g and G from PRTT(n,0,s) by eq. (7), which assumes the gap, not the
# overhead, spaces a burst, so a CPU-bound link is fitted off the truth (by
# the loggp pattern alike) and its windows are predicted off by up to 10%.
source "$(dirname "$0")/common.sh"
case ${1:?usage: sim-own-fit.sh A|C} in
A) L=5 OS=1 OSB=0 OR=1.5 ORB=0 G_=2 GB=0.001 ;;
C) L=5 OS=2 OSB=0.0005 OR=1.5 ORB=0.00025 G_=6 GB=0.002 ;;
*) fail "parameter set must be A or C" ;;
esac
W=16
SIZES=1,7,64,1Ki,16Ki,64Ki
SIM=(-m sim --sim-clock virtual --sim-L "$L" --sim-os "$OS" --sim-O "$OSB" --sim-or "$OR" --sim-Or "$ORB"
    --sim-g "$G_" --sim-G "$GB" --sim-ring-bytes 4Mi -x bw -s "$SIZES" -c 6 --warmup 2 --bw-window "$W" --timeout 20)

for direction in uni bi; do
    bw_run "$SCRATCH/$direction.txt" "${SIM[@]}" --bw-fit --bw-direction "$direction" -o "$SCRATCH/$direction.json" ||
        { cat "$SCRATCH/$direction.txt"; fail "bw --bw-fit --bw-direction $direction over sim: exit $?"; }
    grep -q "loggp parameters per protocol range (95% intervals), from this run's fit" "$SCRATCH/$direction.txt" ||
        { cat "$SCRATCH/$direction.txt"; fail "the table does not name the model's source"; }
done
bw_run "$SCRATCH/put.txt" "${SIM[@]}" --bw-fit --bw-op put -o "$SCRATCH/put.json" ||
    { cat "$SCRATCH/put.txt"; fail "bw --bw-fit --bw-op put over sim: exit $?"; }
# The saved own-fit run as a model file: the same predictions.
bw_run "$SCRATCH/file.txt" "${SIM[@]}" --bw-params "$SCRATCH/uni.json" -o "$SCRATCH/file.json" ||
    { cat "$SCRATCH/file.txt"; fail "bw --bw-params with the own-fit run: exit $?"; }

python3 - "$SCRATCH" "$W" "$L" "$OS" "$OSB" "$OR" "$ORB" "$G_" "$GB" <<'PY' || fail "own fit's windows against LogGP"
import json, os, sys
sys.path.insert(0, os.environ["BW_TESTS"])
from windows import Windows, close
scratch, W = sys.argv[1], float(sys.argv[2])
windows = Windows(W, *map(float, sys.argv[3:]))
uni, bi, put = windows.uni, windows.bi, windows.put
sizes = [1, 7, 64, 1024, 16384, 65536]
for name, formula, ways in (("uni", uni, 1), ("bi", bi, 2), ("put", put, 1)):
    run = json.load(open(f"{scratch}/{name}.json"))
    assert run["status"] == "complete", run["status"]
    assert run["options"]["pattern_options"]["model"] == "this run's fit (--bw-fit)", run["options"]["pattern_options"]
    model = run["model"]
    assert model["kind"] == "loggp" and model["source"].startswith("this run's fit"), model
    rows = run["results"]
    assert [r["size_bytes"] for r in rows] == sizes, [r["size_bytes"] for r in rows]
    for r in rows:
        s, T = r["size_bytes"], r["median_us"]
        assert close(T, formula(s)), (name, s, T, formula(s))
        assert close(r["predicted_us"], T), (name, s, r["predicted_us"], T)
        assert abs(r["error_pct"]) <= 0.1, (name, s, r["error_pct"])
        assert close(r["predicted_MBps"], r["bandwidth_MBps"]), (name, s, r["predicted_MBps"], r["bandwidth_MBps"])
        assert close(r["predicted_message_rate_per_s"], r["message_rate_per_s"]), (name, s)
        assert close(r["message_rate_per_s"], ways * W * 1e6 / formula(s)), (name, s, r["message_rate_per_s"])
    print(f"{name}: {len(rows)} sizes: the own fit's windows, bandwidths and message rates equal the measured within 0.1%")
own = json.load(open(f"{scratch}/uni.json"))["results"]
run = json.load(open(f"{scratch}/file.json"))
assert run["model"]["source"] == f"--bw-params {scratch}/uni.json", run["model"]["source"]
for a, b in zip(own, run["results"]):
    assert a["predicted_us"] == b["predicted_us"], (a["size_bytes"], a["predicted_us"], b["predicted_us"])
print("--bw-params with the own-fit run: the same predictions")
PY

"$NGX" predict --params "$SCRATCH/uni.json" --op stream-bw -s 16Ki -n "$W" --format json >"$SCRATCH/p.json" \
    2>"$SCRATCH/p.err" || { cat "$SCRATCH/p.err"; fail "ngx predict --params the own-fit run"; }
python3 - "$SCRATCH" <<'PY' || fail "ngx predict against the own-fit run"
import json, sys
scratch = sys.argv[1]
p = json.load(open(f"{scratch}/p.json"))["predictions"][0]
row = next(r for r in json.load(open(f"{scratch}/uni.json"))["results"] if r["size_bytes"] == 16384)
assert abs(p["time_us"] - row["predicted_us"]) <= 1e-9 * row["predicted_us"], (p, row["predicted_us"])
print("ngx predict --params (the own-fit run) --op stream-bw: the run's prediction")
PY
echo PASS
