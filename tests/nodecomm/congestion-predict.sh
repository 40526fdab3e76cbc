#!/bin/bash
# ngx predict reads a congestion run's max-rate fit (models/maxrate: the
# congestion pattern declares the maxrate kind). A hand-written run with
# alpha 10 us, R_C 1000 MB/s, R_N 2500 MB/s (k* = 2.5): --op nodecomm -k 4
# -s 1000000 is 10 + 4e6 / 2500 = 1610 us, -k 2 is 10 + 2e6 / 2000 = 1010
# us; R_N null (no node limit seen) makes -k 4 10 + 4e6 / 4000 = 1010 us;
# --op best-k -s 4000000 picks k = 3 of the run's flow counts 1..3. A fit
# that failed (an "error" string) predicts null; a congestion model without
# its "maxrate" is a usage error (exit 2) naming it. Then a congestion run of
# the sim (virtual time) predicts, from its own file, what its fit says.
source "$(dirname "$0")/common.sh"
write_run() { # write_run FILE MAXRATE_JSON
    cat >"$1" <<JSON
{"pattern": "congestion", "model": {"kind": "congestion", "congestion": {"direction": "in", "rounds": 3,
 "rounds_done": 3, "per_flows": [{"flows": 1, "peers": [1]}, {"flows": 2, "peers": [1, 2]},
 {"flows": 3, "peers": [1, 2, 3]}], "maxrate": $2}}}
JSON
}
fitted='{"points": 6, "alpha_us": 10, "R_N_MBps": 2500, "R_C_MBps": 1000, "k_star": 2.5}'
write_run "$SCRATCH/c.json" "$fitted"
time_of() { # time_of FILE ARGS...: the maxrate3 prediction of --format json
    local file=$1
    shift
    "$NGX" predict --params "$file" --format json "$@" |
        python3 -c 'import json, sys; p = json.load(sys.stdin)["predictions"]; print(p[0]["time_us"])'
}
near() { python3 -c "import sys; sys.exit(0 if abs($1 - $2) <= 1e-6 * $2 else 1)" 2>/dev/null; }
t=$(time_of "$SCRATCH/c.json" -k 4 -s 1000000) || fail "predict -k 4: exit $?"
near "$t" 1610 || fail "maxrate3 T(4, 1 MB) is $t us, not 1610"
t=$(time_of "$SCRATCH/c.json" -k 2 -s 1000000) || fail "predict -k 2: exit $?"
near "$t" 1010 || fail "maxrate3 T(2, 1 MB) is $t us, not 1010"
out=$("$NGX" predict --params "$SCRATCH/c.json" --op best-k -s 4000000) || fail "best-k: exit $?"
grep -q '^# best k = 3:' <<<"$out" || { echo "$out"; fail "best-k did not pick k = 3"; }

write_run "$SCRATCH/unbounded.json" '{"points": 6, "alpha_us": 10, "R_N_MBps": null, "R_C_MBps": 1000}'
t=$(time_of "$SCRATCH/unbounded.json" -k 4 -s 1000000) || fail "predict with R_N null: exit $?"
near "$t" 1010 || fail "maxrate3 T(4, 1 MB) without a node limit is $t us, not 1010"

write_run "$SCRATCH/failed.json" '{"points": 2, "error": "needs more points than its 3 parameters (P >= 3)"}'
t=$(time_of "$SCRATCH/failed.json" -k 2 -s 1000) || fail "predict of a failed fit: exit $?"
[[ $t == None ]] || fail "a failed fit predicted $t, not null"

python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["model"]["congestion"]["maxrate"]
json.dump(d, open(sys.argv[2], "w"))' "$SCRATCH/c.json" "$SCRATCH/none.json"
"$NGX" predict --params "$SCRATCH/none.json" -s 1000 >"$SCRATCH/out.txt" 2>&1
rc=$?
[[ $rc == 2 ]] || { cat "$SCRATCH/out.txt"; fail "a congestion run without its fit: exit $rc, not 2"; }
grep -q '"maxrate"' "$SCRATCH/out.txt" || { cat "$SCRATCH/out.txt"; fail "the error does not name \"maxrate\""; }

timeout -k 5 60 "$NGX" --pairs 2 -m sim --sim-clock virtual -x congestion -s 64Ki -c 3 -o "$SCRATCH/sim.json" \
    >"$SCRATCH/run.txt" 2>&1 || { cat "$SCRATCH/run.txt"; fail "the congestion run failed"; }
t=$(time_of "$SCRATCH/sim.json" -k 2 -s 65536) || fail "predict from the sim's run: exit $?"
nc_py "$SCRATCH/sim.json" "
f = m['congestion']['maxrate']
rn = f['R_N_MBps'] if f['R_N_MBps'] is not None else math.inf
want = f['alpha_us'] + 2 * 65536 / min(rn, 2 * f['R_C_MBps'])
sys.exit(0 if abs($t - want) <= 1e-6 * want else 'FAIL: predicted $t us, the run fitted %g' % want)" || exit 1
echo "PASS: ngx predict reads congestion runs (maxrate kind)"
