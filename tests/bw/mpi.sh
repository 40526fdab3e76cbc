#!/bin/bash
# mpi.sh: the bw pattern over the mpi module under mpirun, functional checks
# only: both ways (MPI_Irecv/MPI_Isend windows) with --verify over 2 ranks,
# every size reported with positive bandwidth and the calls it used named;
# the message rate of 1 and 2 concurrent pairs over 4 ranks, the total the
# sum of the pairs'.
source "$(dirname "$0")/common.sh"
need_mpi
mpi_run 2 "$SCRATCH/bi.txt" -m mpi -x bw --bw-direction bi -s 1,64Ki,1Mi -c 8 --warmup 1 --bw-window 16 --verify \
    --timeout 20 -o "$SCRATCH/bi.json" || { cat "$SCRATCH/bi.txt"; fail "bw both ways over mpi: exit $?"; }
mpi_run 4 "$SCRATCH/rate.txt" -m mpi -x bw -s 8 -c 8 --warmup 1 --bw-window 16 --timeout 20 -o "$SCRATCH/rate.json" ||
    { cat "$SCRATCH/rate.txt"; fail "bw message rate over 4 mpi ranks: exit $?"; }
python3 - "$SCRATCH" <<'PY' || fail "the rows"
import json, sys
scratch = sys.argv[1]
run = json.load(open(f"{scratch}/bi.json"))
assert run["status"] == "complete", run["status"]
assert run["options"]["pattern_options"]["calls"].startswith("non-blocking"), run["options"]["pattern_options"]
rows = run["results"]
assert [r["size_bytes"] for r in rows] == [1, 65536, 1 << 20], [r["size_bytes"] for r in rows]
assert all(r["bandwidth_MBps"] > 0 and r["count"] >= 8 for r in rows), rows
rows = json.load(open(f"{scratch}/rate.json"))["results"]
assert [r["pairs"] for r in rows] == [1, 2], rows
for r in rows:
    assert r["message_rate_per_pair_per_s"] > 0, r
    assert abs(r["message_rate_total_per_s"] - r["pairs"] * r["message_rate_per_pair_per_s"]) <= 1e-6 * r["message_rate_total_per_s"], r
print("both ways:", [(r["size_bytes"], round(r["bandwidth_MBps"], 1)) for r in json.load(open(f"{scratch}/bi.json"))["results"]])
PY
echo PASS
