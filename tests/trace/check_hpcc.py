"""Checks `ngx trace analyze` of a real program's trace (hpcc.sh)
against the trace itself, as ngx-trace-dump prints it: every call is
replayed (events), every Iprobe and every collective on a communicator
other than MPI_COMM_WORLD is counted as unmodelled, each rank's predicted
time is the sum of its parts, no rank is predicted faster than its own
computation, and the what-if with every message eager (S = inf) leaves no
sender synchronization.

    python3 check_hpcc.py DUMP.txt ANALYSIS.json WHAT_IF.json
"""
import collections
import json
import sys

COLLECTIVES = {"barrier", "bcast", "reduce", "allreduce", "allgather", "allgatherv", "alltoall",
               "alltoallv", "gather", "gatherv", "scatter", "scatterv"}
NOT_CALLS = {"completion", "flush", "comm_def"}


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def main():
    dump, analysis, what_if = sys.argv[1:4]
    calls, kinds, other_comm = 0, collections.Counter(), collections.Counter()
    for line in open(dump):
        f = line.split()
        if not f or f[0] == "#" or f[1] in NOT_CALLS:
            continue
        calls += 1
        kinds[f[1]] += 1
        if f[1] in COLLECTIVES and f[f.index("comm") + 1] != "0":
            other_comm[f[1]] += 1
    a = json.load(open(analysis))
    w = json.load(open(what_if))
    if a["events"] != calls:
        fail(f"the analysis replayed {a['events']} calls, the trace has {calls}")
    unmodelled = {u["call"]: u["events"] for u in a["unmodelled"]}
    if unmodelled.get("iprobe", 0) != kinds["iprobe"]:
        fail(f"{kinds['iprobe']} Iprobe calls in the trace, {unmodelled.get('iprobe', 0)} counted unmodelled")
    for kind, n in other_comm.items():
        got = unmodelled.get(kind + " (not on MPI_COMM_WORLD)", 0)
        if got != n:
            fail(f"{n} {kind} calls not on MPI_COMM_WORLD in the trace, {got} counted unmodelled")
    parts = ("computation_s", "overhead_s", "sender_sync_s", "receiver_sync_s", "collective_s",
             "collective_sync_s", "unmodelled_s")
    for r in a["ranks"]:
        total = sum(r[p] for p in parts)
        if abs(total - r["predicted_s"]) > 1e-9 + 1e-9 * r["predicted_s"]:
            fail(f"rank {r['rank']}: predicted {r['predicted_s']} s, its parts sum to {total} s")
        if r["predicted_s"] < r["computation_s"] + r["unmodelled_s"]:
            fail(f"rank {r['rank']}: predicted {r['predicted_s']} s, less than its computation")
    if not a["finalized"] or a["ranks_count"] != len(a["ranks"]):
        fail("the trace is not of a finished run of every rank")
    if w["what_if"]["total"]["sender_sync_s"] != 0:
        fail(f"with S = inf, {w['what_if']['total']['sender_sync_s']} s of sender synchronization remain")
    t = a["total"]
    print(f"{calls} calls replayed; unmodelled {sum(unmodelled.values())} "
          f"({', '.join(f'{k} x{v}' for k, v in sorted(unmodelled.items()))}); "
          f"T_m {t['measured_s']:.4f} s, T_p {t['predicted_s']:.4f} s, sigma {t['error_percent']:+.1f} %; "
          f"S = inf: gain {w['what_if']['gain_s']:+.4f} s")


main()
