#!/bin/bash
# options.sh: the options of the loggp and loggps patterns and of ngx fit
# change what they name (end to end, seconds each; the sim in virtual time,
# so the sim's truth is exact):
#  - --loggp-n N: the run records n = N, and PRTT(N,0,s) = PRTT(1,0,s) +
#    (N-1)(g + (s-1)G) of the sim (g = 2 us, G = 0.001 us/byte) for N = 4, 16;
#  - --loggp-detector none, --loggp-lookahead, --loggp-pfact on a sim run:
#    recorded in options and model; none fits a single range;
#  - the detector options on `ngx fit` of a synthetic raw-PRTT file whose
#    G steps from 0.001 to 0.0016 us/byte at 2 KiB (1% alternating noise on
#    PRTT(1,0,s) and PRTT(n,0,s): the detector searches every curve, and a
#    noiseless curve would make any kink significant at any pfact):
#    pfact 2 finds the step at 2067 B, pfact 100 finds none; the paper
#    detector with lookahead 3 finds it, with lookahead 6 (more points than
#    the 5 sizes after the step) finds none;
#  - --loggps-w-factor F: W of each size is F times its RTT(k, 0) median.
source "$(dirname "$0")/common.sh"
lg_need_cpus
lg_need_module sim
sim=(-m sim --sim-clock virtual --cpus 0,1 -s 1,64,1Ki,4Ki -c 30 --warmup 5)

for n in 4 16; do
    ngx_run 60 "${sim[@]}" -x loggp --loggp-n "$n" -o "n$n.json"
    [[ $RC == 0 ]] || fail "--loggp-n $n: exit $RC"
    python3 - "n$n.json" "$n" <<'PY' || fail "--loggp-n $n is not what the run measured"
import json, sys
doc, n = json.load(open(sys.argv[1])), int(sys.argv[2])
assert doc["options"]["pattern_options"]["n"] == n and doc["model"]["n"] == n, (doc["options"], doc["model"]["n"])
for r in doc["results"]:
    s = r["size_bytes"]
    want = r["prtt_1_0_us"] if "prtt_1_0_us" in r else r["median_us"]
    want += (n - 1) * (2 + (s - 1) * 0.001)
    got = r["prtt_n_0_us"]
    assert abs(got - want) <= 0.03 * want + 0.5, f"{s} B: PRTT({n},0,s) {got:.2f} us, sim truth {want:.2f} us"
    print(f"n={n} {s} B: PRTT(n,0,s) {got:.2f} us, truth {want:.2f} us")
PY
done
ok "--loggp-n sets the n of PRTT(n,0,s)"

ngx_run 60 "${sim[@]}" -x loggp --loggp-detector none --loggp-lookahead 3 --loggp-pfact 4 -o none.json
[[ $RC == 0 ]] || fail "--loggp-detector none: exit $RC"
python3 - none.json <<'PY' || fail "the detector options are not those asked"
import json, sys
doc = json.load(open(sys.argv[1]))
asked = {"detector": "none", "lookahead": 3, "pfact": 4}
for key, value in asked.items():
    assert doc["options"]["pattern_options"][key] == value, (key, doc["options"]["pattern_options"])
    assert doc["model"][key] == value, (key, doc["model"][key])
assert len(doc["model"]["ranges"]) == 1 and doc["model"]["change_points_bytes"] == [], doc["model"]["ranges"]
PY
ok "--loggp-detector/--loggp-lookahead/--loggp-pfact recorded; none fits one range"

python3 - step.csv <<'PY'
import sys
sizes, s = [], 1.0
while s <= 6144:
    sizes.append(int(s))
    s = max(s * 1.25, s + 1)
n, L, o, g = 16, 4, 2, 4
with open(sys.argv[1], "w") as f:
    f.write("size_bytes,n,delay_us,prtt_1_0_us,prtt_n_0_us,prtt_n_d_us\n")
    for i, s in enumerate(sizes):
        G = 0.001 if s < 2048 else 0.0016
        noise = 1.01 if i % 2 else 0.99
        p1 = 2 * (L + 2 * o + (s - 1) * G)
        pn0 = p1 + (n - 1) * max(o, g + (s - 1) * G) * noise
        pnd = p1 + (n - 1) * max(o + p1, g + (s - 1) * G)
        f.write(f"{s},{n},{p1},{p1 * noise},{pn0},{pnd}\n")  # every measured curve is noisy
PY
fit_change_points() {  # WANT OPTION...: ngx fit step.csv finds exactly the change points WANT
    local want=$1 got
    shift
    ngx_run 30 fit step.csv "$@" -o fit.json
    [[ $RC == 0 ]] || fail "ngx fit step.csv $*: exit $RC"
    got=$(json_field fit.json 'd["model"]["change_points_bytes"]')
    [[ $got == "$want" ]] || fail "ngx fit step.csv $*: change points $got, expected $want"
    ok "ngx fit $*: change points $got"
}
fit_change_points "[2067.0]"
fit_change_points "[]" --loggp-pfact 100
fit_change_points "[2067.0]" --loggp-detector paper --loggp-lookahead 3
fit_change_points "[]" --loggp-detector paper --loggp-lookahead 6
fit_change_points "[]" --loggp-detector none

for w in 2 6; do
    ngx_run 60 "${sim[@]}" -x loggps --loggps-w-factor "$w" -o "w$w.json"
    [[ $RC == 0 ]] || fail "--loggps-w-factor $w: exit $RC"
    python3 - "w$w.json" "$w" <<'PY' || fail "--loggps-w-factor $w does not set W"
import json, sys
doc, w = json.load(open(sys.argv[1])), float(sys.argv[2])
assert doc["options"]["pattern_options"]["w_factor"] == w and doc["model"]["w_factor"] == w
for r in doc["results"]:
    assert abs(r["w_us"] - w * r["median_us"]) <= 0.02 * w * r["median_us"], (r["size_bytes"], r["w_us"], r["median_us"])
    assert r["rtt_w_us"] > r["w_us"], r
print(f"w_factor {w}: W / RTT(k,0) =", [round(r["w_us"] / r["median_us"], 3) for r in doc["results"]])
PY
done
ok "--loggps-w-factor sets W as a multiple of RTT(k, 0)"
echo PASS
