#!/bin/bash
# `ngx compare` (no MPI needed, so it always runs):
#  1. two hand-made saved loggp files with known medians and LogGP ranges:
#     the table and --json show every median, the difference and ratio to
#     the baseline (the first file), the parameter differences per range and
#     each run's yes/no properties of a range (loggp's `overlapped`);
#  2. a real two-module run in one file (-m tcp,shm -o runs.json) counts as
#     two runs: the ratios are those of the medians saved in that file;
#  3. three files: each later file is compared with the first.
source "$(dirname "$0")/../lib/ngx-run.sh"
mk() {  # FILE MODULE SCALE: medians SCALE*(1 + s/1000) at 1 B and 1 KiB; L = SCALE, o = SCALE/2
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
path, module, scale = sys.argv[1], sys.argv[2], float(sys.argv[3])
json.dump({"schema_version": 1, "module": module, "pattern": "loggp", "metric": "m",
           "results": [{"size_bytes": s, "median_us": scale * (1 + s / 1000)} for s in (1, 1024)],
           "model": {"ranges": [{"from_bytes": 1, "to_bytes": 1024, "L_us": scale, "o_us": 0.5 * scale,
                                 "g_us": 0.2, "G_us_per_byte": 0.001, "overlapped": module == "udp"}]}},
          open(path, "w"))
PY
}
mk a.json tcp 2
mk b.json udp 3
mk c.json shm 1

# --- 1. the table and the JSON of two hand-made files -----------------------
ngx_run 30 compare a.json b.json
[[ $RC == 0 ]] || fail "ngx compare a.json b.json: exit $RC"
cat out
grep -Eq '^ +1 +1B +2\.002 +3\.003 +1\.001 +1\.500$' out || fail "table row of 1 B (2.002, 3.003, diff 1.001, ratio 1.5)"
grep -Eq '^ +1024 +1KiB +4\.048 +6\.072 +2\.024 +1\.500$' out || fail "table row of 1 KiB (4.048, 6.072, diff 2.024, ratio 1.5)"
grep -Eq '^ +L_us +a 2 +b 3 \(1\)$' out || fail "L_us difference (2 -> 3)"
grep -Eq '^ +o_us +a 1 +b 1\.5 \(0\.5\)$' out || fail "o_us difference (1 -> 1.5)"
grep -Eq '^ +overlapped +a no +b yes$' out || fail "the form of eq. (1) per run (a additive, b overlapped)"
ngx_run 30 compare --json a.json b.json
[[ $RC == 0 ]] || fail "ngx compare --json: exit $RC"
python3 - out <<'PY' || fail "compare --json: wrong numbers"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["labels"] == ["a", "b"] and c["baseline"] == "a", c["labels"]
assert [s["size_bytes"] for s in c["sizes"]] == [1, 1024], c["sizes"]
for s in c["sizes"]:
    a, b = s["values"]
    want_a, want_b = 2 * (1 + s["size_bytes"] / 1000), 3 * (1 + s["size_bytes"] / 1000)
    assert abs(a["median_us"] - want_a) < 1e-9 and abs(b["median_us"] - want_b) < 1e-9, s
    assert abs(b["diff_us"] - (want_b - want_a)) < 1e-9 and abs(b["ratio"] - 1.5) < 1e-9, s
p = c["model"][0]["parameters"]
assert c["model"][0]["from_bytes"] == 1 and c["model"][0]["to_bytes"] == 1024
for name, va, vb in (("L_us", 2, 3), ("o_us", 1, 1.5), ("g_us", 0.2, 0.2), ("G_us_per_byte", 0.001, 0.001)):
    assert abs(p[name][0]["value"] - va) < 1e-12 and abs(p[name][1]["value"] - vb) < 1e-12, (name, p[name])
    assert abs(p[name][1]["diff"] - (vb - va)) < 1e-12, (name, p[name])
f = c["model"][0]["flags"]["overlapped"]
assert [v["value"] for v in f] == [False, True], f
print("compare --json: medians, diffs, ratios, parameter diffs and flags as built")
PY
ok "two hand-made files"

# --- 2. one file with two runs ----------------------------------------------
ngx_run 60 -m tcp,shm -x pingpong -s 1,4Ki -c 200 --warmup 10 -o runs.json
[[ $RC == 0 ]] || fail "ngx -m tcp,shm: exit $RC"
ngx_run 30 compare --json runs.json
[[ $RC == 0 ]] || fail "ngx compare --json runs.json (two runs in one file): exit $RC"
python3 - runs.json out <<'PY' || fail "compare of a two-run file: wrong numbers"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
c = json.load(open(sys.argv[2]))
assert len(c["labels"]) == 2, c["labels"]
medians = [{r["size_bytes"]: r["median_us"] for r in run["results"]} for run in runs]
for s in c["sizes"]:
    size = s["size_bytes"]
    a, b = s["values"]
    assert a["median_us"] == medians[0][size] and b["median_us"] == medians[1][size], (size, s, medians)
    assert abs(b["ratio"] - medians[1][size] / medians[0][size]) < 1e-9, s
    assert abs(b["diff_us"] - (medians[1][size] - medians[0][size])) < 1e-9, s
assert sorted(s["size_bytes"] for s in c["sizes"]) == [1, 4096], c["sizes"]
print("labels", c["labels"], "ratios", [s["values"][1]["ratio"] for s in c["sizes"]])
PY
ok "a file with two runs counts as two"

# --- 3. three files: each against the first -------------------------------
ngx_run 30 compare --json a.json b.json c.json
[[ $RC == 0 ]] || fail "ngx compare of three files: exit $RC"
python3 - out <<'PY' || fail "compare of three files: wrong ratios"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["labels"] == ["a", "b", "c"], c["labels"]
for s in c["sizes"]:
    assert [round(v.get("ratio", 1), 9) for v in s["values"]] == [1, 1.5, 0.5], s
PY
ok "three files against the first"
echo PASS
