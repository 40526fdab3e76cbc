#!/bin/bash
# vader-switch.sh: the loggp pattern over Open MPI's vader BTL finds the
# eager/rendezvous switch where Open MPI says it is (a change point is found
# where any measured curve changes level or slope, not only eq. (7)'s y(s)):
# btl_vader_eager_limit from ompi_info counts the BTL's header, so the last
# eager payload is just below it and a size equal to it already goes by the
# RDMA protocol. Asserted: one of the fitted model's change points (the first
# size of a protocol range) lies within a factor of 2 of it, in (limit/2,
# 2 limit]: the step of the default geometric sizes that holds the switch, or
# the next one when the run's noise makes the detector place the range's
# start one size later (a real-time bound, docs/testing.md). Three attempts:
# the two ranks share two cores. Each run gets 240 s: two polling ranks
# take minutes when other processes keep the CPUs busy.
MPI_TIMEOUT=240
source "$(dirname "$0")/common.sh"
limit=$(ompi_info --param btl vader --level 9 --parsable 2>/dev/null |
    sed -n 's/^mca:btl:vader:param:btl_vader_eager_limit:value:\([0-9]*\)$/\1/p')
[[ $limit =~ ^[0-9]+$ ]] || skip "ompi_info does not report btl_vader_eager_limit"
echo "btl_vader_eager_limit = $limit B"
found() {
    python3 - "$1" "$limit" <<'PY'
import json, sys
model = json.load(open(sys.argv[1]))["model"]
limit = int(sys.argv[2])
points = [int(p) for p in model["change_points_bytes"]]
ranges = [(int(r["from_bytes"]), int(r["to_bytes"])) for r in model["ranges"]]
print("change points:", points, "ranges:", ranges)
sys.exit(0 if any(limit / 2 < p <= 2 * limit for p in points) else 1)
PY
}
for attempt in 1 2 3; do
    ngx_mpirun vader -np 2 -- "$NGX" -m mpi -x loggp -s 1-64Ki -o "$SCRATCH/vader.json" >"$SCRATCH/out" 2>&1 ||
        { cat "$SCRATCH/out"; fail "ngx -m mpi -x loggp over vader exited non-zero"; }
    if found "$SCRATCH/vader.json"; then
        echo "PASS: a protocol range starts within a factor of 2 of $limit B (attempt $attempt)"
        exit 0
    fi
    sed -n '/^# loggp parameters/,$p' "$SCRATCH/out"
done
fail "no change point in ($((limit / 2)), $((2 * limit))] B in three runs"
