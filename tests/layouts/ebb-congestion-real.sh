#!/usr/bin/env bash
# ebb and congestion in real time over tcp's per-peer connections, P = 4 as
# local pairs: every flow of every bisection and of every round is measured,
# a positive number, all bisections and rounds done (real time: no values
# asserted). Streams of 8 messages of 1 MiB last milliseconds longer than
# one message, and the medians of 9 streams leave out a loaded machine's
# preemptions, so the difference that gives a flow's bandwidth stays
# positive (16 KiB and 3 streams left a flow unmeasured now and then).
source "$(dirname "$0")/common.sh"
run() { # OUT ARGS...: one run of 4 ranks
    local out=$1
    shift
    ngx_deadline 60 --pairs 2 -m tcp -s 1Mi -c 9 -o "$out" "$@" > "$SCRATCH/out.txt" 2>&1 ||
        { cat "$SCRATCH/out.txt"; fail "the run $* failed"; }
}
run "$SCRATCH/ebb.json" -x ebb --ebb-bisections 3 --ebb-window 8
run "$SCRATCH/in.json" -x congestion --congestion-direction in --congestion-window 8
run "$SCRATCH/out.json" -x congestion --congestion-direction out --congestion-window 8
python3 - "$SCRATCH" <<'PY' || exit 1
import json, math, os, sys
def model(name, kind):
    d = json.load(open(os.path.join(sys.argv[1], name)))
    run = d.get("runs", [d])[0]
    if run["status"] != "complete":
        sys.exit("FAIL: %s: status %s: %s" % (name, run["status"], run.get("error")))
    return run["model"][kind]
good = lambda v: v is not None and math.isfinite(v) and v > 0
e = model("ebb.json", "ebb")
flows = [f["bandwidth_MBps"] for b in e["per_bisection"] for d in b["directions"] for f in d["flows"]]
if e["bisections_done"] != 3 or len(flows) != 3 * 2 * 2 or not all(map(good, flows)) or not good(e["ebb_MBps"]):
    sys.exit("FAIL: ebb: %s of 3 bisections, flows %s, ebb %s" % (e["bisections_done"], flows, e["ebb_MBps"]))
for name in ("in.json", "out.json"):
    c = model(name, "congestion")
    cells = [v for p in c["per_flows"] for v in p["flow_MBps"] + [p["aggregate_MBps"]]]
    if c["rounds_done"] != 3 or [p["flows"] for p in c["per_flows"]] != [1, 2, 3] or not all(map(good, cells)):
        sys.exit("FAIL: congestion %s: %s of 3 rounds, cells %s" % (c["direction"], c["rounds_done"], cells))
    if "points" not in c["maxrate"] or c["maxrate"]["points"] != 6:
        sys.exit("FAIL: congestion %s: the max-rate fit did not get its 6 points: %s" % (c["direction"], c["maxrate"]))
print("ok: tcp, P = 4: ebb %d flows in 3 bisections, congestion in and out: every flow of N = 1..3 measured" % len(flows))
PY
