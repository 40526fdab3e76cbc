#!/usr/bin/env python3
"""Puts ngx's 1-byte ibv ping-pong median next to perftest's ib_send_lat
typical (median) latency from the same guest run and prints the ratio.

    ratio.py NGX_JSON... -- PERFTEST_OUTPUT...
Each side's value is the median over its rounds (runs alternate, so drift of a
busy host hits both alike).
"""
import json
import statistics
import sys


def ngx_median(path):
    with open(path) as f:
        doc = json.load(f)
    row = [r for r in doc["results"] if r["size_bytes"] == 1][0]
    return row["median_us"]


def perftest_typical(path):
    with open(path) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if "t_typical" in line:
            header = line.split()
            values = lines[i + 1].split()
            return float(values[header.index("t_typical[usec]")])
    raise ValueError("%s: no t_typical line" % path)


def main():
    split = sys.argv.index("--")
    ngx = [ngx_median(p) for p in sys.argv[1:split]]
    perftest = [perftest_typical(p) for p in sys.argv[split + 1:]]
    n, p = statistics.median(ngx), statistics.median(perftest)
    print("bench-ibv: ngx -m ibv -x pingpong -s 1 (send mode) median per round: %s us"
          % ", ".join("%.2f" % v for v in ngx))
    print("bench-ibv: ib_send_lat -s 1 t_typical per round:                  %s us"
          % ", ".join("%.2f" % v for v in perftest))
    print("bench-ibv: RESULT ngx %.2f us, ib_send_lat %.2f us, ratio ngx/ib_send_lat %.3f" % (n, p, n / p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
