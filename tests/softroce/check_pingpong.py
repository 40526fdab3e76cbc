#!/usr/bin/env python3
"""Checks an `ngx -x pingpong -o FILE.json` result: complete, every size
measured, medians positive and the latencies roughly ordered by size. rxe in
a TCG guest on a busy host has millisecond hiccups that can swamp a median,
so the order is judged on the minimum of each size (a size may dip to half
of the one before it) and the largest size's minimum must exceed the
smallest's. Prints one line per size.

    check_pingpong.py out.json [LABEL]
"""
import json
import sys


def main():
    path = sys.argv[1]
    label = sys.argv[2] if len(sys.argv) > 2 else path
    with open(path) as f:
        doc = json.load(f)
    problems = []
    if doc.get("status") != "complete":
        problems.append("status is %r" % doc.get("status"))
    rows = sorted(doc.get("results", []), key=lambda r: r["size_bytes"])
    wanted = doc.get("options", {}).get("sizes", [])
    if [r["size_bytes"] for r in rows] != sorted(wanted):
        problems.append("sizes measured %s, asked %s" % ([r["size_bytes"] for r in rows], wanted))
    previous = None
    for r in rows:
        median = r["median_us"]
        print("%s: %8d B  median %10.2f us  min %10.2f us  (n=%d)" % (label, r["size_bytes"], median,
                                                                       r["min_us"], r["count"]))
        if not median > 0:
            problems.append("%d B: median %r is not positive" % (r["size_bytes"], median))
        if previous is not None and r["min_us"] < 0.5 * previous:
            problems.append("%d B: minimum %.2f us is below half the previous size's %.2f us"
                            % (r["size_bytes"], r["min_us"], previous))
        previous = r["min_us"]
    if len(rows) >= 2 and not rows[-1]["min_us"] > rows[0]["min_us"]:
        problems.append("the largest size is not slower than the smallest")
    for p in problems:
        print("%s: FAIL: %s" % (label, p))
    if not problems:
        print("%s: ok (%s %s)" % (label, doc.get("module"), doc.get("options", {}).get("module_options", {})))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
