#!/bin/bash
# formats.sh: the output formats end to end, on one sim run (ground truth:
# a 1-byte half round trip of o_s + L + o_r = 1 + 5 + 1 = 7 us):
#  - the .txt file holds the table printed on stdout;
#  - the CSV agrees with the JSON of the same run, column by column;
#  - --percentiles 90,99.9: p90_us and p99.9_us in the JSON and CSV, ordered
#    between the median and the maximum, and p90 and p99.9 columns in the table;
#  - --format table: the table on stdout and in a file without a known
#    extension, while r.json stays JSON (--format is for other files only);
#  - --timer tsc and --timer clock: the JSON names the source used, and both
#    measure the sim's 7 us.
# Every check runs; the test fails at the end, listing each that failed.
source "$(dirname "$0")/../lib/ngx-run.sh"
problems=()
expect() {  # MESSAGE COMMAND...: record MESSAGE when COMMAND fails
    local message=$1
    shift
    if "$@"; then echo "ok: $message"; else problems+=("$message"); echo "FAILED: $message"; fi
}

ngx_run 60 -m sim -x pingpong -s 1,64,4Ki -c 50 --warmup 5 --percentiles 90,99.9 -o r.json -o r.csv -o r.txt
[[ $RC == 0 ]] || fail "the sim run exited $RC"
cp out stdout.txt
cat stdout.txt
expect ".txt holds the table printed on stdout" cmp -s r.txt stdout.txt
expect "the CSV agrees with the JSON, column by column" python3 - r.json r.csv <<'PY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith("#")))
assert len(rows) == len(doc["results"]) == 3, (len(rows), len(doc["results"]))
for row, result in zip(rows, doc["results"]):
    for column, text in row.items():
        want = doc[column] if column in ("module", "pattern") else result.get(column)
        assert want is not None, f"CSV column {column} is not in the JSON"
        if isinstance(want, str):
            assert text == want, (column, text, want)
        else:
            assert abs(float(text) - want) <= 1e-8 * max(1, abs(want)), (result["size_bytes"], column, text, want)
print("CSV columns:", list(rows[0]))
PY
expect "--percentiles: p90_us, p99.9_us in the JSON and CSV, median <= p90 <= p99.9 <= max" python3 - r.json r.csv <<'PY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
header = next(l for l in open(sys.argv[2]) if not l.startswith("#")).strip().split(",")
assert "p90_us" in header and "p99.9_us" in header, header
for r in doc["results"]:
    assert r["median_us"] <= r["p90_us"] <= r["p99.9_us"] <= r["max_us"], r
PY
expect "--percentiles: p90 and p99.9 columns in the table, with the JSON's values" python3 - r.json stdout.txt <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
lines = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
header, rows = lines[0], lines[1:]
assert "p90" in header and "p99.9" in header, f"table header {header}"
for row, r in zip(rows, doc["results"]):
    assert len(row) == len(header) and int(row[0]) == r["size_bytes"], (header, row)  # a name over every field
    cells = dict(zip(header, row))
    for name in ("p90", "p99.9"):
        assert abs(float(cells[name]) - r[name + "_us"]) <= 0.006, (name, cells[name], r[name + "_us"])
PY
expect "the table's count, min and median are the JSON's" python3 - r.json stdout.txt <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
lines = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
header, rows = lines[0], lines[1:]
assert len(rows) == len(doc["results"]), rows
for row, r in zip(rows, doc["results"]):
    assert len(row) == len(header) and int(row[0]) == r["size_bytes"], (header, row)  # a name over every field
    cells = dict(zip(header, row))
    assert int(cells["count"]) == r["count"], cells
    for name in ("min", "median"):
        assert abs(float(cells[name]) - r[name + "_us"]) <= 0.006, (name, cells[name], r[name + "_us"])
PY

ngx_run 60 -m sim -x pingpong -s 1,64 -c 30 --warmup 5 --format table -o t.data -o t.json
[[ $RC == 0 ]] || fail "--format table run exited $RC"
expect "--format table: a table on stdout" grep -Eq '^ +bytes +size +count +min +median' out
expect "--format table: -o t.data (no known extension) holds the stdout table" cmp -s t.data out
expect "--format table: -o t.json stays JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' t.json

for timer in tsc clock; do
    if [[ $timer == tsc ]] && ! grep -qw constant_tsc /proc/cpuinfo; then
        echo "note: no constant_tsc, --timer tsc not checked"
        continue
    fi
    ngx_run 60 -m sim -x pingpong -s 1 -c 200 --warmup 20 --timer "$timer" -o "timer-$timer.json"
    [[ $RC == 0 ]] || fail "--timer $timer exited $RC"
    expect "--timer $timer: the JSON names the source, the sim's 7 us is measured" \
        python3 - "timer-$timer.json" "$timer" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
source = {"tsc": "tsc", "clock": "clock_gettime"}[sys.argv[2]]
assert doc["timer"]["source"] == source, doc["timer"]
median = doc["results"][0]["median_us"]
assert 6.9 <= median <= 8.0, f"median {median} us, the sim's truth is 7 us"
print(sys.argv[2], "median", median)
PY
done

((${#problems[@]} == 0)) || fail "$(printf '%s; ' "${problems[@]}")"
echo PASS
