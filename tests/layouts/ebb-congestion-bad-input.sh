#!/usr/bin/env bash
# ebb and congestion refuse what they cannot run, with exit 2 and a message
# naming what is wrong: an unknown direction, a root that is not a rank, a
# module without per-peer links (the fixture "corrupt") for their layouts, a single rank; and
# a rank killed in the middle of an ebb or a congestion run ends the run
# within its deadline with exit 1, the bisections (rounds) done written and
# the killed one's flows null, never zero.
source "$(dirname "$0")/common.sh"

# expect_ngx_usage DESCRIPTION PATTERN ARGS...: exit 2 and PATTERN in the output.

expect_ngx_usage "an unknown direction" "congestion-direction" \
    -m sim --sim-clock virtual -x congestion --pairs 2 --congestion-direction sideways
expect_ngx_usage "a root outside the ranks" "root rank 4 is not one of the run's ranks 0..3" \
    -m sim --sim-clock virtual -x congestion --pairs 2 --congestion-root 4
export NGX_MODULE_PATH=$NGX_FIXTURE_MODULE_DIR:$NGX_MODULE_PATH
expect_ngx_usage "a module without per-peer links cannot run ebb's bisections" \
    "module corrupt cannot run pattern ebb (rank layout random-matchings)" -m corrupt -x ebb --pairs 2 -c 1
expect_ngx_usage "a module without per-peer links cannot run congestion's many-to-one" \
    "module corrupt cannot run pattern congestion (rank layout many-to-one)" -m corrupt -x congestion --pairs 2 -c 1
expect_ngx_usage "zero bisections" "ebb-bisections" -m sim --sim-clock virtual -x ebb --pairs 2 --ebb-bisections 0

if command -v mpirun >/dev/null; then # one rank: only mpirun starts it
    layouts_mpirun 1 "$NGX" -m tcp -x congestion -c 1 > "$SCRATCH/one.txt" 2>&1
    rc=$?
    [[ $rc -eq 2 ]] || { cat "$SCRATCH/one.txt"; fail "one rank: exit $rc, expected 2"; }
    grep -q "pattern 'congestion' runs all ranks as one group and needs P >= 2 ranks; got 1" "$SCRATCH/one.txt" ||
        { cat "$SCRATCH/one.txt"; fail "one rank: the refusal does not say why"; }
    echo "ok: one rank: exit 2, needs P >= 2"
fi

source "$NGX_SOURCE_ROOT/tests/lib/kill-mid-run.sh"

# A rank killed in the middle of ebb: sim in real time, 20 ms latency, so
# that a bisection lasts about a third of a second (G large enough that a
# stream of 4 messages lasts 1.2 ms longer than one: real time on a loaded
# machine may still leave a flow of a bisection done unmeasured, null, so
# only the killed bisection's flows are asserted null).
OUT=$SCRATCH/killed.json
K=12
kill_mid_run last "$OUT" -m sim --sim-L 20000 --sim-G 0.1 --sim-sleep 50 -x ebb --pairs 2 -s 4Ki -c 1 --ebb-window 4 \
    --ebb-bisections $K
python3 - "$OUT" "$K" <<'PY' || { cat "$SCRATCH/killed.txt"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
run = d.get("runs", [d])[0]
K = int(sys.argv[2])
if run["status"] != "error":
    sys.exit("FAIL: status %s, expected error" % run["status"])
e = run["model"]["ebb"]
done, listed = e["bisections_done"], e["per_bisection"]
if not 0 <= done < K or len(listed) != done + 1:
    sys.exit("FAIL: %s of %d bisections done, %d listed (expected the done ones and the killed one)" % (done, K, len(listed)))
flows = [[f["bandwidth_MBps"] for d in b["directions"] for f in d["flows"]] for b in listed]
if any(v is not None and v <= 0 for b in flows for v in b):
    sys.exit("FAIL: a flow is written as zero or less: %s" % flows)
if any(v is not None for v in flows[done]) or len(flows[done]) != 4:
    sys.exit("FAIL: the killed bisection's 4 flows are not null: %s" % flows[done])
measured = sum(v is not None for b in flows for v in b)
if e["flows_missing"] != 4 * (done + 1) - measured or e["flow_MBps"]["count"] != measured:
    sys.exit("FAIL: %s flows missing, %s counted, %d measured" % (e["flows_missing"], e["flow_MBps"]["count"], measured))
print("ok: a rank killed: exit 1, %d of %d bisections written, bisection %d's %d flows null" %
      (done, K, done + 1, len(flows[done])))
PY

# The same in congestion (Nto1, 6 ranks, 50 ms latency: a round lasts
# about a second): the rounds done written, the killed round's flows null.
OUT=$SCRATCH/killed-congestion.json
kill_mid_run last "$OUT" -m sim --sim-L 50000 --sim-G 0.1 --sim-sleep 50 -x congestion --pairs 3 -s 4Ki -c 3 \
    --congestion-window 4
python3 - "$OUT" <<'PY' || { cat "$SCRATCH/killed.txt"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
run = d.get("runs", [d])[0]
c = run["model"]["congestion"]
done, listed = c["rounds_done"], c["per_flows"]
if run["status"] != "error" or not 0 <= done < 5 or len(listed) != done + 1:
    sys.exit("FAIL: status %s, %s of 5 rounds done, %d listed" % (run["status"], done, len(listed)))
if any(v is not None and v <= 0 for p in listed for v in p["flow_MBps"]):
    sys.exit("FAIL: a flow is written as zero or less: %s" % listed)
killed = listed[done]
if killed["flow_MBps"] != [None] * (done + 1) or killed["aggregate_MBps"] is not None:
    sys.exit("FAIL: round %d (killed) is not all null: %s" % (done + 1, killed))
print("ok: congestion: %d of 5 rounds written, round %d's %d flows null" % (done, done + 1, done + 1))
PY
