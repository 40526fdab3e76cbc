#!/bin/bash
# predict-kinds.sh: one `ngx predict` for every built-in model kind. From
# hand-written model files (loggp, loggps, maxrate, loghssp), each kind is
# found by its file, `--format json` gives {model, op, predictions: [{model,
# op, bytes, ..., time_us}]} with the value worked out by hand, --help lists
# the kind's parameters and operations, and the two rules every kind shares
# are exit 2 naming what is wrong: an --op the kind does not predict (the
# message lists the ones it does) and an option the --op does not read.
source "$(dirname "$0")/../lib/ngx-run.sh"
# loggp, one range: pingpong L + 2o + (s-1)G = 5 + 2 + 99 * 0.0003 = 7.0297 us at 100 B.
cat >loggp.json <<'JSON'
{"pattern": "loggp", "model": {"kind": "loggp", "ranges": [
  {"from_bytes": 1, "to_bytes": 65536, "L_us": 5, "o_us": 1, "g_us": 2, "G_us_per_byte": 0.0003}]}}
JSON
# loghssp: intra s_s + s_r + (s-1) S = 1 + 2 + 1023 * 0.001 = 4.023 us (eq. 8);
# inter o_s + o_r + (s-1) G + L = 3 + 4 + 1023 * 0.01 + 5 = 22.23 us (eq. 9).
cat >loghssp.json <<'JSON'
{"pattern": "overhead", "kind": "loghssp", "intra": {"s_s_us": 1, "s_r_us": 2, "S_us_per_byte": 0.001},
 "inter": {"o_s_us": 3, "o_r_us": 4, "L_us": 5, "G_us_per_byte": 0.01}}
JSON
# maxrate, one regime: postal_all alpha + n / R = 10 + 1e6 B / 1e9 B/s = 1010 us;
# maxrate3 alpha + k n / min(R_N, k R_C) = 10 + 4e6 / 2.5e9 s = 1610 us at k = 4.
cat >nodecomm.json <<'JSON'
{"pattern": "nodecomm", "model": {"kind": "nodecomm", "ranges": [{"from_bytes": 1, "to_bytes": null, "models": {
   "postal_all": {"alpha_us": {"value": 10, "ci95": [9, 11]}, "R_Bps": {"value": 1e9, "ci95": [0.9e9, 1.1e9]}},
   "maxrate3": {"alpha_us": {"value": 10, "ci95": [9, 11]}, "R_C_Bps": {"value": 1e9, "ci95": [0.9e9, 1.1e9]},
                "R_N_Bps": {"value": 2.5e9, "ci95": [2.4e9, 2.6e9]}}}}]}}
JSON

# json FILE WANT_MODEL WANT_US ARGS...: every row names the model, and the row
# of interest (the last, or the one named by $variant) has time_us == WANT_US.
json() {
    local file=$1 model=$2 want=$3
    shift 3
    ngx_run 30 predict --params "$file" --format json "$@"
    [[ $RC == 0 ]] || fail "predict --params $file $* --format json: exit $RC: $(cat err)"
    python3 - out "$model" "$want" "${variant:-}" <<'PY' || fail "predict --params $file $*: $(cat out)"
import json, sys
d = json.load(open(sys.argv[1]))
model, want, variant = sys.argv[2], float(sys.argv[3]), sys.argv[4]
rows = d["predictions"]
assert d["model"] == model and rows and all(r["model"] == model and r["op"] == d["op"] for r in rows), d
row = [r for r in rows if r.get("variant") == variant][0] if variant else rows[-1]
assert "bytes" in row and abs(row["time_us"] - want) <= 1e-9 * want, (row, want)
PY
    ok "$model: predict $* --format json: $want us"
}
json loggp.json loggp 7.0297 --op pingpong -s 100
json loghssp.json loghssp 4.023 --op p2p --tier intra -s 1Ki
json loghssp.json loghssp 22.23 --tier inter -s 1Ki # p2p: loghssp's only operation
variant=postal_all json nodecomm.json maxrate 1010 --op nodecomm -k 4 -s 1000000
variant=maxrate3 json nodecomm.json maxrate 1610 --op nodecomm -k 4 -s 1000000

# --help with --params: the kind's parameters and its operations.
ngx_run 30 predict --params nodecomm.json --help
[[ $RC == 0 ]] && grep -q "^Model maxrate" out && grep -q "R_N_Bps" out && grep -q "^  best-k" out ||
    fail "predict --help of a nodecomm run: $(cat out)"
ok "predict --params nc.json --help: maxrate's parameters and operations"

# expect_usage WHAT PATTERN ARGS...: exit 2 and PATTERN on stderr.
# predict_usage WHAT TEXT ARG...: ngx predict ARG... exits 2 and says TEXT on stderr
predict_usage() { expect_ngx_usage "$1" "$2" predict "${@:3}"; }
predict_usage "loghssp --op pingpong" "--op 'pingpong': expected p2p (model loghssp)" \
    --params loghssp.json --op pingpong --tier intra -s 1Ki
predict_usage "maxrate --op prtt" "expected nodecomm, best-k (model maxrate)" --params nodecomm.json --op prtt -s 1
predict_usage "loggp pingpong -k" "--pairs: not used by --op pingpong of model loggp" \
    --params loggp.json --op pingpong -s 100 -k 2
predict_usage "loghssp -P" "--processes: not used by --op p2p of model loghssp" \
    --params loghssp.json --tier intra -s 1Ki -P 4
predict_usage "maxrate --tier" "--tier: not used by --op nodecomm of model maxrate" \
    --params nodecomm.json -s 1 --tier intra
predict_usage "loggp's own option on loghssp" "unrecognised option\|unknown option\|--export" \
    --params loghssp.json --tier intra -s 1Ki --export loggopsim
echo PASS
