#!/bin/bash
# ngx predict on a nodecomm model with known parameters (written here):
# a saved run's model with alpha 10 us, R_C 1e9 B/s, R_N 2.5e9 B/s (k* = 2.5), postal alpha 10 us,
# R 1e9 B/s. --op nodecomm -k 4 -s 1000000 gives maxrate3 10 + 4e6/2.5e9 s =
# 1610 us and postal 1010 us; --op best-k -s 4000000 picks k = 3 (the least
# k whose 3 R_C exceeds R_N); a file without a nodecomm model, a missing -s
# and a bad --op are usage errors (exit 2).
source "$(dirname "$0")/common.sh"
cat >"$SCRATCH/nc.json" <<'JSON'
{"pattern": "nodecomm", "model": {"kind": "nodecomm",
 "nodecomm": {"pairs": [1, 2, 3, 4], "sizes": [1, 1000000], "T_us": [[10, 1010], [10, 1010], [10, 1210], [10, 1610]],
              "T_mean_us": [[10, 1010], [10, 1010], [10, 1210], [10, 1610]]},
 "ranges": [{"from_bytes": 0, "to_bytes": null, "k_star": 2.5, "models": {
   "postal_all": {"alpha_us": {"value": 10, "ci95": [9, 11]}, "R_Bps": {"value": 1e9, "ci95": [0.9e9, 1.1e9]}},
   "maxrate3": {"alpha_us": {"value": 10, "ci95": [9, 11]}, "R_C_Bps": {"value": 1e9, "ci95": [0.9e9, 1.1e9]},
                "R_N_Bps": {"value": 2.5e9, "ci95": [2.4e9, 2.6e9]}, "k_star": 2.5}}}]}}
JSON
out=$("$NGX" predict --params "$SCRATCH/nc.json" --op nodecomm -k 4 -s 1000000) || fail "predict nodecomm: exit $?"
echo "$out"
grep -Eq '^  maxrate3 +1610(\.0+)?$' <<<"$out" || fail "maxrate3 T(4, 1 MB) is not 1610 us"
grep -Eq '^  postal_all +1010(\.0+)?$' <<<"$out" || fail "postal T(1 MB) is not 1010 us"
out=$("$NGX" predict --params "$SCRATCH/nc.json" --op best-k -s 4000000) || fail "predict best-k: exit $?"
echo "$out"
grep -q '^best k = 3: 1610 us' <<<"$out" || fail "best k for 4 MB is not 3 (1610 us)"
echo '{"pattern": "nodecomm", "runs": []}' >"$SCRATCH/empty.json"
for bad in "--params $SCRATCH/empty.json -s 1" "--params $SCRATCH/nc.json" "--params $SCRATCH/nc.json --op best -s 1"; do
    # shellcheck disable=SC2086
    "$NGX" predict $bad >/dev/null 2>"$SCRATCH/err"
    rc=$?
    echo "predict $bad: exit $rc: $(cat "$SCRATCH/err")"
    [[ $rc == 2 ]] || fail "predict $bad: exit $rc, expected 2"
done
echo PASS
