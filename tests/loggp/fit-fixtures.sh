#!/bin/bash
# fit-fixtures.sh: `ngx fit` of saved loggp runs (fixtures/) whose fit once
# missed, each with what the fit must give now.
#
# shm-main-job-near.json, shm-main-job-series.json: the shm runs of two main
# jobs of 2026-11-26 (34 sizes, vCPUs near). One range (64 B..2 KiB, and
# 64 B..3 KiB) met the mean goal but missed the max: 16.4% at 384 B, and
# 20.6%, while a split of the range, each half >= 3 sizes, meets both.
# Asserted: the overall max below 15%, and every range with L >= 0 (the
# split must not buy the max with a model LogGOPSim cannot run).
#
# shm-far-placement.json: `ngx -m shm -x loggp` with the two vCPUs far
# apart (L_eel 0.2 us). The paper's estimates of its range 512 B..1 KiB
# had L = -0.05 us (the receive copy pulls the data across the cores, so
# o_r and L overlap) and fitted closer than the joint fit, which holds
# L >= 0 and meets the goal as well; the model could not be exported to
# LogGOPSim. Asserted as above: max below 15%, every L >= 0.
#
# shm-far-inline-switch.csv (medians as --raw-prtt writes them): the vCPUs
# far apart; y(s) of eq. (7) steps at 48 | 64 B (the 56-byte inline
# message: PRTT(n,0,s) 1.17 -> 2.10 us) and o_r(s) at 96 | 128 B, two sizes
# apart: one change for a detector that keeps three sizes a range. The
# curves placed it at 96 | 128 and left the 70% step inside 1..96 B (max
# error 29%); the fit now takes the other candidate, whose ranges its model
# fits better. Asserted: a range starts at 64 B, max below 15%, L >= 0.
#
# loggp-vader.json: Open MPI over vader, 1 B..64 KiB. Its 512 B..2 KiB
# range meets the goal only with L < 0 (the overheads exceed what the round
# trip leaves: o and L overlap). Asserted by default (`--loggp-negative
# yes`): that range keeps L < 0 and says it is not LogGP; the eager/
# rendezvous switch (btl_vader_eager_limit 4 KiB) stays a range boundary;
# the max error is below 15%: the changes the curves placed are judged again
# once a neighbour moved (in one pass the first, judged against 32 B..2 KiB
# before the next change cut that range at 512 B, moved from 32 B to 16 B:
# 16.2%). With `--loggp-negative no` (the main job's): every parameter of
# every range >= 0 and `admissible`, a range that misses the goal says so,
# and the switch at 4 KiB stays.
source "$(dirname "$0")/common.sh"
need_tool python3
refit() { # FIXTURE -> $IT_DIR/FIXTURE.json
    ngx_run 30 fit "$LG_DIR/fixtures/$1" -o "$IT_DIR/$1.json"
    [[ $RC == 0 ]] || fail "ngx fit $1: exit $RC: $(cat "$IT_DIR/err")"
}
for fixture in shm-main-job-near.json shm-main-job-series.json shm-far-placement.json shm-far-inline-switch.csv; do
    refit "$fixture"
    python3 - "$IT_DIR/$fixture.json" "$fixture" <<'PY' || fail "$fixture: the re-fit misses the max goal, has a range of L < 0 or no range at 64 B"
import json, sys
model = json.load(open(sys.argv[1]))["model"]
if sys.argv[2] == "shm-far-inline-switch.csv":
    assert 64 in [int(p) for p in model["change_points_bytes"]], "no range starts at 64 B"
error = model["quality"]["overall"]["all"]
ranges = [(int(r["from_bytes"]), int(r["to_bytes"]), r["L_us"]) for r in model["ranges"]]
print(f"  ranges {ranges}; mean {100 * error['mean_relative']:.2f}%, max {100 * error['max_relative']:.2f}%")
assert error["max_relative"] < 0.15, "max error not below 15%"
assert all(L >= 0 for _, _, L in ranges), "a range with L < 0"
PY
    ok "$fixture: max below 15%, every L >= 0"
done
refit loggp-vader.json
python3 - "$IT_DIR/loggp-vader.json.json" <<'PY' || fail "loggp-vader.json: no range of L < 0 named, no range at 4 KiB, or max not below 15%"
import json, sys
model = json.load(open(sys.argv[1]))["model"]
points = [int(p) for p in model["change_points_bytes"]]
error = model["quality"]["overall"]["all"]
print(f"  change points {points}; mean {100 * error['mean_relative']:.2f}%, max {100 * error['max_relative']:.2f}%")
assert model["negative"] == "yes"
assert 4096 in points
assert error["max_relative"] < 0.15
named = [r for r in model["ranges"] if r["admissible"] is False and "L_us" in r["negative_parameters"]]
assert named and all(r["L_us"] < 0 and "not LogGP" in r["warning"] for r in named)
PY
ok "loggp-vader.json: a range starts at the 4 KiB eager limit, max below 15%, L < 0 named as not LogGP"
ngx_run 30 fit "$LG_DIR/fixtures/loggp-vader.json" --loggp-negative no -o "$IT_DIR/vader-admissible.json"
[[ $RC == 0 ]] || fail "ngx fit loggp-vader.json --loggp-negative no: exit $RC: $(cat "$IT_DIR/err")"
python3 - "$IT_DIR/vader-admissible.json" <<'PY' || fail "--loggp-negative no: a parameter below 0, a miss unnamed, or no range at 4 KiB"
import json, sys
model = json.load(open(sys.argv[1]))["model"]
points = [int(p) for p in model["change_points_bytes"]]
print(f"  change points {points}")
assert model["negative"] == "no"
assert 4096 in points, "no range starts at 4 KiB"
misses = 0
for r in model["ranges"]:
    costs = {k: v for k, v in r.items() if k.endswith(("_us", "_per_byte")) and isinstance(v, (int, float))}
    assert all(v >= 0 for v in costs.values()), f"{r['from_bytes']:.0f} B: {costs}"
    assert r["admissible"] is True and "negative_parameters" not in r
    if "misses the goal" in r.get("warning", ""):
        misses += 1
        print(f"  {r['from_bytes']:.0f} B: {r['warning'][:70]}")
assert misses > 0, "the range that needs L < 0 must say it misses the goal"
PY
ok "loggp-vader.json --loggp-negative no: every parameter >= 0, the misses named, a range at 4 KiB"
echo PASS
