#!/bin/bash
# The Fortran bindings under the tracer (ngx_trace_fortran.c): ring_f.f90
# (`use mpi`) and ring_f08.f90 (`use mpi_f08`) with 2 ranks; the dump shows
# their calls in order with the Fortran flag, peers, tags, bytes sent and
# received, and every request completed by its Wait/Test call. Skipped without gfortran at configure time.
source "$(dirname "$0")/common.sh"
[[ $# == 2 ]] || skip "no Fortran compiler at configure time (apt-get install gfortran)"
ring_f=$1 ring_f08=$2
trace_mpirun "$SCRATCH/f" 2 -- "$ring_f" >"$SCRATCH/out" 2>&1 || fail "mpirun ring_f: $(tail -5 "$SCRATCH/out")"
trace_mpirun "$SCRATCH/f08" 2 -- "$ring_f08" >"$SCRATCH/out" 2>&1 || fail "mpirun ring_f08: $(tail -5 "$SCRATCH/out")"
"$TRACE_DUMP" --json "$SCRATCH/f" >"$SCRATCH/f.json" || fail "dump of ring_f"
"$TRACE_DUMP" --json "$SCRATCH/f08" >"$SCRATCH/f08.json" || fail "dump of ring_f08"
python3 - "$SCRATCH/f.json" "$SCRATCH/f08.json" <<'PY' || fail "the Fortran calls in the trace"
import json, sys
def load(path):
    recs = [json.loads(l) for l in open(path)]
    return {rank: [(r["kind"], r["peer"], r["tag"], r["bytes"], r["bytes_recv"]) for r in recs
                   if r["type"] == "record" and r["rank"] == rank] for rank in (0, 1)}, recs
mpi, recs = load(sys.argv[1])
assert all(r["flags"] & 1 for r in recs if r["type"] == "record"), "a record without the Fortran flag"
COLL = {0: [("allreduce", -1, 0, 8, 8), ("bcast", 0, 0, 20, 0), ("allgather", -1, 0, 4, 8),
            ("alltoall", -1, 0, 8, 8), ("gather", 0, 0, 8, 16), ("scatter", 1, 0, 0, 12),
            ("gatherv", 0, 0, 4, 8), ("scatterv", 0, 0, 8, 4), ("allgatherv", -1, 0, 4, 8),
            ("alltoallv", -1, 0, 8, 8)],
        1: [("allreduce", -1, 0, 8, 8), ("bcast", 0, 0, 0, 20), ("allgather", -1, 0, 4, 8),
            ("alltoall", -1, 0, 8, 8), ("gather", 0, 0, 8, 0), ("scatter", 1, 0, 24, 12),
            ("gatherv", 0, 0, 4, 0), ("scatterv", 0, 0, 0, 4), ("allgatherv", -1, 0, 4, 8),
            ("alltoallv", -1, 0, 8, 8)]}
tests = [r for r in mpi[0] if r[0] == "test"]
rank0 = [r for r in mpi[0] if r[0] != "test"]
assert len(tests) >= 1, "rank 0: no MPI_Test"
assert rank0 == [("send", 1, 60, 40, 0), ("irecv", 1, 61, 40, 0), ("waitall", -1, 0, 1, 0),
                 ("completion", 1, 61, 40, 0), ("irecv", 1, 62, 4, 0), ("completion", 1, 62, 4, 0),
                 ("irecv", 1, 63, 4, 0), ("waitany", -1, 0, 1, 0), ("completion", 1, 63, 4, 0)] + COLL[0], rank0
assert mpi[1] == [("probe", 0, 60, 40, 0), ("recv", 0, 60, 40, 0), ("isend", 0, 61, 40, 0),
                  ("waitall", -1, 0, 1, 0), ("completion", 0, 0, 0, 0), ("isend", 0, 62, 4, 0),
                  ("wait", -1, 0, 1, 0), ("completion", 0, 0, 0, 0), ("isend", 0, 63, 4, 0),
                  ("waitany", -1, 0, 1, 0), ("completion", 0, 0, 0, 0)] + COLL[1], mpi[1]
for rank in (0, 1):
    start = [r["request"] for r in recs if r.get("rank") == rank and r.get("kind") in ("isend", "irecv")]
    done = [r["request"] for r in recs if r.get("rank") == rank and r.get("kind") == "completion"]
    assert start == done and 0 not in start, (rank, start, done)
f08, _ = load(sys.argv[2])
assert f08[0] == [("send", 1, 70, 12, 0), ("barrier", -1, 0, 0, 0)], f08[0]
assert f08[1] == [("recv", 0, 70, 12, 0), ("barrier", -1, 0, 0, 0)], f08[1]
print("use mpi:", mpi)
print("use mpi_f08:", f08)
PY
echo "PASS: Fortran (use mpi, use mpi_f08) calls traced"
