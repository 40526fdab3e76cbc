#!/usr/bin/env bash
# The coll pattern's JSON against the published schema (schema/): a run with
# predictions (every row's fields) and one without (predictions null), and
# the validator rejects a row without its prediction field; ngx plot draws
# measured and predicted per algorithm.
source "$(dirname "$0")/common.sh"
python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is missing"
VALIDATE=(python3 "$NGX_SOURCE_ROOT/schema/validate.py")
cat >"$SCRATCH/model.json" <<'JSON'
{"pattern": "loggp", "model": {"kind": "loggp", "ranges": [
  {"from_bytes": 1, "to_bytes": 1048576, "L_us": 5, "o_us": 1, "g_us": 2, "G_us_per_byte": 0.001}]}}
JSON
SIM=(-m sim --sim-clock virtual -x coll -c 2 --warmup 1 --timeout 20 --coll-op allreduce -s 8,1Ki)
coll_run 4 "$SCRATCH/out.txt" "${SIM[@]}" --coll-params "$SCRATCH/model.json" -o "$SCRATCH/with.json" ||
    { cat "$SCRATCH/out.txt"; fail "the run with --coll-params failed"; }
coll_run 4 "$SCRATCH/out.txt" "${SIM[@]}" -o "$SCRATCH/without.json" ||
    { cat "$SCRATCH/out.txt"; fail "the run without --coll-params failed"; }
"${VALIDATE[@]}" "$SCRATCH/with.json" "$SCRATCH/without.json" || fail "coll JSON does not conform to the schema"
python3 - "$SCRATCH/with.json" "$SCRATCH/without.json" "$SCRATCH/broken.json" <<'PY' || exit 1
import json, sys
with_, without, broken = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
rows = with_["model"]["rows"]
if len(rows) != 8 or any(r["predicted_us"] is None or r["P"] != 4 for r in rows):
    sys.exit("FAIL: 4 algorithms x 2 sizes with predictions expected, got %s" % rows)
if any(r["predicted_us"] is not None or r["error"] is not None for r in without["model"]["rows"]):
    sys.exit("FAIL: a run without --coll-params has predictions")
del with_["model"]["rows"][0]["predicted_us"]
json.dump(with_, open(broken, "w"))
print("ok: %d rows with predictions, none without" % len(rows))
PY
if "${VALIDATE[@]}" "$SCRATCH/broken.json" >"$SCRATCH/why.txt" 2>&1; then
    fail "the validator accepted a row without predicted_us"
fi
grep -q "predicted_us" "$SCRATCH/why.txt" || { cat "$SCRATCH/why.txt"; fail "the violation does not name predicted_us"; }
echo "ok: both runs conform; a row without predicted_us is rejected, named"

# With --coll-contention (a hand-written congestion fit: R_N 100, R_C 80
# MB/s) and ranks 0, 1 on switch 0: pairwise alltoall of 1 KiB crosses the
# uplink 1, 2, 1 times each way per round, and round 2 is delayed by
# 2048 / min(100, 2 x 80) - 1024 / min(100, 80) = 7.68 us: the rows conform
# and carry exactly that.
cat >"$SCRATCH/uplink.json" <<'JSON'
{"pattern": "congestion", "model": {"kind": "congestion", "congestion": {"maxrate": {
  "alpha_us": 5, "R_N_MBps": 100, "R_C_MBps": 80}}}}
JSON
coll_run 4 "$SCRATCH/out.txt" -m sim --sim-clock virtual -x coll -c 2 --warmup 1 --timeout 20 --coll-op alltoall \
    --coll-algorithm pairwise -s 1Ki --coll-params "$SCRATCH/model.json" --coll-contention "$SCRATCH/uplink.json" \
    --coll-switches 0,0,1,1 -o "$SCRATCH/contention.json" || { cat "$SCRATCH/out.txt"; fail "the run with --coll-contention"; }
"${VALIDATE[@]}" "$SCRATCH/contention.json" || fail "coll JSON with contention does not conform to the schema"
python3 - "$SCRATCH/contention.json" <<'PY' || exit 1
import json, sys
row = json.load(open(sys.argv[1]))["model"]["rows"][0]
c = row["contention"]
flows = [r["flows"] for r in c["rounds"]]
delay = row["predicted_contention_us"] - row["predicted_us"]
if flows != [[1, 1], [2, 2], [1, 1]] or abs(c["delay_us"] - 7.68) > 1e-9 or abs(delay - 7.68) > 1e-9:
    sys.exit("FAIL: rounds %s, delay %s and %s us, expected [[1, 1], [2, 2], [1, 1]] and 7.68" % (flows, c["delay_us"], delay))
print("ok: contention rows conform; round 2 delayed by %.2f us" % c["delay_us"])
PY

# ngx plot draws measured and predicted per algorithm (named by their gids in the SVG).
timeout 120 "$NGX" plot "$SCRATCH/with.json" -o "$SCRATCH/coll.svg" >"$SCRATCH/plot.txt" 2>&1
rc=$?
# ngx plot exits 1 when python or matplotlib is missing: nothing to check then.
[[ $rc -eq 1 ]] && { echo "note: ngx plot cannot run here: $(cat "$SCRATCH/plot.txt")"; exit 0; }
[[ $rc -eq 0 ]] || { cat "$SCRATCH/plot.txt"; fail "ngx plot failed on the coll run (exit $rc)"; }
for algorithm in binomial recursive_doubling ring rabenseifner; do
    for what in measured predicted; do
        grep -q "id=\"coll:$what:[^\"]*:$algorithm\"" "$SCRATCH/coll.svg" || fail "the plot has no $what $algorithm"
    done
done
echo "ok: ngx plot drew measured and predicted for the 4 algorithms"
