#!/bin/bash
# Automatic regimes: nodecomm without --nodecomm-regimes cuts the fit at the
# protocol ranges of the k = 1 curve (models/maxrate/maxrate_model.cpp, detect_regimes).
# The sim module with a rendezvous threshold --sim-S 3000 (larger messages
# first exchange request and ack: two more latencies of 200 us) over the
# sizes 512 B .. 8 KiB in steps of 512 B: the JSON must hold at least 2
# regimes, one of them starting within one measured size of the first size
# above the threshold (3 KiB), i.e. at 2.5, 3 or 3.5 KiB. One pair, local
# launch; the sim sleeps through its waits (--sim-sleep) on a loaded machine.
# Noisy machine: one more run before failing.
source "$(dirname "$0")/common.sh"
# "virtual": the sim in virtual time (exact and repeatable: one attempt).
clock=() attempts=(1 2)
[[ ${1:-} == virtual ]] && clock=(--sim-clock virtual) attempts=(1)
for attempt in "${attempts[@]}"; do
    json=$SCRATCH/regimes$attempt.json
    "$NGX" -m sim "${clock[@]}" -x nodecomm --sim-S 3000 --sim-L 200 --sim-G 0.01 --sim-g 0 --sim-sleep 50 \
        -s 512-8Ki --step 512 -c 20 --warmup 3 --timeout 20 -o "$json" >"$SCRATCH/out" 2>"$SCRATCH/err" </dev/null
    rc=$?
    sed -n '/^# nodecomm models/,$p' "$SCRATCH/out" | grep -v '^    '
    [[ $rc == 0 ]] || fail "nodecomm over sim with --sim-S 3000: exit $rc: $(tail -5 "$SCRATCH/err")"
    if nc_py "$json" '
assert run["options"]["pattern_options"]["regimes"] == [], "regimes were given"
sizes = m["nodecomm"]["sizes"]
first_above = min(s for s in sizes if s > 3000)
i = sizes.index(first_above)
near = set(sizes[max(i - 1, 0):i + 2])
starts = [r["from_bytes"] for r in m["ranges"]]
print(f"regimes start at {starts}; the first size above S is {first_above}, near it {sorted(near)}")
if len(starts) < 2: sys.exit("one regime: the rendezvous threshold was not detected")
if not near & set(starts[1:]): sys.exit("no regime boundary within one measured size of the threshold")
'; then
        echo PASS
        exit 0
    fi
    echo "attempt $attempt off; measuring once more"
done
fail "the regimes of the k = 1 curve did not find the rendezvous threshold (${#attempts[@]} attempt(s))"
