#!/bin/bash
# sim-truth.sh A|B: over sim in virtual time (exact), every window the bw
# pattern measures equals its LogGP prediction within 0.1%, one way
# (--bw-direction uni), both ways (bi) and for 2 concurrent pairs (message
# rate per pair and in total), at every size; checked twice: against the
# pattern's own --bw-params column (models/loggp/loggp.hpp, stream_window and
# exchange_window) and against the closed forms computed here from the
# sim's parameters. `ngx predict --op stream-bw|stream-bibw|message-rate`
# gives the same numbers. One-sided (--bw-op put|get, ABI 1.7): put + flush
# and get + flush, alone (latency) and in windows, with --verify, equal
# LogGP's put_window and get_window likewise.
#   A: gap-bound (g + (s-1)G above both overheads at every size)
#   B: CPU-bound small messages (o_r > o_s > g) with per-byte overheads O_s, O_r
source "$(dirname "$0")/common.sh"
case ${1:?usage: sim-truth.sh A|B} in
A) L=5 OS=1 OSB=0 OR=1.5 ORB=0 G_=2 GB=0.001 ;;
B) L=5 OS=3 OSB=0.0002 OR=4 ORB=0.0003 G_=1 GB=0.0005 ;;
*) fail "parameter set must be A or B" ;;
esac
cat >"$SCRATCH/model.json" <<JSON
{"model": {"kind": "loggp", "ranges": [{"from_bytes": 1, "to_bytes": 1048576, "L_us": $L, "o_us": $OS,
  "O_us_per_byte": $OSB, "o_r_us": $OR, "O_r_us_per_byte": $ORB, "g_us": $G_, "G_us_per_byte": $GB}]}}
JSON
W=16
SIZES=1,7,64,1Ki,16Ki,64Ki
SIM=(-m sim --sim-clock virtual --sim-L "$L" --sim-os "$OS" --sim-O "$OSB" --sim-or "$OR" --sim-Or "$ORB"
    --sim-g "$G_" --sim-G "$GB" --sim-ring-bytes 4Mi -x bw -s "$SIZES" -c 6 --warmup 2
    --bw-params "$SCRATCH/model.json" --timeout 20)

for direction in uni bi; do
    bw_run "$SCRATCH/$direction.txt" "${SIM[@]}" --bw-window "$W" --bw-direction "$direction" -o "$SCRATCH/$direction.json" ||
        { cat "$SCRATCH/$direction.txt"; fail "bw --bw-direction $direction over sim: exit $?"; }
done
for op in put get; do # one-sided: latency (W = 1) and bandwidth (W), with --verify
    for w in 1 "$W"; do
        bw_run "$SCRATCH/$op-$w.txt" "${SIM[@]}" --bw-op "$op" --bw-window "$w" --verify -o "$SCRATCH/$op-$w.json" ||
            { cat "$SCRATCH/$op-$w.txt"; fail "bw --bw-op $op --bw-window $w over sim: exit $?"; }
    done
done
bw_run "$SCRATCH/pairs.txt" --pairs 2 "${SIM[@]}" --bw-window "$W" -o "$SCRATCH/pairs.json" ||
    { cat "$SCRATCH/pairs.txt"; fail "bw with 2 pairs over sim: exit $?"; }

python3 - "$SCRATCH" "$W" "$L" "$OS" "$OSB" "$OR" "$ORB" "$G_" "$GB" <<'PY' || fail "windows against LogGP"
import json, os, sys
sys.path.insert(0, os.environ["BW_TESTS"])
from windows import Windows, close
scratch, W = sys.argv[1], float(sys.argv[2])
windows = Windows(W, *map(float, sys.argv[3:]))
uni, bi = windows.uni, windows.bi
sizes = [1, 7, 64, 1024, 16384, 65536]
for name, formula, ways in (("uni", uni, 1), ("bi", bi, 2)):
    run = json.load(open(f"{scratch}/{name}.json"))
    assert run["status"] == "complete", run["status"]
    assert run["options"]["pattern_options"]["direction"] == name, run["options"]["pattern_options"]
    rows = run["results"]
    assert [r["size_bytes"] for r in rows] == sizes, [r["size_bytes"] for r in rows]
    for r in rows:
        s, T = r["size_bytes"], r["median_us"]
        assert close(T, formula(s)), (name, s, T, formula(s))
        assert close(r["predicted_us"], formula(s)), (name, s, r["predicted_us"], formula(s))
        assert abs(r["error_pct"]) <= 0.1, (name, s, r["error_pct"])
        assert close(r["bandwidth_MBps"], ways * W * s / formula(s)), (name, s, r["bandwidth_MBps"])
        assert close(r["bandwidth_MiBps"], r["bandwidth_MBps"] * 1e6 / 2**20), (name, s)
        assert r["bandwidth_ci95_lo_MBps"] <= r["bandwidth_MBps"] <= r["bandwidth_ci95_hi_MBps"], (name, s)
        assert close(r["message_rate_per_s"], ways * W * 1e6 / formula(s)), (name, s, r["message_rate_per_s"])
    print(f"{name}: {len(rows)} sizes equal LogGP's window within 0.1%")
put, get = windows.put, windows.get  # (s, w)
for name, formula in (("put", put), ("get", get)):
    for w in (1, int(W)):
        rows = json.load(open(f"{scratch}/{name}-{w}.json"))["results"]
        assert [r["size_bytes"] for r in rows] == sizes, rows
        for r in rows:
            s = r["size_bytes"]
            assert close(r["median_us"], formula(s, w)), (name, w, s, r["median_us"], formula(s, w))
            assert abs(r["error_pct"]) <= 0.1, (name, w, s, r["error_pct"])
    print(f"{name} + flush: latency (W = 1) and windows of {int(W)} equal LogGP's within 0.1%, payloads verified")
rows = json.load(open(f"{scratch}/pairs.json"))["results"]
assert sorted({(r["pairs"], r["size_bytes"]) for r in rows}) == [(k, s) for k in (1, 2) for s in sizes], rows
for r in rows:
    k, s = r["pairs"], r["size_bytes"]
    per_pair = W * 1e6 / uni(s)
    assert close(r["message_rate_per_pair_per_s"], per_pair), (k, s, r["message_rate_per_pair_per_s"], per_pair)
    assert close(r["message_rate_total_per_s"], k * per_pair), (k, s, r["message_rate_total_per_s"])
    assert close(r["predicted_message_rate_total_per_s"], k * per_pair), (k, s)
print("message rate of 1 and 2 pairs: per pair and in total as LogGP says")
PY

# ngx predict: the same windows through the model registry.
for op in stream-bw stream-bibw message-rate; do
    extra=()
    [[ $op == message-rate ]] && extra=(-k 2)
    "$NGX" predict --params "$SCRATCH/model.json" --op "$op" -s 16Ki -n "$W" "${extra[@]}" --format json \
        >"$SCRATCH/p-$op.json" 2>"$SCRATCH/p-$op.err" || { cat "$SCRATCH/p-$op.err"; fail "ngx predict --op $op"; }
done
python3 - "$SCRATCH" "$W" <<'PY' || fail "ngx predict against the run"
import json, sys
scratch, W = sys.argv[1], float(sys.argv[2])
for op, run in (("stream-bw", "uni"), ("stream-bibw", "bi"), ("message-rate", "uni")):
    p = json.load(open(f"{scratch}/p-{op}.json"))["predictions"][0]
    row = next(r for r in json.load(open(f"{scratch}/{run}.json"))["results"] if r["size_bytes"] == 16384)
    assert abs(p["time_us"] - row["predicted_us"]) <= 1e-9 * row["predicted_us"], (op, p, row["predicted_us"])
    assert p["n"] == W, p
print("ngx predict --op stream-bw, stream-bibw, message-rate: the run's predictions")
PY
echo PASS
