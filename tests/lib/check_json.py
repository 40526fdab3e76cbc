#!/usr/bin/env python3
"""check_json.py FILE MODULE SIZES COUNT [--status S] [--monotone] [--raw]
           [--bootstrap KIND] [--cpus A,B] [--min-results N]

Checks an ngx JSON result file: the fields every result carries (versions,
host, CPU, timer, module, pattern, options, status) and per size the count,
min, median, mean, stddev and p99, then the published schema. SIZES is
'pow2:LO-HI' (every power of two from LO to HI bytes), a comma list, or '-'
(any, with --min-results). Prints one line per failed check and exits 1 on
any failure."""
import argparse
import json
import math
import os
import subprocess
import sys

REQUIRED_TOP = ["schema_version", "ngx_version", "host", "cpu", "timer", "module",
                "pattern", "options", "results", "status"]
REQUIRED_RESULT = ["size_bytes", "count", "min_us", "median_us", "mean_us", "stddev_us", "p99_us"]

ap = argparse.ArgumentParser()
ap.add_argument("file")
ap.add_argument("module")
ap.add_argument("sizes")
ap.add_argument("count", type=int)
ap.add_argument("--status", default="complete")
ap.add_argument("--pattern", default="pingpong")
ap.add_argument("--monotone", action="store_true")
ap.add_argument("--raw", action="store_true")
ap.add_argument("--bootstrap")
ap.add_argument("--cpus")
ap.add_argument("--min-results", type=int, default=1)
a = ap.parse_args()

errors = []
def err(msg):
    errors.append(msg)

try:
    with open(a.file) as f:
        doc = json.load(f)
except Exception as e:  # noqa: BLE001
    print(f"{a.file}: not valid JSON: {e}")
    sys.exit(1)

for key in REQUIRED_TOP:
    if key not in doc:
        err(f"missing top-level key '{key}'")
timer = doc.get("timer", {})
for key in ("resolution_ns", "overhead_ns"):
    v = timer.get(key) if isinstance(timer, dict) else None
    if not isinstance(v, (int, float)) or not v > 0:
        err(f"timer.{key} should be a positive number, got {v!r}")
if doc.get("module") != a.module:
    err(f"module is {doc.get('module')!r}, expected {a.module!r}")
if doc.get("pattern") != a.pattern:
    err(f"pattern is {doc.get('pattern')!r}, expected {a.pattern!r}")
if doc.get("status") != a.status:
    err(f"status is {doc.get('status')!r}, expected {a.status!r}")
for key in ("ngx_version", "host", "cpu"):
    if not isinstance(doc.get(key), str) or not doc.get(key):
        err(f"{key} should be a non-empty string, got {doc.get(key)!r}")
if a.bootstrap is not None:
    kind = (doc.get("bootstrap") or {}).get("kind")
    if kind != a.bootstrap:
        err(f"bootstrap.kind is {kind!r}, expected {a.bootstrap!r}")
if a.cpus is not None:
    want = [int(c) for c in a.cpus.split(",")]
    got = {p.get("rank"): p.get("requested_cpu") for p in doc.get("placement", [])}
    for rank, cpu in enumerate(want):
        if got.get(rank) != cpu:
            err(f"placement rank {rank}: requested_cpu {got.get(rank)!r}, expected {cpu}")

results = doc.get("results", [])
if not isinstance(results, list):
    err("results is not a list")
    results = []
if a.sizes.startswith("pow2:"):
    lo, hi = (int(x) for x in a.sizes[5:].split("-"))
    want_sizes = []
    s = lo
    while s <= hi:
        want_sizes.append(s)
        s *= 2
elif a.sizes == "-":
    want_sizes = None
else:
    want_sizes = [int(x) for x in a.sizes.split(",")]
got_sizes = [r.get("size_bytes") for r in results]
if want_sizes is not None and got_sizes != want_sizes:
    err(f"sizes {got_sizes} != expected {want_sizes}")
if len(results) < a.min_results:
    err(f"{len(results)} results, expected at least {a.min_results}")
if want_sizes is None and got_sizes != sorted(got_sizes):
    err(f"sizes not in increasing order: {got_sizes}")

for r in results:
    s = r.get("size_bytes")
    missing = [k for k in REQUIRED_RESULT if k not in r]
    if missing:
        err(f"size {s}: missing {missing}")
        continue
    # a size measured again in extra passes (README, Passes) keeps more than -c
    again = r.get("passes", 0) > doc.get("measurement", {}).get("passes", float("inf"))
    if r["count"] != a.count and not (again and r["count"] > a.count):
        err(f"size {s}: count {r['count']} != {a.count}")
    vals = [r[k] for k in REQUIRED_RESULT[2:]]
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in vals):
        err(f"size {s}: non-finite statistics {vals}")
        continue
    if not r["median_us"] > 0 or not r["min_us"] > 0:
        err(f"size {s}: min/median not positive ({r['min_us']}, {r['median_us']})")
    if not (r["min_us"] <= r["median_us"] <= r["p99_us"] * (1 + 1e-9)):
        err(f"size {s}: expected min <= median <= p99, got {r['min_us']}, {r['median_us']}, {r['p99_us']}")
    if not (r["min_us"] <= r["mean_us"] * (1 + 1e-9)) or r["stddev_us"] < 0:
        err(f"size {s}: mean {r['mean_us']} below min {r['min_us']} or negative stddev")
    if a.raw:
        raw = r.get("raw_us")
        if not isinstance(raw, list) or len(raw) != r["count"]:
            err(f"size {s}: raw_us has {len(raw) if isinstance(raw, list) else raw!r} entries, expected {r['count']}")
        elif abs(min(raw) - r["min_us"]) > 1e-6 * max(1.0, r["min_us"]):
            err(f"size {s}: min(raw_us) {min(raw)} != min_us {r['min_us']}")
    elif "raw_us" in r:
        err(f"size {s}: raw_us present without --raw")

if a.monotone and results and not errors:
    med = [r["median_us"] for r in results]
    if not med[-1] > med[0]:
        err(f"median({got_sizes[-1]} B) = {med[-1]} is not above median({got_sizes[0]} B) = {med[0]}")
    # Real time: a step to the next size may look faster, but not by a factor
    # of 2 or more, and at most 3 such inversions; and the largest 3 sizes
    # together must be slower than the smallest 3 (the curve rises overall).
    inversions = [(got_sizes[i], med[i], got_sizes[i + 1], med[i + 1])
                  for i in range(len(med) - 1) if med[i + 1] < 0.5 * med[i]]
    if len(inversions) > 3:
        err(f"{len(inversions)} large inversions (median halves or less to the next size): {inversions}")
    if len(med) >= 6 and not sum(med[-3:]) > sum(med[:3]):
        err(f"largest sizes' medians {med[-3:]} together not above smallest sizes' {med[:3]}")

# The published schema (schema/ngx-result.schema.json), which CI tools rely on.
validate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema", "validate.py")
schema_check = subprocess.run([sys.executable, validate, a.file], capture_output=True, text=True)
if schema_check.returncode != 0:
    err(f"not valid against the published schema: {(schema_check.stdout + schema_check.stderr).strip()}")

for e in errors:
    print(f"{a.file}: {e}")
sys.exit(1 if errors else 0)
