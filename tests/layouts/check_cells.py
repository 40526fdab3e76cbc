"""check_cells.py FILE P [WHAT]: the allpairs run in FILE (real time) measured
every ordered pair of its P ranks in P - 1 shift rounds, each cell a finite
positive number (no values asserted). A bandwidth cell may be null only when
the run says the CPUs set its time (cpu_use.cpu_bound: more ranks than cores,
or ranks waiting for a CPU) and counts it in unresolved_bandwidth_cells.
Prints one ok line naming WHAT, or exits with a FAIL message."""
import json
import math
import sys

path, P = sys.argv[1], int(sys.argv[2])
what = sys.argv[3] if len(sys.argv) > 3 else "allpairs"
d = json.load(open(path))
run = d.get("runs", [d])[0]
if run["status"] != "complete":
    sys.exit("FAIL: status %s: %s" % (run["status"], run.get("error")))
a = run["model"]["allpairs"]
cpu_bound = run.get("cpu_use", {}).get("cpu_bound", False)
for name in ("latency_us", "bandwidth_MBps"):
    m = a[name]
    cells = [m[i][j] for i in range(P) for j in range(P) if i != j]
    nulls = sum(v is None for v in cells)
    if len(m) != P or any(v is not None and (not math.isfinite(v) or v <= 0) for v in cells):
        sys.exit("FAIL: %s has non-positive cells: %s" % (name, m))
    if nulls and (name == "latency_us" or not cpu_bound or nulls != a["unresolved_bandwidth_cells"]):
        sys.exit("FAIL: %s has %d missing cells (cpu_bound %s, unresolved %d): %s"
                 % (name, nulls, cpu_bound, a["unresolved_bandwidth_cells"], m))
    if nulls:
        print("ok: %d of %d bandwidth cells unresolved, on a run the CPUs set" % (nulls, len(cells)))
if a["rounds_done"] != P - 1 or a["layout"] != "shift":
    sys.exit("FAIL: %s of %d shift rounds done (layout %s)" % (a["rounds_done"], P - 1, a["layout"]))
print("ok: %s, P = %d: %d cells measured in %d shift rounds" % (what, P, P * (P - 1), P - 1))
