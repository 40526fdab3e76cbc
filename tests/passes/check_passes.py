"""check_passes.py FILE COUNT PASSES SIZE... [--lost]: a run measured in passes.

The JSON's measurement must record PASSES regular passes whose schedule
lists every size in -s order (the driver's order; the responder checked its
plan against it at every pass), extra passes only within their budget and
over the sizes named in remeasured_bytes; every size keeps exactly COUNT
samples over its regular passes (more only when measured again), its
`passes` counts them, and its median lies inside its 95% interval. With
--lost: some repetitions were lost and retried (a lossy module).
"""
import json
import sys

args = [a for a in sys.argv[1:] if a != "--lost"]
path, count, passes = args[0], int(args[1]), int(args[2])
sizes = [int(s) for s in args[3:]]
d = json.load(open(path))
assert d["status"] == "complete", d.get("error")
m = d["measurement"]
assert m["passes"] == passes, m
schedule = m["schedule"]
for p in range(passes):
    assert schedule[p] == sizes, f"pass {p + 1}: {schedule[p]} is not {sizes}"
extra = schedule[passes:]
assert len(extra) == m["extra_passes"] <= m["max_extra_passes"], m
assert sum(len(e) for e in extra) <= m["max_extra_size_passes"], m
assert sorted({s for e in extra for s in e}) == sorted(m["remeasured_bytes"]), m
assert [r["size_bytes"] for r in d["results"]] == sizes
for r in d["results"]:
    again = sum(1 for e in extra if r["size_bytes"] in e)
    assert r["passes"] == passes + again, r
    assert r["count"] >= count and (r["count"] == count) == (again == 0), r
    assert r["median_ci95_lo_us"] <= r["median_us"] <= r["median_ci95_hi_us"], r
lost = sum(r.get("lost", 0) for r in d["results"])
if "--lost" in sys.argv:
    assert lost > 0, "nothing was lost: the resync within passes was not exercised"
print(f"{path}: {passes} passes round-robin over {sizes}, measured again: {m['remeasured_bytes']}, lost {lost:.0f}")
