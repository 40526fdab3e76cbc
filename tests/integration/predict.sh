#!/bin/bash
# predict.sh: `ngx predict` against values computed by hand from a saved
# two-range model (L, o, g, G per range), and `--export loggopsim` parsed
# back. Formulas (Hoefler et al. 2007; s bytes, the range holding s):
#   pingpong (half round trip)   L + 2o + (s-1)G
#   prtt (n, d)                  2(L + 2o + (s-1)G) + (n-1) max(o + d, g + (s-1)G)
#   bcast-linear to P            L + 2o + (s-1)G + (P-2) max(o, g + (s-1)G)
#   bcast-tree to P              h (L + 2o + (s-1)G) + (h-1) g, h = ceil(log2 P)
#                                (Cameron et al. 2007, section 4.3.3)
# The export prints, per range, "-L -o -g -G -O -S" in integer picoseconds
# (G of 0.3 ns/B stays 300, not 0), -o/-O the intercept and slope of the
# overhead line, -S the range's largest size (LogGOPSim: size > S is
# rendezvous). A range with a parameter below 0 (not LogGP) is predicted with
# a warning on stderr; the export carries its round trip with parameters >= 0
# (L < 0 as 0 with o + L/2; where 2o + L < 0, from 0 with the round trip at S
# kept; g < 0 as 0), each change on a comment line, and refuses what it cannot.
source "$(dirname "$0")/../lib/ngx-run.sh"
cat >model.json <<'JSON'
{"pattern": "loggp", "model": {"kind": "loggp", "ranges": [
  {"from_bytes": 1, "to_bytes": 1024, "L_us": 5, "o_us": 1, "g_us": 2, "G_us_per_byte": 0.0003},
  {"from_bytes": 2048, "to_bytes": 65536, "L_us": 10, "o_us": 3, "g_us": 4, "G_us_per_byte": 0.002}]}}
JSON

# csv_time ARG...: the time_us of the one row of `ngx predict ARG... --format csv` ('' if not one row).
csv_time() {
    ngx_run 30 predict "$@" --format csv
    [[ $RC == 0 ]] || return 1
    python3 -c 'import csv, sys; rows = list(csv.DictReader(open(sys.argv[1]))); print(rows[0]["time_us"] if len(rows) == 1 else "")' out
}
# same GOT WANT: GOT equals WANT within 1e-9 relative.
same() {
    [[ -n $1 ]] && awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * b) }'
}
# predict OP SIZE WANT [OPTION...]: the one prediction's time_us (--format csv) equals WANT (1e-9 relative).
predict() {
    local op=$1 size=$2 want=$3 got
    shift 3
    got=$(csv_time --params model.json --op "$op" -s "$size" "$@") || fail "ngx predict --op $op -s $size $*: exit $RC"
    [[ -n $got ]] || fail "ngx predict --op $op -s $size $*: not one CSV row with time_us: $(cat out)"
    same "$got" "$want" || fail "predict --op $op -s $size $*: $got us, by hand $want us"
    ok "predict --op $op -s $size $*: $got us"
}
# range 1 (s = 100): L + 2o + (s-1)G = 5 + 2 + 0.0297 = 7.0297; g + (s-1)G = 2.0297
predict pingpong 100 7.0297
predict prtt 100 42.0594 -n 8 -d 3                # 2 * 7.0297 + 7 * max(1 + 3, 2.0297)
predict prtt 100 20.1485 -n 4 -d 0                # 2 * 7.0297 + 3 * max(1, 2.0297)
predict bcast-linear 100 11.0891 -P 4             # 7.0297 + 2 * max(1, 2.0297)
predict bcast-tree 100 16.0594 -P 4               # 2 * 7.0297 + 1 * 2
predict bcast-tree 100 25.0891 -P 5               # 3 * 7.0297 + 2 * 2
# range 2 (s = 4 KiB): 10 + 6 + 4095 * 0.002 = 24.19; g + (s-1)G = 12.19
predict pingpong 4Ki 24.19
predict prtt 4Ki 109.33 -n 6 -d 1                 # 2 * 24.19 + 5 * max(3 + 1, 12.19)
predict bcast-linear 4Ki 48.57 -P 4               # 24.19 + 2 * 12.19
predict bcast-tree 4Ki 80.57 -P 8                 # 3 * 24.19 + 2 * 4

# The table: the notes as "# " lines, then the columns a prediction has, units in their names.
ngx_run 30 predict --params model.json --op prtt -s 100 -n 8 -d 3
[[ $RC == 0 ]] || fail "predict (table): exit $RC: $(cat err)"
grep -q '^# prtt of 100 B with n = 8, d = 3 us' out && grep -qE '^model +op +bytes +n +d_us +time_us$' out &&
    grep -qE '^loggp +prtt +100 +8 +3 +42.0594$' out || fail "predict's table: $(cat out)"
ok "predict's table: notes, then model, op, bytes, n, d_us, time_us"
# JSON: the predictions with the notes.
ngx_run 30 predict --params model.json --op pingpong -s 100 --format json
python3 - out <<'PY' || fail "predict --format json: $(cat out)"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["model", "op", "predictions", "notes"], list(d)
(p,) = d["predictions"]
assert list(p) == ["model", "op", "bytes", "time_us"] and p["bytes"] == 100 and abs(p["time_us"] - 7.0297) < 1e-9, p
assert d["notes"][0].startswith("pingpong of 100 B"), d["notes"]
PY
ok "predict --format json: model, op, predictions, notes"

ngx_run 30 predict --params model.json --export loggopsim
[[ $RC == 0 ]] || fail "--export loggopsim: exit $RC"
cat out
python3 - out <<'PY' || fail "--export loggopsim does not give back the model"
import json, sys
ranges = json.load(open("model.json"))["model"]["ranges"]
lines = [l.split() for l in open(sys.argv[1]) if l.startswith("-")]
assert len(lines) == len(ranges), f"{len(lines)} parameter lines for {len(ranges)} ranges"
for i, (words, r) in enumerate(zip(lines, ranges)):
    flags = dict(zip(words[::2], map(int, words[1::2])))
    want = {"-L": round(r["L_us"] * 1e6), "-o": round(r["o_us"] * 1e6), "-g": round(r["g_us"] * 1e6),
            "-G": round(r["G_us_per_byte"] * 1e6), "-O": 0, "-S": r["to_bytes"]}
    assert flags == want, f"range {i}: exported {flags}, model {want}"
print("loggopsim export parsed back:", lines)
PY
ok "--export loggopsim gives back L, o, g, G (0.3 ns/B kept as 300 ps/B) per range and S"

# -o/-O: the intercept and slope of o_s(s) and o_r(s), averaged (LogGOPSim has one o and one O);
# an additive range's G is exported as O_s + O_r + G (LogGOPSim pays max(O, G) per byte, eq. (1) the sum).
sed 's/"o_us": 1,/"o_us": 1, "O_us_per_byte": 0.0002, "o_r_us": 0.5, "O_r_us_per_byte": 0.0001,/' model.json >lines.json
ngx_run 30 predict --params lines.json --export loggopsim
[[ $RC == 0 ]] || fail "--export loggopsim with overhead lines: exit $RC"
grep -q -- '^-L 5000000 -o 750000 -g 2000000 -G 600 -O 150 -S 1024$' out ||
    fail "--export loggopsim: expected -o 750000 (mean intercept) -G 600 (300 + 200 + 100) -O 150 (mean slope), got: $(cat out)"
grep -q 'additive, eq. (1) pays O_s + O_r + G per byte' out || fail "--export loggopsim: the folded G is not said: $(cat out)"
ok "--export loggopsim: -o the intercept, -O the slope of the overhead lines, G their sum with G"
# An overlapped range is LogGOPSim's model as it is: O = max(O_s, O_r), G unchanged.
python3 - lines.json overlapped.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for r in m["model"]["ranges"]:
    r["overlapped"] = True
json.dump(m, open(sys.argv[2], "w"))
PY
ngx_run 30 predict --params overlapped.json --export loggopsim
[[ $RC == 0 ]] || fail "--export loggopsim of an overlapped range: exit $RC"
grep -q -- '^-L 5000000 -o 750000 -g 2000000 -G 300 -O 200 -S 1024$' out ||
    fail "--export loggopsim, overlapped: expected -G 300 -O 200 (the larger slope), got: $(cat out)"
ok "--export loggopsim: an overlapped range keeps G, O the larger overhead slope"
# and predicts with the pipelined eq. (1): L + o_s + o_r + (s-1) max(O_s, O_r, G) = 5 + 1 + 0.5 + 99 * 0.0003
same "$(csv_time --params overlapped.json --op pingpong -s 100)" 6.5297 || fail "predict of an overlapped range: $(cat out)"
ok "predict pays an overlapped range's per-byte costs once"
# A negative per-byte sum (noise around a flat range) cannot go to LogGOPSim: 0, and the export says so.
python3 - lines.json shrinking.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for r in m["model"]["ranges"]:
    r.update(G_us_per_byte=0.00001, O_us_per_byte=0.00002, O_r_us_per_byte=-0.00008)
json.dump(m, open(sys.argv[2], "w"))
PY
ngx_run 30 predict --params shrinking.json --export loggopsim
[[ $RC == 0 ]] || fail "--export loggopsim of a shrinking range: exit $RC: $(cat err)"
grep -q -- '-G 0 -O 0 -S 1024$' out && grep -q 'below 0, the model.s round trip shrinks by' out ||
    fail "--export loggopsim: a negative per-byte sum should go out as -G 0 with a note, got: $(cat out)"
ok "--export loggopsim: a negative per-byte sum is exported as 0 and said"
# A negative overhead slope that is a large share of a tiny o (shm: a few ns) but
# small against the one-way time goes out as -O 0 with a note; a large one is refused.
python3 - lines.json flat.json steep.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for r in m["model"]["ranges"]:
    r.update(o_us=0.01, O_us_per_byte=-0.00001, o_r_us=0.01, O_r_us_per_byte=-0.00001)
json.dump(m, open(sys.argv[2], "w"))
for r in m["model"]["ranges"]:
    r.update(O_us_per_byte=-0.01, O_r_us_per_byte=-0.01)
json.dump(m, open(sys.argv[3], "w"))
PY
ngx_run 30 predict --params flat.json --export loggopsim
[[ $RC == 0 ]] || fail "--export loggopsim of a slightly negative O: exit $RC: $(cat err)"
grep -q -- '-O 0 -S 1024$' out && grep -q "lowers each overhead by .* of the model's one-way time at S" out ||
    fail "--export loggopsim: a slightly negative O should go out as -O 0 with a note, got: $(cat out)"
ngx_run 30 predict --params steep.json --export loggopsim
[[ $RC == 2 ]] && grep -q "O = -0.01 us is negative" err ||
    fail "--export loggopsim of a steeply negative O: exit $RC, expected 2 with the reason: $(cat out err)"
ok "--export loggopsim: a negative O within 5% of the one-way time goes out as 0 and is said; a steep one is refused"
# Small values only: femtoseconds, so a per-byte cost of 18 ps keeps its digits.
python3 - model.json small.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for r in m["model"]["ranges"]:
    r.update(L_us=0.1857, o_us=0.02, g_us=0.057, G_us_per_byte=1.78198e-05)
json.dump(m, open(sys.argv[2], "w"))
PY
ngx_run 30 predict --params small.json --export loggopsim
[[ $RC == 0 ]] || fail "--export loggopsim of a shared-memory-sized model: exit $RC"
grep -q 'in integer femtoseconds' out && grep -q -- '-L 185700000 .*-G 17820 ' out ||
    fail "--export loggopsim: expected femtoseconds (-L 185700000, -G 17820), got: $(cat out)"
ok "--export loggopsim: femtoseconds when every value fits, 18 ps/B kept as 17820 fs/B"
# pingpong with the lines: L + o_s(s) + o_r(s) + (s-1)G = 5 + (1 + 99*0.0002) + (0.5 + 99*0.0001) + 0.0297
predict_lines() {
    same "$(csv_time --params lines.json --op pingpong -s 100)" 6.5594 || fail "predict with overhead lines: $(cat out)"
    ok "predict uses the saved overhead lines"
}
predict_lines

sed 's/"L_us": 5,/"L_us": -0.5,/' model.json >negative.json
ngx_run 30 predict --params negative.json --export loggopsim
# 2o + L = 1.5 us: L out as 0, o as 0.75 us, the round trip 2 (2o + L + (s-1)G) unchanged.
[[ $RC == 0 ]] && grep -q -- '^-L 0 -o 750000 -g 2000000 -G 300 ' out && grep -q "fitted L = -0.5 us < 0" out ||
    fail "--export loggopsim of L = -0.5 us, o = 1 us: expected -L 0 -o 750000 and a note: exit $RC: $(cat out err)"
ok "--export loggopsim: a negative L goes out as 0 with o lowered by half of it, and is said"
# 2o + L = -1 us over 1..1024 B: o = L = 0, G lowered by 1/1023 us/B so that the
# round trip at S = 1 KiB is kept: 2 (1023 * 0.0003 - 1) < 0, nothing is left to lower.
sed 's/"L_us": 5,/"L_us": -3,/' model.json >below.json
ngx_run 30 predict --params below.json --export loggopsim
[[ $RC == 2 ]] && grep -q "L = -3 us is negative" err ||
    fail "--export loggopsim of 2o + L < 0 with no per-byte cost to carry it: exit $RC, expected 2: $(cat out err)"
# The same over 2 KiB..64 KiB (G 0.002 us/B): 2o + L = 6 - 8 = -2 us, G out as 0.002 - 2/65535.
sed 's/"L_us": 10,/"L_us": -8,/' model.json >below2.json
ngx_run 30 predict --params below2.json --export loggopsim
[[ $RC == 0 ]] && grep -q -- '-L 0 -o 0 -g 4000000 -G 1969 ' out && grep -q "grows by" out ||
    fail "--export loggopsim of 2o + L < 0 over 2..64 KiB: expected -L 0 -o 0 -G 1969 and a note: exit $RC: $(cat out err)"
ok "--export loggopsim: 2o + L < 0 goes out from 0 with the round trip at S kept, and what that costs below S is said"

# A range with a parameter below 0 is not LogGP (the fit keeps one only where
# no admissible model meets its goal): ngx predict still predicts with it and
# warns on stderr, naming the range and the parameter; the export says what it changed.
sed 's/"g_us": 4,/"g_us": -0.25,/' model.json >not-loggp.json
ngx_run 30 predict --params not-loggp.json --op pingpong -s 4096
[[ $RC == 0 ]] && grep -qE '^loggp +pingpong +4096 ' out || fail "predict with a range of g < 0: exit $RC: $(cat out err)"
grep -q "warning: range 2 KiB .. 64 KiB: not LogGP: g_us < 0" err ||
    fail "predict with a range of g < 0: no warning naming the range and g: $(cat err)"
ngx_run 30 predict --params model.json --op pingpong -s 4096
! grep -q "not LogGP" err || fail "predict warned of a model with no negative parameter: $(cat err)"
ngx_run 30 predict --params not-loggp.json --export loggopsim
[[ $RC == 0 ]] && grep -q -- '-L 10000000 -o 3000000 -g 0 ' out && grep -q "fitted g = -0.25 us < 0" out ||
    fail "--export loggopsim of g < 0: expected -g 0 and a note: exit $RC: $(cat out err)"
ok "a range of g < 0: predicted with a warning naming it, exported with g = 0 and a note"

sed 's/"kind": "loggp"/"kind": "loggps"/' model.json >kind.json
ngx_run 30 predict --params kind.json --op pingpong -s 100
[[ $RC == 2 ]] && grep -q 'not loggp' err || fail "a loggps model given to the loggp predictor: exit $RC: $(cat err)"
ok "ngx predict checks the model kind"
echo PASS
