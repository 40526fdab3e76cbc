#!/bin/bash
# ngx predict on a nodecomm model with known parameters (written here):
# a saved run's model with alpha 10 us, R_C 1e9 B/s, R_N 2.5e9 B/s (k* = 2.5), postal alpha 10 us,
# R 1e9 B/s. --op nodecomm -k 4 -s 1000000 gives maxrate3 10 + 4e6/2.5e9 s =
# 1610 us and postal 1010 us; maxrate4 (alpha 10 us, R_Cb 1e9, R_Ci 0.25e9,
# R_N 2.5e9 B/s) 10 + 4e6 / min(2.5e9, 1e9 + 3 x 0.25e9) s = 10 + 4e6/1.75e9 s
# = 2295.714285714 us; modified (alpha 20 us, R_C 1e9, R_N 2.5e9 B/s)
# max(4e6/2.5e9 s, 20 us + 1e6/1e9 s) = 1600 us (network-limited). At -k 2:
# maxrate4 10 + 2e6/1.25e9 s = 1610 us, modified max(800, 1020) = 1020 us
# (core-limited). Each within 1e-6 relative. --op best-k -s 4000000 picks
# k = 3 (the least k whose 3 R_C exceeds R_N); a file without a nodecomm
# model, a missing -s and a bad --op are usage errors (exit 2).
source "$(dirname "$0")/common.sh"
cat >"$SCRATCH/nc.json" <<'JSON'
{"pattern": "nodecomm", "model": {"kind": "nodecomm",
 "nodecomm": {"pairs": [1, 2, 3, 4], "sizes": [1, 1000000], "T_us": [[10, 1010], [10, 1010], [10, 1210], [10, 1610]],
              "T_mean_us": [[10, 1010], [10, 1010], [10, 1210], [10, 1610]]},
 "ranges": [{"from_bytes": 0, "to_bytes": null, "k_star": 2.5, "models": {
   "postal_all": {"alpha_us": {"value": 10, "ci95": [9, 11]}, "R_Bps": {"value": 1e9, "ci95": [0.9e9, 1.1e9]}},
   "maxrate3": {"alpha_us": {"value": 10, "ci95": [9, 11]}, "R_C_Bps": {"value": 1e9, "ci95": [0.9e9, 1.1e9]},
                "R_N_Bps": {"value": 2.5e9, "ci95": [2.4e9, 2.6e9]}, "k_star": 2.5},
   "maxrate4": {"alpha_us": {"value": 10, "ci95": [9, 11]}, "R_Cb_Bps": {"value": 1e9, "ci95": [0.9e9, 1.1e9]},
                "R_Ci_Bps": {"value": 0.25e9, "ci95": [0.2e9, 0.3e9]},
                "R_N_Bps": {"value": 2.5e9, "ci95": [2.4e9, 2.6e9]}, "k_star": 7},
   "modified": {"alpha_us": {"value": 20, "ci95": [19, 21]}, "R_C_Bps": {"value": 1e9, "ci95": [0.9e9, 1.1e9]},
                "R_N_Bps": {"value": 2.5e9, "ci95": [2.4e9, 2.6e9]}}}}]}}
JSON
out=$("$NGX" predict --params "$SCRATCH/nc.json" --op nodecomm -k 4 -s 1000000) || fail "predict nodecomm: exit $?"
echo "$out"
grep -Eq '^maxrate +maxrate3 +nodecomm +1000000 +4 +1610$' <<<"$out" || fail "maxrate3 T(4, 1 MB) is not 1610 us"
grep -Eq '^maxrate +postal_all +nodecomm +1000000 +4 +1010$' <<<"$out" || fail "postal T(1 MB) is not 1010 us"
out=$("$NGX" predict --params "$SCRATCH/nc.json" --op nodecomm -k 4 -s 1000000 --format csv) || fail "predict nodecomm --format csv: exit $?"
expect_t() { # CSV MODEL MICROSECONDS: the time_us of the model's row within 1e-6 relative
    python3 - "$@" <<'PY' || fail "$2 is not $3 us"
import csv, io, sys
out, name, want = sys.argv[1], sys.argv[2], float(sys.argv[3])
got = [float(row["time_us"]) for row in csv.DictReader(io.StringIO(out)) if row["variant"] == name]
assert len(got) == 1 and abs(got[0] - want) <= 1e-6 * want, (name, got, want)
PY
}
expect_t "$out" maxrate4 2295.714285714286 # 10 + 4e6 / 1.75e9 s
expect_t "$out" modified 1600              # max(4e6 / 2.5e9 s, 20 us + 1e6 / 1e9 s)
out=$("$NGX" predict --params "$SCRATCH/nc.json" --op nodecomm -k 2 -s 1000000 --format csv) || fail "predict nodecomm -k 2: exit $?"
echo "$out"
expect_t "$out" maxrate4 1610 # 10 + 2e6 / min(2.5e9, 1.25e9) s
expect_t "$out" modified 1020 # max(2e6 / 2.5e9 s, 20 us + 1e6 / 1e9 s): core-limited
out=$("$NGX" predict --params "$SCRATCH/nc.json" --op best-k -s 4000000) || fail "predict best-k: exit $?"
echo "$out"
grep -q '^# best k = 3: 1610 us' <<<"$out" || fail "best k for 4 MB is not 3 (1610 us)"
echo '{"pattern": "nodecomm", "runs": []}' >"$SCRATCH/empty.json"
for bad in "--params $SCRATCH/empty.json -s 1" "--params $SCRATCH/nc.json" "--params $SCRATCH/nc.json --op best -s 1"; do
    # shellcheck disable=SC2086
    "$NGX" predict $bad >/dev/null 2>"$SCRATCH/err"
    rc=$?
    echo "predict $bad: exit $rc: $(cat "$SCRATCH/err")"
    [[ $rc == 2 ]] || fail "predict $bad: exit $rc, expected 2"
done
echo PASS
