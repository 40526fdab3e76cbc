#!/usr/bin/env python3
"""synthetic_results.py: ngx result files of a known truth, for `ngx check`.

    synthetic_results.py write FILE SEED [--shift 0.10] [--no-raw] [--started-at T] [--pattern P] [--module M]
    synthetic_results.py rates NGX DIR    # the false-positive and detection rates of `ngx check`

A file imitates `ngx -m sim -x pingpong -s 1-1Ki -c 200 --raw`: per size 200
samples of base(size) * (1 + launch shift) * (1 + shift) plus an exponential
tail (mean 2% of the base) and rare outliers (1% of samples, +50%); the launch
shift is drawn once per file (normal, sd 1.5%): the launch-to-launch change
that a tolerance must absorb. Everything comes from random.Random(SEED), so
the rates are the same on every machine and every run.
"""
import json
import math
import random
import subprocess
import sys

SIZES = [2**i for i in range(11)]  # 1 B .. 1 KiB
COUNT = 200


def median_ci95_rank(n):
    """Largest k with 2 P(B <= k-1) <= 0.05, B ~ binomial(n, 1/2) (ngx's statistics.hpp)."""
    cdf, k = 0.0, 0
    while True:
        p = math.comb(n, k) / 2**n
        if cdf + p > 0.025:
            return k
        cdf += p
        k += 1


def series(rng, base, factor):
    samples = []
    for _ in range(COUNT):
        v = base * factor + rng.expovariate(1 / (0.02 * base))
        if rng.random() < 0.01:
            v *= 1.5
        samples.append(v)
    return samples


def result_of(size, samples, raw):
    s = sorted(samples)
    n, k = len(s), median_ci95_rank(len(s))
    median = (s[n // 2 - 1] + s[n // 2]) / 2
    mean = sum(s) / n
    r = {"size_bytes": size, "count": n, "min_us": s[0], "median_us": median, "mean_us": mean,
         "stddev_us": math.sqrt(sum((v - mean) ** 2 for v in s) / (n - 1)), "p99_us": s[int(0.99 * (n - 1))],
         "max_us": s[-1], "median_ci95_lo_us": s[k - 1], "median_ci95_hi_us": s[n - k]}
    if raw:
        r["raw_us"] = samples
    return r


def document(seed, shift=0.0, raw=True, started_at="2026-11-27T05:00:00Z", pattern="pingpong", module="sim"):
    rng = random.Random(seed)
    launch = 1 + rng.gauss(0, 0.015)
    results = [result_of(size, series(rng, 5.0 + 0.003 * size, launch * (1 + shift)), raw) for size in SIZES]
    return {"schema_version": 1, "ngx_version": "synthetic", "host": "synthetic", "cpu": "synthetic",
            "timer": {"source": "synthetic", "resolution_ns": 1, "overhead_ns": 20}, "started_at": started_at,
            "module": module, "pattern": pattern, "metric": "half round trip", "status": "complete",
            "options": {"sizes": SIZES, "count": COUNT}, "results": results}


def write(path, **kwargs):
    with open(path, "w") as f:
        json.dump(document(**kwargs), f)


def flagged(ngx, a, b):
    code = subprocess.run([ngx, "check", "--tolerance", "5%", a, b], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode
    if code not in (0, 1):
        sys.exit(f"ngx check {a} {b}: exit {code}")
    return code == 1


def rates(ngx, directory):
    """50 null pairs and 50 pairs with a 10% shift, with and without raw samples."""
    for raw in (True, False):
        false_positives = detections = 0
        for i in range(50):
            a, b, c = (f"{directory}/{name}{i}.json" for name in "abc")
            write(a, seed=1000 + i, raw=raw)
            write(b, seed=2000 + i, raw=raw)
            write(c, seed=3000 + i, shift=0.10, raw=raw)
            false_positives += flagged(ngx, a, b)
            detections += flagged(ngx, a, c)
        print(f"{'raw' if raw else 'intervals'}: false positives {false_positives}/50, detected {detections}/50")


def main():
    if sys.argv[1] == "rates":
        rates(sys.argv[2], sys.argv[3])
        return
    path, seed = sys.argv[2], int(sys.argv[3])
    options = {"shift": 0.0, "raw": True, "started_at": "2026-11-27T05:00:00Z", "pattern": "pingpong", "module": "sim"}
    args = sys.argv[4:]
    while args:
        flag = args.pop(0)
        if flag == "--no-raw":
            options["raw"] = False
        else:
            key = flag[2:].replace("-", "_")
            options[key] = float(args.pop(0)) if key == "shift" else args.pop(0)
    write(path, seed=seed, **options)


if __name__ == "__main__":
    main()
