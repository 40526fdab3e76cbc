#!/bin/bash
# The local launch of several pairs: `ngx --pairs 2 -m tcp -x nodecomm` forks
# 4 processes. It exits 0; the JSON records a local bootstrap of 4 ranks with
# 4 placements, T(k, n) for k = 1, 2 and every size; the ranks are pinned to
# distinct CPUs when there are at least 4, otherwise ngx says that it
# oversubscribes; the JSON follows the published schema. `--pairs 1,3 -m sim`
# forks 6 processes and measures exactly k = 1 and 3 (pairs [1, 3] in the
# JSON). udp and shm under nodecomm (--pairs 2, two sizes, few samples):
# status complete and every T(k, n) > 0. `--pairs 2 -x pingpong` measures
# both pairs too (each driver shows its table), and no process is left behind.
source "$(dirname "$0")/common.sh"
json=$SCRATCH/local.json
"$NGX" --pairs 2 -m tcp -x nodecomm -s 1,1Ki,64Ki -c 50 --warmup 5 --timeout 20 -o "$json" \
    >"$SCRATCH/out" 2>"$SCRATCH/err" </dev/null
rc=$?
cat "$SCRATCH/out" "$SCRATCH/err"
[[ $rc == 0 ]] || fail "ngx --pairs 2 -x nodecomm: exit $rc"
cpus=$(nproc)
if ((cpus < 4)); then
    grep -q "note: 4 processes on $cpus CPUs: oversubscribed" "$SCRATCH/err" || fail "no oversubscription note"
else
    ! grep -q oversubscribed "$SCRATCH/err" || fail "an oversubscription note with $cpus CPUs"
fi
nc_py "$json" "
assert ctx['bootstrap'] == {'kind': 'local', 'ranks': 4}, ctx['bootstrap']
assert len(ctx['placement']) == 4, ctx['placement']
pinned = [p.get('pinning') for p in ctx['placement']]
assert pinned == (['automatic'] * 4 if $cpus >= 4 else ['none'] * 4), pinned
nc = m['nodecomm']
assert nc['pairs'] == [1, 2] and nc['sizes'] == [1, 1024, 65536], nc
assert all(t is not None and t > 0 for row in nc['T_us'] for t in row), nc['T_us']
print('json: local bootstrap of 4 ranks, T(k, n) for k = 1, 2; pinning', pinned)
" || fail "the JSON of the local run"
if [[ -n ${NGX_SOURCE_ROOT:-} ]]; then
    python3 "$NGX_SOURCE_ROOT/schema/validate.py" "$json" || fail "the JSON does not follow schema/ngx-result.schema.json"
fi
json=$SCRATCH/list.json
"$NGX" --pairs 1,3 -m sim -x nodecomm --sim-sleep 50 -s 1,1Ki -c 10 --warmup 2 --timeout 20 -o "$json" \
    >"$SCRATCH/out" 2>"$SCRATCH/err" </dev/null
rc=$?
[[ $rc == 0 ]] || { cat "$SCRATCH/out" "$SCRATCH/err"; fail "ngx --pairs 1,3: exit $rc"; }
nc_py "$json" "
assert ctx['bootstrap'] == {'kind': 'local', 'ranks': 6}, ctx['bootstrap']
nc = m['nodecomm']
assert nc['pairs'] == [1, 3], nc['pairs']
assert all(t is not None and t > 0 for row in nc['T_us'] for t in row), nc['T_us']
print('--pairs 1,3: 6 ranks, k =', nc['pairs'])
" || fail "the JSON of --pairs 1,3"
for module in udp shm; do
    json=$SCRATCH/$module.json
    "$NGX" --pairs 2 -m $module -x nodecomm -s 1,1Ki -c 10 --warmup 2 --timeout 20 -o "$json" \
        >"$SCRATCH/out" 2>"$SCRATCH/err" </dev/null
    rc=$?
    [[ $rc == 0 ]] || { cat "$SCRATCH/out" "$SCRATCH/err"; fail "ngx --pairs 2 -m $module -x nodecomm: exit $rc"; }
    nc_complete "$json" $module
done
"$NGX" --pairs 2 -m tcp -x pingpong -s 1 -c 100 --timeout 20 >"$SCRATCH/pp" 2>&1 </dev/null || {
    cat "$SCRATCH/pp"
    fail "ngx --pairs 2 -x pingpong"
}
[[ $(grep -Ec '^ *1 +1B ' "$SCRATCH/pp") == 2 ]] || { cat "$SCRATCH/pp"; fail "pingpong: not one row per pair"; }
sleep 0.5
! pgrep -f "$NGX --pairs 2" >/dev/null || fail "a forked rank outlived the run"
echo PASS
