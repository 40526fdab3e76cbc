#!/bin/bash
# -x loghssp refuses, with exit 2 and a message naming what is missing, runs
# without the two tiers: fewer than 4 ranks, no host with two ranks, one
# host only (no --host-of: every forked rank on this machine); a module
# without per-peer links (the fixture "corrupt" of tests/faults); a bad delay.
# And a rank killed mid-run ends the run within its deadline (exit 1).
source "$(dirname "$0")/common.sh"


SIM=(-m sim --sim-clock virtual -x loghssp -s 1,1Ki -c 10 --warmup 1)
expect_usage "this run has 2 ranks; hosts seen: a (rank 0), b (rank 1)" "this run has 2 ranks; hosts seen: a (rank 0), b (rank 1)" "$NGX" "${SIM[@]}" --host-of a,b
expect_usage "no host has two ranks; hosts seen: a (rank 0), b (rank 1), c (rank 2), d (rank 3)" "no host has two ranks; hosts seen: a (rank 0), b (rank 1), c (rank 2), d (rank 3)" \
    "$NGX" --pairs 2 "${SIM[@]}" --host-of a,b,c,d
expect_usage "only one host; hosts seen: a (ranks 0, 1, 2, 3)" "only one host; hosts seen: a (ranks 0, 1, 2, 3)" "$NGX" --pairs 2 "${SIM[@]}" --host-of a,a,a,a
expect_usage "only one host; hosts seen: $(hostname) (ranks 0, 1, 2, 3)" "only one host; hosts seen: $(hostname) (ranks 0, 1, 2, 3)" "$NGX" --pairs 2 "${SIM[@]}"
[[ -n ${NGX_FIXTURE_MODULE_DIR:-} ]] || fail "NGX_FIXTURE_MODULE_DIR is not set (run through meson test)"
(
    export NGX_MODULE_PATH=$NGX_FIXTURE_MODULE_DIR:$NGX_MODULE_PATH
    expect_usage "module corrupt cannot run pattern loghssp" "module corrupt cannot run pattern loghssp" "$NGX" --pairs 2 -m corrupt -x loghssp \
        --host-of a,a,b,b -c 10
) || exit 1
expect_usage "loghssp-delay" "loghssp-delay" "$NGX" --pairs 2 "${SIM[@]}" --host-of a,a,b,b --loghssp-delay -1

# A rank killed while the intra pair measures (sim in real time, 2 ms
# latency: that pair alone takes several seconds): every rank leaves its
# relay step within the deadline, the run ends with exit 1, and the saved
# run says which rank was lost.
source "$NGX_SOURCE_ROOT/tests/lib/kill-mid-run.sh"
kill_mid_run first "$SCRATCH/killed.json" --pairs 2 -m sim --sim-L 2000 --sim-sleep 50 -x loghssp --host-of a,a,b,b \
    -s 1,1Ki,4Ki -c 200 --warmup 2
python3 - "$SCRATCH/killed.json" <<'PY' || { cat "$SCRATCH/killed.txt"; fail "the saved run does not tell the lost rank"; }
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "error" and re.search(r"rank [123]\b.*(closed|lost)", d["error"]), (d["status"], d.get("error"))
print("ok (exit 1): " + d["error"])
PY
echo PASS
