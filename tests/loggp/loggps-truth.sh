#!/bin/bash
# loggps-truth.sh E|F: loggps on the sim module recovers the LogGPS
# parameters of Ino et al. 2001 it implies, and `ngx fit run.json` gives the run's
# model exactly. The sim has o_s = o_r = o here (LogGPS has one o') and no
# rendezvous or multi-packet switch, so, by Table 6 with k = s - 1 bytes:
#   o' = o, O_s = O_s(sim), O_r = O_r(sim), G_s = G, L = L - (O_s + O_r + G)
#   (the model counts k = s bytes, the sim s - 1), s and S none, G_l null.
# Without a size above S, O_s and O_r cannot be told apart (the fit assumes
# O_s = O_r and says so), so both sets give the sim O_s = O_r.
#   E: L 5, o 2, g 6, G 0.002, O 0.0003 us/B;  F: L 3, o 3, g 4, G 0.001, O 0.0005
# Within 3% (L and o' + 0.15 us: the measurement's absolute bias on the
# overheads, see sim-lines.sh). 1 B..8 KiB.
source "$(dirname "$0")/truth.sh"
lg_need_cpus
lg_need_module sim
TOL=0.03 BIAS=0.15
lg_sim_clock "$@"
case ${1:-E} in
E) L=5 o=2 g=6 G=0.002 O=0.0003 ;;
F) L=3 o=3 g=4 G=0.001 O=0.0005 ;;
*) fail "unknown parameter set '$1' (E or F)" ;;
esac
run() {
    ngx_run 150 -m sim "${SIM_CLOCK[@]}" -x loggps --sim-L $L --sim-os $o --sim-or $o --sim-g $g --sim-G $G --sim-O $O --sim-Or $O \
        --sim-S 0 -s 1-8Ki --cpus 0,1 -o "$IT_DIR/run.json"
    [[ $RC == 0 ]] || { tail -5 "$IT_DIR/err"; return 1; }
    sed -n '/^# loggps parameters/,$p' "$IT_DIR/out"
}
check() {
    python3 - "$IT_DIR/run.json" $L $o $G $O "$TOL" "$BIAS" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["model"]
L, o, G, O, tol, bias_us = map(float, sys.argv[2:8])
bad = []
def within(key, want, bias=0.0):
    got = m[key]["value"]
    good = got is not None and abs(got - want) <= tol * abs(want) + bias
    print(f"  {'ok  ' if good else 'FAIL'} {key:<18} {got:.6g}  expected {want:.6g}  ({100 * tol:g}%{f' + {bias} us' if bias else ''})")
    if not good:
        bad.append(key)
within("L_us", L - (2 * O + G), bias_us)
within("o_prime_us", o, bias_us)
within("O_s_us_per_byte", O)
within("O_r_us_per_byte", O)
within("G_s_us_per_byte", G)
for key in ("s_bytes", "S_bytes"):
    print(f"  {'ok  ' if m[key] is None else 'FAIL'} {key:<18} {m[key]} (the sim has no switch)")
    if m[key] is not None:
        bad.append(key)
if not m["O_split_assumed"] or m["G_l_us_per_byte"]["value"] is not None:
    bad.append("O_split_assumed / G_l")
print("  not_overlapped:", m["not_overlapped"])
sys.exit(1 if bad else 0)
PY
}
lg_measure_and_check "loggps sim set ${1:-E}" run check
ngx_run 30 fit "$IT_DIR/run.json" -o "$IT_DIR/fit.json"
[[ $RC == 0 ]] || fail "ngx fit run.json (loggps): exit $RC"
python3 -c 'import json, sys; a, b = (json.load(open(p))["model"] for p in sys.argv[1:3]); sys.exit(a != b)' \
    "$IT_DIR/run.json" "$IT_DIR/fit.json" || fail "ngx fit run.json: not the run's loggps model"
ok "ngx fit run.json gives the run's loggps model exactly"
ngx_run 30 predict --params "$IT_DIR/run.json" --op pingpong -s 1Ki --format json
[[ $RC == 0 ]] || fail "ngx predict (loggps): exit $RC: $(cat "$IT_DIR/err")"
python3 - "$IT_DIR/run.json" "$IT_DIR/out" <<'PY' || fail "ngx predict pingpong (loggps) is not RTT(k,0)/2 of Table 6"
import json, sys
m = json.load(open(sys.argv[1]))["model"]
got = json.load(open(sys.argv[2]))["predictions"][0]["time_us"]
v = lambda k: m[k]["value"]
k = 1024  # Table 6, w = 0, k <= s: RTT = 4o' + 2L + 2 (O_s + O_r + G_s) k
want = (4 * v("o_prime_us") + 2 * v("L_us") + 2 * (v("O_s_us_per_byte") + v("O_r_us_per_byte") + v("G_s_us_per_byte")) * k) / 2
assert abs(got - want) <= 1e-5 * want, (got, want)
print(f"predict pingpong 1 KiB = {got} us = RTT(1024, 0)/2 by Table 6")
PY
ok "ngx predict with a loggps model: Table 6"
echo PASS
