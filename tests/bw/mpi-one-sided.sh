#!/bin/bash
# mpi-one-sided.sh: one-sided MPI under mpirun -np 2, functional checks
# only: MPI_Put and MPI_Get windows with --verify (every payload intact) in
# each synchronization of --mpi-rma-sync (flush, lock, fence, pscw; pscw
# also with --mpi-progress poll, whose MPI_Win_test loop is bounded); pscw
# with 2 concurrent pairs (4 ranks, one window over all of them);
# `-m shm,mpi --bw-op put` runs both modules side by side in one file; an
# unknown --mpi-rma-sync exits 2 naming the value, and fence over 4 ranks
# (a fence would need every pair in step) exits 2 saying why.
source "$(dirname "$0")/common.sh"
need_mpi
ARGS=(-x bw -s 1,64Ki -c 4 --warmup 1 --bw-window 8 --verify --timeout 20)
runs=()
for sync in flush lock fence pscw; do
    for op in put get; do
        mpi_run 2 "$SCRATCH/$sync-$op.txt" -m mpi --mpi-rma-sync "$sync" "${ARGS[@]}" --bw-op "$op" \
            -o "$SCRATCH/$sync-$op.json" || { cat "$SCRATCH/$sync-$op.txt"; fail "--mpi-rma-sync $sync --bw-op $op: exit $?"; }
        runs+=("$sync-$op")
    done
done
mpi_run 2 "$SCRATCH/pscw-poll.txt" -m mpi --mpi-rma-sync pscw --mpi-progress poll "${ARGS[@]}" --bw-op put \
    -o "$SCRATCH/pscw-poll.json" || { cat "$SCRATCH/pscw-poll.txt"; fail "pscw with --mpi-progress poll: exit $?"; }
runs+=(pscw-poll)
mpi_run 4 "$SCRATCH/pairs.txt" -m mpi --mpi-rma-sync pscw "${ARGS[@]}" --bw-op put -o "$SCRATCH/pairs.json" ||
    { cat "$SCRATCH/pairs.txt"; fail "pscw with 2 pairs (4 ranks): exit $?"; }
mpi_run 2 "$SCRATCH/both.txt" -m shm,mpi "${ARGS[@]}" --bw-op put -o "$SCRATCH/both.json" ||
    { cat "$SCRATCH/both.txt"; fail "-m shm,mpi --bw-op put: exit $?"; }
python3 - "$SCRATCH" "${runs[@]}" <<'PY' || fail "the rows"
import json, sys
scratch, runs = sys.argv[1], sys.argv[2:]
def check(run, what):
    assert run["status"] == "complete", (what, run["status"])
    assert run["options"]["pattern_options"]["calls"].startswith("one-sided"), (what, run["options"]["pattern_options"])
    rows = run["results"]
    assert [r["size_bytes"] for r in rows] == [1, 65536], (what, rows)
    assert all(r["count"] >= 4 and r["bandwidth_MBps"] > 0 for r in rows), (what, rows)
    return [(r["size_bytes"], round(r["bandwidth_MBps"], 1)) for r in rows]
for name in runs:
    print(name, check(json.load(open(f"{scratch}/{name}.json")), name))
rows = json.load(open(f"{scratch}/pairs.json"))["results"]
assert [(r["pairs"], r["size_bytes"]) for r in rows] == [(1, 1), (1, 65536), (2, 1), (2, 65536)], rows
assert all(r["message_rate_total_per_s"] > 0 for r in rows), rows
both = json.load(open(f"{scratch}/both.json"))["runs"]
assert len(both) == 2, len(both)
for run in both:
    print("side by side:", check(run, "shm,mpi"))
PY
mpi_run 2 "$SCRATCH/bad.txt" -m mpi --mpi-rma-sync bogus -x bw --bw-op put -s 8 -c 2 --timeout 10
rc=$?
[[ $rc == 2 ]] || { cat "$SCRATCH/bad.txt"; fail "--mpi-rma-sync bogus: exit $rc, expected 2"; }
grep -q "mpi-rma-sync.*bogus" "$SCRATCH/bad.txt" || { cat "$SCRATCH/bad.txt"; fail "the error does not name the value"; }
echo "ok: an unknown sync mode is refused: $(grep -m1 'bogus' "$SCRATCH/bad.txt")"
mpi_run 4 "$SCRATCH/fence4.txt" -m mpi --mpi-rma-sync fence -x bw --bw-op put -s 8 -c 2 --timeout 10
rc=$?
[[ $rc == 2 ]] || { cat "$SCRATCH/fence4.txt"; fail "fence over 4 ranks: exit $rc, expected 2"; }
grep -q "fence: MPI_Win_fence synchronizes every rank" "$SCRATCH/fence4.txt" || { cat "$SCRATCH/fence4.txt"; fail "the refusal does not say why"; }
echo "ok: fence with several pairs is refused (exit 2)"
echo PASS
