#!/bin/bash
# `ngx check` (regression checks for CI, and a history over a directory), on
# synthetic result files of known truth (synthetic_results.py: seeded, so
# every count below is the same on every run) and on real sim runs:
#  1. rates (at --tolerance 5%): 50 null pairs and 50 pairs with a 10% latency shift, with raw
#     samples (rank-sum) and without (intervals of the medians): at most
#     10% false positives, at least 90% detected;
#  2. the table, the exit codes and --format junit of one shifted pair;
#  3. bad input exits 2 naming what differs;
#  4. a directory as a history, ordered by the recorded time;
#  5. real runs: -m sim --sim-L 5 against --sim-L 5.5 is flagged (exit 1).
source "$(dirname "$0")/../lib/ngx-run.sh"
synth() { python3 "$IT_SCRIPT_DIR/synthetic_results.py" "$@" || fail "synthetic_results.py $*"; }

# --- 1. false-positive and detection rates ----------------------------------
mkdir rates
synth rates "$NGX" rates >rates.txt
cat rates.txt
python3 - rates.txt <<'PY' || fail "rates of ngx check outside its bounds (<= 10% false positives, >= 90% detected)"
import re, sys
for line in open(sys.argv[1]):
    kind, fp, det = re.match(r"(\w+): false positives (\d+)/50, detected (\d+)/50", line).groups()
    assert int(fp) <= 5, f"{kind}: {fp} of 50 null pairs flagged (> 10%)"
    assert int(det) >= 45, f"{kind}: only {det} of 50 shifted pairs flagged (< 90%)"
PY
ok "false positives <= 10%, detections >= 90%, raw and intervals"

# --- 2. one pair: table, exit codes, junit ----------------------------------
synth write base.json 11
synth write same.json 12
synth write slow.json 13 --shift 0.10
synth write fast.json 14 --shift -0.10
ngx_run 30 check --tolerance 5% base.json slow.json
[[ $RC == 1 ]] || fail "a 10% slower run at --tolerance 5%: exit $RC, want 1"
grep -Eq '^ +1 KiB +[0-9.]+ +[0-9.]+ +\+[0-9.]+% +[0-9.e-]+ +regression$' out || fail "the 1 KiB row: $(cat out)"
grep -q '^REGRESSION: 11 regressions, 0 improvements, 0 within tolerance, 0 unchanged (of 11)$' out ||
    fail "summary line: $(tail -1 out)"
ngx_run 30 check base.json same.json
[[ $RC == 0 ]] || fail "a null pair: exit $RC, want 0: $(cat out)"
grep -q '^ok: 0 regressions' out || fail "null pair summary: $(tail -1 out)"
ngx_run 30 check --tolerance 5% base.json fast.json
[[ $RC == 0 ]] || fail "a faster run is no regression: exit $RC"
grep -q '0 regressions, 11 improvements' out || fail "11 improvements expected: $(tail -1 out)"
# by default a single launch against a single launch needs 15% (launch-to-launch spread)
ngx_run 30 check base.json slow.json
[[ $RC == 0 ]] && grep -q '11 within tolerance' out && grep -q 'beyond 15%$' out ||
    fail "a 10% shift is within the default 15% against one launch: exit $RC: $(cat out)"
ngx_run 30 check --tolerance 20% base.json slow.json
[[ $RC == 0 ]] || fail "--tolerance 20% absorbs a 10% shift: exit $RC"
grep -q '11 within tolerance' out || fail "--tolerance 20%: $(tail -1 out)"
ngx_run 30 check --tolerance 5% --format junit base.json slow.json
[[ $RC == 1 ]] || fail "--format junit of a regression: exit $RC"
python3 - out <<'PY' || fail "--format junit"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall("./testsuite/testcase")
assert root.tag == "testsuites" and len(cases) == 11, (root.tag, len(cases))
failed = [c.get("name") for c in cases if c.find("failure") is not None]
assert len(failed) == 11 and root.get("failures") == "11", failed
assert cases[0].get("name") == "1 B" and cases[0].get("classname") == "ngx.check.sim pingpong", cases[0].attrib
assert "regression: +" in cases[0].find("failure").get("message")
print("junit: 11 testcases, 11 failures")
PY
ngx_run 30 check --format junit base.json same.json
[[ $RC == 0 ]] && grep -q 'failures="0"' out || fail "junit of a null pair: exit $RC"
ok "table, exit codes 0/1, --tolerance and --format junit"

# --- 3. bad input: exit 2, naming what differs ------------------------------
# usage_says TEXT ARG...: ngx ARG... exits 2 and says TEXT on stderr
usage_says() { expect_ngx_usage "ngx ${*:2}" "$@"; }
synth write loggp.json 21 --pattern loggp
synth write tcp.json 22 --module tcp
synth write summary.json 11 --no-raw  # base.json without its raw samples
python3 - <<'PY' || fail "could not write the broken files"
import json
d = json.load(open("summary.json"))
for r in d["results"]:
    del r["median_ci95_lo_us"]
json.dump(d, open("nothing.json", "w"))
d = json.load(open("base.json"))
d["results"] = d["results"][:-1]
json.dump(d, open("fewer.json", "w"))
PY
usage_says "different pattern: base.json has pingpong, loggp.json has loggp" check base.json loggp.json
usage_says "different module: base.json has sim, tcp.json has tcp" check base.json tcp.json
usage_says "missing samples: 1 B of nothing.json has neither raw samples" check base.json nothing.json
usage_says "different sizes: 1 KiB only in base.json" check base.json fewer.json
usage_says "expected BASELINE.json NEW.json, or one directory" check base.json
usage_says "missing.json: cannot be read" check base.json missing.json
usage_says "tolerance" check --tolerance fast base.json slow.json
usage_says "format" check --format xml base.json slow.json
# several runs in one file: paired in order; a different set of runs is bad input
python3 - <<'PY' || fail "could not write the multi-run files"
import json
base, tcp = json.load(open("base.json")), json.load(open("tcp.json"))
context = {k: base[k] for k in ("schema_version", "ngx_version", "host", "cpu", "timer", "started_at")}
run_keys = ("module", "pattern", "metric", "status", "options", "results")
json.dump(dict(context, runs=[{k: d[k] for k in run_keys} for d in (base, tcp)]), open("multi.json", "w"))
PY
ngx_run 30 check multi.json multi.json
[[ $RC == 0 ]] && grep -q '^sim pingpong' out && grep -q '^tcp pingpong' out && grep -q 'unchanged (of 22)' out ||
    fail "a two-run file against itself: exit $RC: $(cat out)"
usage_says "different runs: multi.json holds sim pingpong, tcp pingpong; base.json holds sim pingpong" \
    check multi.json base.json
# one side summary-only: the intervals of the medians serve
ngx_run 30 check base.json summary.json
[[ $RC == 0 ]] && grep -q "z tests on the medians" out || fail "raw against summary-only: exit $RC: $(cat out)"
ok "bad input exits 2 and names it"

# --- fitted parameters with 95% intervals, per protocol range ---------------
python3 - <<'PY' || fail "could not write the fitted files"
import json
def fitted(source, target, L, o, to=1024):
    d = json.load(open(source))
    d["model"] = {"kind": "loggp", "ranges": [{"from_bytes": 1, "to_bytes": to, "intervals": {
        "L_us": {"value": L, "ci95": [L - 0.1, L + 0.1]},
        "o_us": {"value": o, "ci95": [o - 0.1, o + 0.1]},
        "g_us": {"value": 2.0, "ci95": [None, None]}}}]}
    json.dump(d, open(target, "w"))
fitted("base.json", "fit-a.json", 5.0, -0.5)
fitted("same.json", "fit-b.json", 5.5, -0.8)
fitted("same.json", "fit-c.json", 5.5, -0.8, to=2048)
PY
ngx_run 30 check --tolerance 5% fit-a.json fit-b.json
[[ $RC == 1 ]] || fail "L 5 -> 5.5 us (intervals 0.2 wide) not flagged: exit $RC: $(cat out)"
grep -Eq '^ +L_us \[1 B\.\.1 KiB\] +5 +5\.5 +\+10\.0% +[0-9.e-]+ +regression$' out || fail "the L_us row: $(cat out)"
# o from -0.5 to -0.8: 60% lower, relative to |-0.5|: an improvement; g has no interval: not tested
grep -Eq '^ +o_us \[1 B\.\.1 KiB\] +-0\.5 +-0\.8 +-60\.0% +[0-9.e-]+ +improvement$' out || fail "the o_us row: $(cat out)"
grep -q 'g_us' out && fail "g_us has no interval and must not be tested: $(cat out)"
grep -q '(of 13)$' out || fail "11 sizes and 2 parameters: $(tail -1 out)"
ngx_run 30 check fit-a.json fit-c.json
grep -q '^note: sim pingpong: the fitted protocol ranges differ: parameters not compared$' out ||
    fail "ranges that differ: $(cat out)"
ok "fitted parameters tested per range, zero and negative baselines handled"

# --- environment: what differs between the two settings is noted ------------
python3 - <<'PY' || fail "could not write other-kernel.json"
import json
d = json.load(open("same.json"))
d["kernel"], d["warnings"] = "Linux 9.9", ["load average 3 before the run: other processes compete for the CPUs"]
d["status"] = "interrupted"
json.dump(d, open("other-kernel.json", "w"))
PY
ngx_run 30 check base.json other-kernel.json
[[ $RC == 0 ]] || fail "a different kernel alone is no regression: exit $RC"
grep -q '^note: different kernel: base.json null, other-kernel.json "Linux 9.9"$' out || fail "kernel note: $(cat out)"
grep -q '^note: other-kernel.json was measured with a warning: load average 3 before the run' out ||
    fail "the recorded warning is not shown: $(cat out)"
grep -q '^note: other-kernel.json did not complete (status interrupted)$' out || fail "status note: $(cat out)"
ngx_run 30 check --format junit base.json other-kernel.json
python3 - out <<'PY' || fail "junit: the notes are not in the suite's system-out"
import sys, xml.etree.ElementTree as ET
text = ET.parse(sys.argv[1]).getroot().find("./testsuite/system-out").text
assert 'note: different kernel: base.json null, other-kernel.json "Linux 9.9"' in text, text
PY
ok "differences of environment and recorded warnings are noted"

# --- 4. history --------------------------------------------------------------
# Recorded times disagree with the file names: the order must follow the times.
mkdir history
synth write history/d.json 31 --started-at 2026-11-20T01:00:00Z
synth write history/c.json 32 --started-at 2026-11-21T01:00:00Z
synth write history/b.json 33 --started-at 2026-11-22T01:00:00Z --shift 0.10
synth write history/a.json 34 --started-at 2026-11-23T01:00:00Z --shift 0.10
ngx_run 30 check --tolerance 5% history
[[ $RC == 0 ]] || fail "history whose newest step is stable: exit $RC, want 0: $(cat out)"
cat out
grep -Eq '^ +#1 +2026-11-20T01:00:00Z +history/d.json$' out || fail "#1 must be the oldest (d.json)"
grep -Eq '^ +#4 +2026-11-23T01:00:00Z +history/a.json$' out || fail "#4 must be the newest (a.json)"
# 1 KiB: no mark at #2, a regression mark at #3, none at #4; +10% overall
grep -Eq '^ +1 KiB +[0-9.]+ +[0-9.]+ +[0-9.]+\+ +[0-9.]+ +\+([5-9]|1[0-5])\.[0-9]%$' out || fail "the 1 KiB trend row"
synth write history/e.json 35 --started-at 2026-11-24T01:00:00Z --shift 0.25
ngx_run 30 check --tolerance 5% history
[[ $RC == 1 ]] || fail "history whose newest step regressed: exit $RC, want 1"
ngx_run 30 check --tolerance 5% --format junit history
[[ $RC == 1 ]] && grep -q '<testsuite name="history/a.json -&gt; history/e.json" tests="11" failures="11">' out ||
    fail "junit of a history is its newest step: exit $RC: $(head -3 out)"
synth write history/f.json 36 --started-at 2026-11-25T01:00:00Z --pattern loggp
usage_says "different pattern" check history
rm history/f.json
echo '{"schema_version": 1, "module": "sim", "pattern": "pingpong", "results": []}' >history/g.json
usage_says "history/g.json: no recorded time" check history
ok "a directory as a history, ordered by the recorded time"

# --- 5. real sim runs --------------------------------------------------------
real() { ngx_run 120 -m sim -x pingpong --sim-L "$1" -s 1-1Ki -c 200 --raw -o "$2"; [[ $RC == 0 ]] || fail "ngx --sim-L $1"; }
real 5 sim-a.json
real 5.5 sim-b.json
ngx_run 30 check --tolerance 5% sim-a.json sim-b.json
cat out
[[ $RC == 1 ]] || fail "sim L 5 -> 5.5 us not flagged: exit $RC"
ok "a real 10% shift of L is flagged"
# Two launches of the same simulated network are not flagged (the sim's
# latency comes from a busy-wait on the timer: launch-to-launch changes of
# its medians stay far below the default 15% even on a loaded machine).
real 5 sim-c.json
ngx_run 30 check sim-a.json sim-c.json
[[ $RC == 0 ]] || fail "two runs of the same sim flagged: exit $RC: $(cat out)"
ok "two launches of the same sim are not flagged"
