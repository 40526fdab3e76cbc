#!/usr/bin/env bash
# Suite 'plot': `ngx plot` draws each family (pingpong with a ratio
# panel, loggp, loggps, overhead) from runs made here with the sim module;
# each figure is a valid PNG of the expected size, and its SVG holds the
# expected series (the script names each series with a gid, which SVG keeps
# as an element id). Also --plot after a run, and the errors: no matplotlib,
# no python3, bad input.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
NGX=${NGX:?NGX must name the ngx binary}
make_scratch
dir=$SCRATCH
cd "$dir" || fail "cd $dir"
sim=(-m sim --sim-S 4096 -c 20 --warmup 2)

# Small runs of every family, from the sim module (deterministic enough).
"$NGX" -m sim --sim-L 5,20 -x pingpong -s 1-16Ki -c 50 --percentiles 25,75 -o pingpong.json >/dev/null ||
    fail "pingpong run"
"$NGX" "${sim[@]}" -x loggp -s 1-32Ki -o loggp.json >/dev/null || fail "loggp run"
"$NGX" "${sim[@]}" -x loggps -s 1-32Ki -o loggps.json >/dev/null || fail "loggps run"
"$NGX" "${sim[@]}" -x overhead -s 1-32Ki -o overhead.json >/dev/null || fail "overhead run"

# check_png FILE WIDTH HEIGHT
check_png() {
    python3 - "$@" <<'PY' || fail "$1 is not a ${2}x$3 PNG"
import struct, sys
data = open(sys.argv[1], "rb").read(32)
assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
assert data[12:16] == b"IHDR", "no IHDR chunk"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (int(sys.argv[2]), int(sys.argv[3])), (w, h)
PY
}

# check_svg FILE PREFIX=COUNT...: the SVG holds COUNT elements whose id starts with PREFIX.
check_svg() {
    python3 - "$@" <<'PY' || fail "$1 lacks the expected series"
import sys, xml.etree.ElementTree as ET
ids = [e.get("id") for e in ET.parse(sys.argv[1]).iter() if e.get("id")]
for want in sys.argv[2:]:
    prefix, count = want.rsplit("=", 1)
    got = [i for i in ids if i.startswith(prefix)]
    assert len(got) == int(count), f"{prefix}: {len(got)} series, expected {count}: {got}"
title = [t.text for t in ET.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}text")]
PY
}

for family in pingpong loggp loggps overhead; do
    "$NGX" plot "$family.json" -o "$family.png" >/dev/null || fail "ngx plot $family.json -o $family.png"
    check_png "$family.png" 1000 750
    "$NGX" plot "$family.json" -o "$family.svg" >/dev/null || fail "ngx plot $family.json -o $family.svg"
done
"$NGX" plot loggp.json -o small.png --dpi 50 >/dev/null || fail "--dpi 50"
check_png small.png 500 375
"$NGX" plot overhead.json -o overhead.pdf >/dev/null || fail "ngx plot -o overhead.pdf"
[ "$(head -c 5 overhead.pdf)" = "%PDF-" ] || fail "overhead.pdf is not a PDF"

# Two sim runs (L = 5 and 20): two medians, two bands, one ratio against the first.
check_svg pingpong.svg "median:=2" "band:=2" "ratio:=1"
# loggp: y(s) with one fitted line per range, o_s/o_r with fits, model over PRTT, error per size.
ranges=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["model"]["ranges"]))' loggp.json)
[ "$ranges" -ge 1 ] || fail "the loggp run fitted no range"
check_svg loggp.svg "gap:sim=1" "fit:sim:=$ranges" "o_s:sim=1" "o_r:sim=1" "o_s_fit:sim:=$ranges" \
    "prtt:sim=1" "model:sim:=$ranges" "error:sim=1" "range:=$((4 * ranges))"
check_svg loggps.svg "rtt0:sim=1" "rttw:sim=1" "fit:sim=1" "fitw:sim=1"
check_svg overhead.svg "o_s:sim=1" "o_r:sim=1"
grep -q "sim: loggp" loggp.svg || grep -q "sim" loggp.svg || fail "loggp.svg: no title naming the module"

# Two files at once: the runs of both, labelled apart.
cp loggps.json other.json
"$NGX" plot loggps.json other.json -o both.svg >/dev/null || fail "ngx plot of two files"
check_svg both.svg "rtt0:=2"

# nodecomm: a run of the pattern's model shape (model.nodecomm: {pairs, sizes,
# T_us[k][n]}, ranges[].models.maxrate3), T = 5 + k n / min(R_N, k R_C) with
# R_C 400 and R_N 1000 bytes/us (k* = 2.5), measured 3% above the model at
# k = 4.
python3 - <<'PY' || fail "writing nodecomm.json"
import json
pairs, sizes = [1, 2, 3, 4], [1, 1024, 65536, 1048576]
model = lambda k, n: 5 + k * n / min(1000.0, 400.0 * k)
T = [[model(k, n) * (1.03 if k == 4 else 1) for n in sizes] for k in pairs]
p = lambda v: {"value": v, "ci95": [v, v]}
maxrate3 = {"alpha_us": p(5.0), "R_C_Bps": p(400e6), "R_N_Bps": p(1000e6), "k_star": 2.5}
run = {"schema_version": 1, "host": "synthetic", "started_at": "2026-11-23T00:00:00Z", "module": "sim",
       "pattern": "nodecomm", "status": "complete", "options": {}, "results": [],
       "model": {"kind": "nodecomm", "nodecomm": {"pairs": pairs, "sizes": sizes, "T_us": T},
                 "ranges": [{"from_bytes": 0, "to_bytes": None, "k_star": 2.5, "models": {"maxrate3": maxrate3}}]}}
run["model"]["nodecomm"]["T_mean_us"] = T
json.dump(run, open("measured.json", "w"))
PY
# The model (and its saved T(k, n) per model, which the figure draws) comes from `ngx fit`.
"$NGX" fit measured.json -o nodecomm.json >/dev/null || fail "ngx fit of the nodecomm table"
"$NGX" plot nodecomm.json -o nodecomm.png >/dev/null || fail "ngx plot nodecomm.json"
check_png nodecomm.png 1000 750
"$NGX" plot nodecomm.json -o nodecomm.svg >/dev/null || fail "ngx plot nodecomm.json -o nodecomm.svg"
check_svg nodecomm.svg "heat:sim=1" "heat-model:sim=1" "heat-error:sim=1" "T:sim:=4" "T-model:sim:=4" "k-star:=1"

# strided: a real run over sim with a per-element cost (model.strided.points
# and log3P's T_0,1 in the rows).
"$NGX" -m sim -x strided -s 1Ki,16Ki,64Ki --strides 1,16,64 --sim-strided 0.01 -c 50 -o strided.json \
    >/dev/null || fail "the strided run over sim"
"$NGX" plot strided.json -o strided.png >/dev/null || fail "ngx plot strided.json"
check_png strided.png 1000 750
"$NGX" plot strided.json -o strided.svg >/dev/null || fail "ngx plot strided.json -o strided.svg"
check_svg strided.svg "heat:sim=1" "heat-error:sim=1" "t01:sim:=3" "log3p:sim:=3" "by-stride:sim:=3"

# The figures draw exactly the predictions the runs saved (no model formula in the plot script).
"${NGX_PLOT_PYTHON:-python3}" "$(dirname "$0")/agree.py" "${NGX_BUILD_ROOT:?}/tools/plot/ngx_plot.py" \
    loggp.json loggps.json nodecomm.json strided.json || fail "a figure draws a model value its JSON does not hold"
# ... and the saved predictions are the model's: ngx predict gives the same PRTT(1,0,s) from the saved parameters.
python3 - loggp.json "$NGX" <<'PY' || fail "the saved PRTT predictions differ from ngx predict's"
import json, math, subprocess, sys
run = json.load(open(sys.argv[1]))
for row in run["model"]["per_size"][::4]:
    size = int(row["size_bytes"])
    out = subprocess.run([sys.argv[2], "predict", "--params", sys.argv[1], "--op", "prtt", "-n", "1", "-s", str(size),
                          "--format", "json"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    said = [p["time_us"] for p in json.loads(out.stdout)["predictions"]]
    assert said and math.isclose(float(said[0]), row["predicted_prtt_us"], rel_tol=1e-4), (size, row, out.stdout)
PY

# --plot: the run's figure beside its -o FILE.json.
"$NGX" -m sim -x pingpong -s 1-64 -c 10 -o run.json --plot >/dev/null || fail "a run with --plot"
check_png run.png 1000 750
"$NGX" -m sim -x pingpong -s 1-64 -c 10 --plot >/dev/null 2>err; code=$?
[ $code -eq 2 ] && grep -q -- "-o FILE.json" err || fail "--plot without -o FILE.json: exit $code, $(cat err)"

# A directory: the history of its results (as ngx check DIR orders them), one
# series per size; recorded times that disagree with the file names.
mkdir nightly
for i in 1 2 3; do
    "$NGX" -m sim -x pingpong -s 1,64,1Ki -c 50 -o nightly/$i.json >/dev/null || fail "history run $i"
done
python3 - nightly <<'PY' || fail "could not set the recorded times"
import json, sys
for name, time in (("1", "2026-11-03T00:00:00Z"), ("2", "2026-11-01T00:00:00Z"), ("3", "2026-11-02T00:00:00Z")):
    path = f"{sys.argv[1]}/{name}.json"
    d = json.load(open(path))
    d["started_at"] = time
    json.dump(d, open(path, "w"))
PY
"$NGX" plot nightly -o history.svg >/dev/null 2>err || fail "ngx plot DIR: $(cat err)"
check_svg history.svg trend:1B=1 trend:64B=1 trend:1024B=1
"$NGX" plot nightly >/dev/null 2>err || fail "ngx plot DIR without -o: $(cat err)"
check_png nightly.png 1000 750
echo '{"schema_version": 1, "module": "sim", "pattern": "pingpong", "results": []}' >nightly/4.json
expect_history() { "$NGX" plot nightly -o bad.png >out 2>err; [ $? -eq 2 ] && grep -q -- "$1" err || fail "plot DIR: $(cat err)"; }
expect_history 'no recorded time'
rm nightly/4.json

# Errors: each names what is wrong.
expect() { # expect CODE PATTERN COMMAND...
    local code=$1 pattern=$2
    shift 2
    "$@" >out 2>err
    local got=$?
    [ $got -eq "$code" ] && grep -q -- "$pattern" err || fail "$*: exit $got (expected $code), stderr: $(cat err)"
}
echo '{"x": 1}' >bad.json
expect 2 'missing field "module"' "$NGX" plot bad.json -o bad.png
echo 'not json' >bad.json
expect 2 "not a JSON file" "$NGX" plot bad.json -o bad.png
expect 2 "missing.json: cannot be read" "$NGX" plot missing.json -o bad.png
expect 2 "unknown figure type" "$NGX" plot loggp.json -o bad.gif
expect 2 "different patterns" "$NGX" plot loggp.json overhead.json -o bad.png
mkdir -p fake/matplotlib
echo 'raise ImportError("no matplotlib here")' >fake/matplotlib/__init__.py
PYTHONPATH=$dir/fake expect 1 "matplotlib is missing" "$NGX" plot loggp.json -o bad.png
grep -q "apt-get install python3-matplotlib.*pip install --user matplotlib" err || fail "no way to get matplotlib named: $(cat err)"
NGX_PYTHON=/nonexistent/python3 expect 1 "python3 is missing" "$NGX" plot loggp.json -o bad.png
grep -q "pip install --user matplotlib" err || fail "no way to get python3 named: $(cat err)"
[ ! -e bad.png ] || fail "a failed plot left bad.png"
echo "plot: 5 families and a history drawn and checked"
