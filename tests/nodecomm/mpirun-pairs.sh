#!/bin/bash
# nodecomm under mpirun with 2 pairs (4 ranks) and 4 pairs (8 ranks), -m tcp,
# all on this machine (oversubscribed): the job exits 0 with
# --nodecomm-one-node, rank 0's JSON holds T(k, n) for every k and size
# (the slowest pair at least the mean pair, positive), the tables are
# printed, and without --nodecomm-one-node the same run stops with exit 2
# naming the pairs that share a node. -m mpi with 2 pairs (two sizes, few
# samples): status complete and every T(k, n) > 0.
source "$(dirname "$0")/common.sh"
need_mpirun
for pairs in 2 4; do
    np=$((2 * pairs)) json=$SCRATCH/tcp$pairs.json
    nc_mpirun "$np" -- "$NGX" -m tcp -x nodecomm --nodecomm-one-node -s 1,1Ki,64Ki -c 30 --warmup 5 --timeout 30 \
        -o "$json" >"$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
    cat "$SCRATCH/out"
    [[ $rc == 0 ]] || fail "$pairs pairs: mpirun -np $np exit $rc: $(tail -5 "$SCRATCH/err")"
    grep -q 'note: .*run on one node' "$SCRATCH/err" || fail "$pairs pairs: no note that the pairs share a node"
    grep -q '^# aggregate bandwidth' "$SCRATCH/out" || fail "$pairs pairs: no bandwidth table"
    nc_py "$json" "
nc = m['nodecomm']
assert nc['pairs'] == list(range(1, $pairs + 1)), nc['pairs']
assert nc['sizes'] == [1, 1024, 65536], nc['sizes']
for k in range(len(nc['pairs'])):
    for n in range(3):
        t, mean = nc['T_us'][k][n], nc['T_mean_us'][k][n]
        assert t is not None and t > 0 and mean is not None and 0 < mean <= t * (1 + 1e-12), (k, n, t, mean)
assert len(run['results']) == 3 * $pairs, len(run['results'])
assert ctx['bootstrap'] == {'kind': 'mpi', 'ranks': $np}, d['context']['bootstrap']
print('json: T(k, n) for k = 1..$pairs and 3 sizes, slowest >= mean')
" || fail "$pairs pairs: rank 0's JSON"
done
json=$SCRATCH/mpi.json
nc_mpirun 4 -- "$NGX" -m mpi -x nodecomm --nodecomm-one-node -s 1,1Ki -c 10 --warmup 2 --timeout 30 -o "$json" \
    >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
[[ $rc == 0 ]] || { cat "$SCRATCH/out" "$SCRATCH/err"; fail "-m mpi: mpirun -np 4 exit $rc"; }
nc_complete "$json" mpi
nc_mpirun 4 -- "$NGX" -m tcp -x nodecomm -s 1 -c 10 --timeout 20 >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
cat "$SCRATCH/err"
[[ $rc == 2 ]] || fail "pairs on one node without --nodecomm-one-node: exit $rc, expected 2"
grep -q 'ranks 0 <-> 2, 1 <-> 3) run on one node' "$SCRATCH/err" || fail "the message does not name the pairs on one node"
echo PASS
