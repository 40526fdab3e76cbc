#!/usr/bin/env python3
"""realtime_check.py: what the loggp runs over real transports must show on
any machine (suite loggp-realtime). Every bound on a measured figure goes
through tests/lib/bounds.py with a factor of 2; how close the figures come
is measured by bench/loggp/realtime.sh.

  rate RUN.json --mbit R
      G of the range holding the largest size is 1/rate (8 / R us per byte)
      within a factor of 2, and that range holds at least 3 sizes.
  delay BASE.json DELAYED.json --us D
      L of eq. (1) (first range) grows by D within a factor of 2, and the
      delayed run's L_eel = PRTT(1,0,1)/2 is at least D (the delay is one way).
  model RUN.json [--pingpong PINGPONG.json]
      a fitted model: every range's L, o, o_r, g finite, its gap g + (s-1)G
      positive at its first size, g, o, o_r and G not negative, ranges in
      order over the measured sizes; with
      --pingpong, L_eel within a factor of 2 of the ping-pong's median half
      round trip at the same size (a measurement of its own).
Exit 1 when a check fails, 2 on unusable input.
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import bounds  # noqa: E402

failures = []


def load(path, model=True):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"ERROR: {path}: {e}")
        sys.exit(2)
    doc = (doc.get("runs") or [doc])[0]
    if model and not isinstance(doc.get("model"), dict):
        print(f"ERROR: {path}: no model object (status {doc.get('status')!r})")
        sys.exit(2)
    return doc, doc.get("model")


def value(x):
    if isinstance(x, dict):
        x = x.get("value")
    return float("nan") if x is None else float(x)


def need(good, what):
    print(f"  {'ok  ' if good else 'FAIL'} {what}")
    if not good:
        failures.append(what)


def cmd_rate(a):
    doc, m = load(a.run)
    sizes = [int(r["size_bytes"]) for r in doc["results"]]
    r = [x for x in m["ranges"] if x["from_bytes"] <= sizes[-1] <= x["to_bytes"]][-1]
    need(sum(1 for s in sizes if r["from_bytes"] <= s <= r["to_bytes"]) >= 3,
         f"the range of the largest size ({r['from_bytes']:g}..{r['to_bytes']:g} B) holds at least 3 sizes")
    if not bounds.within_factor("G (us/byte) against 1/rate", r["G_us_per_byte"], 8.0 / a.mbit, 2):
        failures.append("G")


def cmd_delay(a):
    _, m0 = load(a.base)
    _, md = load(a.delayed)
    L0, Ld = m0["ranges"][0]["L_us"], md["ranges"][0]["L_us"]
    print(f"L (eq. 1, first range): {L0:.2f} us without delay, {Ld:.2f} us with {a.us:g} us one way;"
          f" L_eel {value(m0['L_eel_us']):.2f} -> {value(md['L_eel_us']):.2f} us")
    if not bounds.within_factor("L growth (us)", Ld - L0, a.us, 2):
        failures.append("L growth")
    if not bounds.at_least("L_eel with the delay (us)", value(md["L_eel_us"]), a.us):
        failures.append("L_eel")


def cmd_model(a):
    doc, m = load(a.run)
    sizes = [int(r["size_bytes"]) for r in doc["results"]]
    prev_to = None
    for i, r in enumerate(m["ranges"]):
        vals = {k: r[k] for k in ("L_us", "o_us", "o_r_us", "g_us", "G_us_per_byte")}
        need(all(v is not None and math.isfinite(v) for v in vals.values()), f"range {i}: finite {vals}")
        # The fitted lines are held >= 0 (docs/loggp.md), so a range may put its whole
        # gap into G with g = 0; what must be positive is the gap itself, g + (s-1)G.
        gap = vals["g_us"] + (r["from_bytes"] - 1) * vals["G_us_per_byte"]
        need(gap > 0 and all(vals[k] >= 0 for k in ("o_us", "o_r_us", "g_us", "G_us_per_byte")),
             f"range {i}: gap g + (s-1)G positive at {r['from_bytes']:g} B ({gap:.4g} us), g, o, o_r and G not negative")
        need(r["from_bytes"] in sizes and r["to_bytes"] in sizes and r["from_bytes"] <= r["to_bytes"]
             and (prev_to is None or r["from_bytes"] > prev_to), f"range {i}: {r['from_bytes']:g}..{r['to_bytes']:g} B in order")
        prev_to = r["to_bytes"]
    pp, _ = load(a.pingpong, model=False) if a.pingpong else (None, None)
    if pp is not None:
        size = int(value(m.get("L_eel_size_bytes", sizes[0])))
        half_rtt = [r["median_us"] for r in pp["results"] if int(r["size_bytes"]) == size]
        need(bool(half_rtt), f"the ping-pong measured {size} B")
        name = f"L_eel against the ping-pong's half round trip at {size} B (us)"
        if half_rtt and not bounds.within_factor(name, value(m["L_eel_us"]), half_rtt[0], 2):
            failures.append("L_eel")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rate")
    r.add_argument("run")
    r.add_argument("--mbit", type=float, required=True)
    d = sub.add_parser("delay")
    d.add_argument("base")
    d.add_argument("delayed")
    d.add_argument("--us", type=float, required=True)
    m = sub.add_parser("model")
    m.add_argument("run")
    m.add_argument("--pingpong", help="a pingpong run of the same module: L_eel against its half round trip")
    a = p.parse_args()
    {"rate": cmd_rate, "delay": cmd_delay, "model": cmd_model}[a.cmd](a)
    if failures:
        print(f"{len(failures)} check(s) failed: {', '.join(failures)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
