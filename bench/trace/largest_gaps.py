"""Where a trace analysis' prediction falls short of the run: the sums over
ranks of computation, time in MPI and T_m - T_p, and the call sites whose
measured time exceeds their predicted time the most.

    python3 largest_gaps.py ANALYSIS.json [COUNT]
"""
import json
import sys

a = json.load(open(sys.argv[1]))
count = int(sys.argv[2]) if len(sys.argv) > 2 else 4
t = a["total"]
gap = sum(r["measured_s"] - r["predicted_s"] for r in a["ranks"])
print(f"  computation {t['computation_s']:.3f} s, in MPI {t['measured_mpi_s']:.3f} s, T_m - T_p {gap:.3f} s "
      "(sums over ranks); the call sites measured longest against their prediction:")
for s in sorted(a["sites"], key=lambda s: s["predicted_s"] - s["measured_s"])[:count]:
    print(f"    {s['call']:>9} {s['bytes_min']:.0f}-{s['bytes_max']:.0f} B: {s['calls']} calls, "
          f"measured {s['measured_s']:.3f} s, predicted {s['predicted_s']:.3f} s")
