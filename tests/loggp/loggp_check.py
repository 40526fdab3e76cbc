#!/usr/bin/env python3
"""loggp_check.py: numeric checks of ngx loggp/loggps results for tests/loggp.

Each subcommand prints one line per quantity (measured, expected, deviation)
and exits 1 when a check fails, 2 on unusable input. Quantities are read from
ngx's JSON (the `model` object); see tests/loggp/README.md for the reasoning
behind each expected value.

  truth RUN.json --L L --os OS --or OR --g G_ --G G [--S S] [--tol 0.05] [--lines --O O --Or OR_]
      (--lines: also the o_r intercept and the overhead slopes O_s, O_r of each line)
      ground truth of the sim module (docs/sim.md). Eager range:
      L, o (= o_s), g, G and L_eel = L + o_s + o_r. With --S: two ranges,
      the change point within one measured size of the first size above S,
      and in the rendezvous range what the sim's handshake makes loggp see:
      g' = 2L + 2o_s + 3o_r, G' = G, o' = 3o_s + 2L + 2o_r (see README).
      Without --S: one range (no change point on a straight line).
  overheads RUN.json --os OS --or OR [--tol 0.02] [--timer-step]
      the medians over the sizes of o_s(s) (eq. (6)) and o_r(s) within tol
      of the sim's (no cost of the delay loop, the timer or the sim's own calls may enter o); the first range's intercepts and the
      per-size ranges are printed next to them.
      --timer-step: plus one step of the run's timer (timer.resolution_ns:
      10 ns on a KVM guest's TSC), the least a timed call can resolve.
  switch LOGGP.json LOGGPS.json --S S
      loggps' S (S_bytes .. S_next_bytes) agrees with loggp's change point
      and both are within one measured size of the true S.
  change-point RUN.json --at S [--resolve K]
      a change point within one measured size of the first size above S.
      --resolve K: on a miss, exit 3 (not a failure) when the step of the
      median PRTT across S is under K times this run's noise (the scatter
      of the medians around a line on each side, or their 95% half-width):
      the machine hid the switch, the detector did not miss it.
  rate RUN.json --mbit R [--tol 0.10]
      G of the range holding the largest size within tol of 1/rate
      (us per byte = 8 / R for R in Mbit/s).
  delay BASE.json DELAYED.json --us D [--tol 0.10] [--repeat BASE2.json]
      L_eel grows by D within tol (L of eq. (1), first range, is shown).
  loggps RUN.json --L --os --or --G [--tol 0.10]
      every loggps parameter against the sim's (Ino et al. 2001 on the sim: L, o' =
      (o_s + o_r)/2, no per-byte overheads O_s = O_r = 0 (|O| <= 5% of G),
      G_s = G_l = G); s is not asserted (the sim has no second threshold).
  same RUN.json FIT.json [--with-L] [--rtol 1e-6]
      `ngx fit` reproduced the run: per range g, G, o (and L, o_r with
      --with-L), the change points and L_eel.
"""
import argparse
import json
import math
import os
import subprocess
import sys

failures = []


def load_model(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"ERROR: {path}: {e}")
        sys.exit(2)
    validate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema", "validate.py")
    schema_check = subprocess.run([sys.executable, validate, path], capture_output=True, text=True)
    if schema_check.returncode != 0:  # the published schema (schema/ngx-result.schema.json)
        print(f"ERROR: {path}: not valid against the schema: {(schema_check.stdout + schema_check.stderr).strip()}")
        sys.exit(1)
    model = doc.get("model")
    if not isinstance(model, dict):
        print(f"ERROR: {path}: no model object (status {doc.get('status')!r})")
        sys.exit(2)
    return doc, model


def sizes_of(doc):
    return [int(r["size_bytes"]) for r in doc.get("results", [])]


def rel(measured, expected):
    if expected == 0:
        return abs(measured)
    return (measured - expected) / abs(expected)


def within(name, measured, expected, tol, bias=0.0):
    """Record and print one relative comparison (plus an absolute allowance
    `bias`, in the parameter's unit, for a known measurement bias)."""
    if measured is None or not math.isfinite(measured):
        failures.append(f"{name}: not measured ({measured})")
        print(f"  FAIL {name:<28} measured {measured}  expected {expected:.6g}")
        return
    d = rel(measured, expected)
    good = abs(measured - expected) <= tol * abs(expected) + bias
    if not good:
        failures.append(f"{name}: {measured:.6g}, expected {expected:.6g} within {100 * tol:g}% ({100 * d:+.2f}%)")
    print(f"  {'ok  ' if good else 'FAIL'} {name:<28} {measured:12.6g}  expected {expected:12.6g}  {100 * d:+7.2f}%"
          f"  (tolerance {100 * tol:g}%{f' + {bias:g} bias' if bias else ''})")


def slope(name, measured, expected, intercept, largest, tol, ci=(None, None)):
    """A per-byte slope: within tol of the truth, or, for a truth of 0, adding
    at most tol of the intercept over the range ((largest-1) * |slope|).
    Under load a slope of o(s) (a difference of two PRTTs / (n-1)) can miss
    tol while its 95% interval still holds the truth: that passes when the
    interval is narrower than +-10% (said in the output)."""
    if expected > 0:
        lo, hi = ci
        if (lo is not None and hi is not None and lo <= expected <= hi and (hi - lo) / 2 <= 0.10 * expected
                and abs(rel(measured, expected)) > tol):
            print(f"  ok   {name:<28} {measured:12.6g}  expected {expected:12.6g}  outside {100 * tol:g}% but"
                  f" inside its 95% interval [{lo:.4g}, {hi:.4g}]")
            return
        within(name, measured, expected, tol)
        return
    add = abs(measured) * (largest - 1) if measured is not None else float("inf")
    check(name, add <= tol * intercept,
          f"{measured} (truth 0: adds {add:.4g} us at {largest:g} B, at most {tol * intercept:.4g})")


def check(name, condition, detail):
    print(f"  {'ok  ' if condition else 'FAIL'} {name:<28} {detail}")
    if not condition:
        failures.append(f"{name}: {detail}")


def value(x):
    if isinstance(x, dict):
        x = x.get("value")
    return float("nan") if x is None else float(x)


def neighbours(sizes, target):
    """The measured sizes within one size step of the first size above target."""
    above = [i for i, s in enumerate(sizes) if s > target]
    if not above:
        return None, []
    i = above[0]
    return sizes[i], sizes[max(0, i - 1):i + 2]


def cmd_truth(a):
    doc, m = load_model(a.run)
    ranges = m["ranges"]
    cps = [int(c) for c in m.get("change_points_bytes", [])]
    sizes = sizes_of(doc)
    print(f"{a.run}: {len(ranges)} range(s), change points {cps}, sizes {sizes[0]}..{sizes[-1]} ({len(sizes)})")
    e = ranges[0]
    print(f" eager range {e['from_bytes']:g}..{e['to_bytes']:g} B (truth L={a.L} o_s={a.os} o_r={a.o_r} g={a.g} G={a.G})")
    within("L_us (eq. 1)", e["L_us"], a.L, a.tol, a.bias)
    within("o_us (o_s, eq. 6)", e["o_us"], a.os, a.tol, a.bias)
    within("g_us (eq. 7)", e["g_us"], a.g, a.tol)
    within("G_us_per_byte (eq. 7)", e["G_us_per_byte"], a.G, a.tol)
    within("L_eel_us = L + o_s + o_r", value(m["L_eel_us"]), a.L + a.os + a.o_r, a.tol)
    if a.lines:
        within("o_r_us (intercept)", e["o_r_us"], a.o_r, a.tol, a.bias)
        for key, truth, at_one in (("O_us_per_byte", a.O, a.os), ("O_r_us_per_byte", a.Or, a.o_r)):
            ci = e.get("intervals", {}).get(key, {}).get("ci95", [None, None])
            slope(f"{key} (slope)", e[key], truth, at_one, e["to_bytes"], a.tol, ci)
    if not a.S:
        check("no change point", not cps and len(ranges) == 1,
              f"{len(ranges)} range(s), change points {cps} (the sim has no switch)")
        return
    first, near = neighbours(sizes, a.S)
    check("ranges", len(ranges) == 2, f"{len(ranges)} (eager + rendezvous expected)")
    check("change point", len(cps) == 1 and cps[0] in near,
          f"{cps}, S = {a.S}: first size above S is {first}, accepted {near}")
    if len(ranges) < 2:
        return
    r = ranges[-1]
    g_r = 2 * a.L + 2 * a.os + 3 * a.o_r
    o_r = 3 * a.os + 2 * a.L + 2 * a.o_r
    print(f" rendezvous range {r['from_bytes']:g}..{r['to_bytes']:g} B:"
          f" g' = 2L+2o_s+3o_r = {g_r:g}, o' = 3o_s+2L+2o_r = {o_r:g}, G' = G")
    within("g_us (handshake per msg)", r["g_us"], g_r, a.tol)
    within("G_us_per_byte", r["G_us_per_byte"], a.G, a.tol)
    within("o_us (send incl. handshake)", r["o_us"], o_r, a.tol)
    # Not asserted: in the rendezvous range the timed recv of the o_r
    # measurement includes the handshake and the transfer, so L by eq. (1)
    # is -(L + 2o_s + 2o_r) - (s-1)G per size (see README).
    mid = (r["from_bytes"] + r["to_bytes"]) / 2
    print(f"  info L_us {r['L_us']:.4g}, o_r_us {r['o_r_us']:.4g} (model: L(s) = -(L+2o_s+2o_r)-(s-1)G ="
          f" {-(a.L + 2 * a.os + 2 * a.o_r) - (r['from_bytes'] - 1) * a.G:.4g}..{-(a.L + 2 * a.os + 2 * a.o_r) - (r['to_bytes'] - 1) * a.G:.4g};"
          f" o_r(s) = 3o_r+2o_s+2L+(s-1)G ~ {3 * a.o_r + 2 * a.os + 2 * a.L + (mid - 1) * a.G:.4g} mid-range)")


def cmd_overheads(a):
    doc, m = load_model(a.run)
    e = m["ranges"][0]
    rows = doc.get("results", [])
    print(f"  info first range: o_us {e['o_us']:.5g}, o_r_us {e['o_r_us']:.5g} (line intercepts)")
    step = float(doc.get("timer", {}).get("resolution_ns", 0.0)) / 1000.0 if a.timer_step else 0.0
    if step:
        print(f"  info allowance: one timer step {1000 * step:.3g} ns on top of {100 * a.tol:g}%")
    # The measurement itself: the median over the sizes of o_s(s) (eq. (6))
    # and o_r(s), so that one size hit by a burst of noise does not move it
    # (the line fit through them is the fit side's and is printed above).
    for key, label, truth in (("o_s_us", "o_s(s), eq. 6", a.os), ("o_r_us", "o_r(s), timed receive", a.o_r)):
        per_size = sorted(r[key] for r in rows if key in r)
        if not per_size:
            within(f"median {label}", None, truth, a.tol, step)
            continue
        print(f"  info per-size {key}: {per_size[0]:.5g}..{per_size[-1]:.5g} (truth {truth:g})")
        within(f"median {label}", per_size[len(per_size) // 2], truth, a.tol, step)


def cmd_switch(a):
    doc, m = load_model(a.loggp)
    sdoc, sm = load_model(a.loggps)
    sizes = sizes_of(doc)
    cps = [int(c) for c in m.get("change_points_bytes", [])]
    S_b, S_n = sm.get("S_bytes"), sm.get("S_next_bytes")
    first, near = neighbours(sizes, a.S)
    print(f"true S {a.S} (first measured size above: {first}); loggp change points {cps};"
          f" loggps S_bytes {S_b} S_next_bytes {S_n}")
    check("same sizes", sizes == sizes_of(sdoc), "loggp and loggps measured the same sizes")
    check("loggp change point", len(cps) == 1 and cps[0] in near, f"{cps}, accepted {near}")
    check("loggps S", S_n is not None and int(S_n) in near, f"S_next_bytes {S_n}, accepted {near}")
    if cps and S_n is not None and sizes:
        i, j = sizes.index(cps[0]) if cps[0] in sizes else -99, sizes.index(int(S_n)) if int(S_n) in sizes else 99
        check("loggps S = loggp switch", abs(i - j) <= 1,
              f"loggp range starts at {cps[0]}, loggps S_next at {int(S_n)} ({abs(i - j)} size step(s) apart)")


def line_residual_sd(xs, ys):
    """The residual standard deviation of a least-squares line through (xs, ys)."""
    n = len(xs)
    if n < 3:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    rss = sum((y - my - b * (x - mx)) ** 2 for x, y in zip(xs, ys))
    return math.sqrt(rss / (n - 2))


def step_and_noise(doc, at, side=4):
    """The step of the median PRTT across `at` (first size above minus last
    size at or below) and this run's noise: the larger of the pooled scatter
    of the medians around a line on each side (up to `side` points each) and
    the mean half-width of the medians' 95% intervals there."""
    rows = sorted(doc.get("results", []), key=lambda r: r["size_bytes"])
    below = [r for r in rows if r["size_bytes"] <= at][-side:]
    above = [r for r in rows if r["size_bytes"] > at][:side]
    if len(below) < 3 or len(above) < 3:
        return None, None
    step = above[0]["median_us"] - below[-1]["median_us"]
    sds = [line_residual_sd([r["size_bytes"] for r in rs], [r["median_us"] for r in rs]) for rs in (below, above)]
    scatter = math.sqrt((sds[0] ** 2 + sds[1] ** 2) / 2)
    halves = [(r["median_ci95_hi_us"] - r["median_ci95_lo_us"]) / 2 for r in below + above
              if "median_ci95_hi_us" in r and "median_ci95_lo_us" in r]
    half = sum(halves) / len(halves) if halves else 0.0
    return step, max(scatter, half)


UNRESOLVED = 3  # exit status of change-point --resolve when the noise hides the step


def cmd_change_point(a):
    doc, m = load_model(a.run)
    cps = [int(c) for c in m.get("change_points_bytes", [])]
    first, near = neighbours(sizes_of(doc), a.at)
    print(f"switch above {a.at} B (first measured size above: {first}); change points {cps}")
    found = any(c in near for c in cps)
    if a.resolve and not found:
        step, noise = step_and_noise(doc, a.at)
        if step is None:
            print(f"  too few sizes on either side of {a.at} B to judge the step")
        elif step < a.resolve * noise:
            print(f"  not resolvable on this run: step {step:.4g} us across {a.at} B is under {a.resolve:g} x the"
                  f" noise {noise:.4g} us (scatter of the medians around a line, or their 95% half-width)")
            sys.exit(UNRESOLVED)
        else:
            print(f"  resolvable: step {step:.4g} us is {step / noise:.1f} x the noise {noise:.4g} us")
    check("change point", found, f"{cps}, accepted {near}")


def cmd_loggps(a):
    _, m = load_model(a.run)

    def v(key):
        x = m.get(key)
        return x.get("value") if isinstance(x, dict) else x
    within("loggps L_us", v("L_us"), a.L, a.tol)
    within("loggps o_prime_us", v("o_prime_us"), (a.os + a.o_r) / 2, a.tol)
    if a.report_per_byte:
        # Known bug (the LogGPS threshold search): with a rendezvous switch in
        # the data the fit may put s at the smallest sizes and fit G_s over
        # two points; the per-byte terms are printed, not asserted, here.
        for key in ("O_s_us_per_byte", "O_r_us_per_byte", "G_s_us_per_byte", "G_l_us_per_byte"):
            print(f"  note loggps {key:<22} {v(key)}  (sim: O = 0, G = {a.G}; not asserted: the LogGPS threshold search is a known bug)")
        return
    for key in ("O_s_us_per_byte", "O_r_us_per_byte"):
        o = v(key)
        check(f"loggps {key}", o is not None and math.isfinite(o) and abs(o) <= 0.05 * a.G,
              f"{o}, expected 0 (|O| <= {0.05 * a.G:g})")
    within("loggps G_s_us_per_byte", v("G_s_us_per_byte"), a.G, a.tol)
    within("loggps G_l_us_per_byte", v("G_l_us_per_byte"), a.G, a.tol)


def cmd_rate(a):
    doc, m = load_model(a.run)
    sizes = sizes_of(doc)
    largest = sizes[-1]
    r = [x for x in m["ranges"] if x["from_bytes"] <= largest <= x["to_bytes"]][-1]
    inv_rate = 8.0 / a.mbit  # us per byte
    # what tbf also counts: TCP/IP with timestamps (52) + Ethernet (14) per 1448-byte segment
    with_headers = inv_rate * (1448 + 66) / 1448
    print(f"{a.run}: ranges {[(x['from_bytes'], x['to_bytes']) for x in m['ranges']]}; using"
          f" {r['from_bytes']:g}..{r['to_bytes']:g} B; 1/rate = {inv_rate:.6g} us/B"
          f" ({with_headers:.6g} with TCP/IP/Ethernet headers)")
    check("range size", sum(1 for s in sizes if r["from_bytes"] <= s <= r["to_bytes"]) >= 3,
          "the fitted range holds at least 3 sizes")
    within("G_us_per_byte vs 1/rate", r["G_us_per_byte"], inv_rate, a.tol)
    print(f"  info G vs 1/rate with headers: {100 * rel(r['G_us_per_byte'], with_headers):+.2f}%;"
          f" g_us {r['g_us']:.4g}")


def cmd_delay(a):
    _, m0 = load_model(a.base)
    _, md = load_model(a.delayed)
    L0, Ld = m0["ranges"][0]["L_us"], md["ranges"][0]["L_us"]
    print(f"L (eq. 1, first range): {L0:.2f} us without delay, {Ld:.2f} us with {a.us} us one way")
    noise = 0.0
    if a.repeat:  # the same undelayed pair measured again: what L moves between two runs here, now
        noise = abs(load_model(a.repeat)[1]["ranges"][0]["L_us"] - L0)
        print(f"  info noise: L without delay measured twice differs by {noise:.2f} us (allowed twice)")
    within("L growth", Ld - L0, a.us, a.tol, 2 * noise)
    e0, ed = value(m0["L_eel_us"]), value(md["L_eel_us"])
    print(f"  info L_eel_us (PRTT(1,0,1)/2): {e0:.4g} -> {ed:.4g} (growth {ed - e0:.4g});"
          f" o_us {m0['ranges'][0]['o_us']:.4g} -> {md['ranges'][0]['o_us']:.4g};"
          f" o_r_us {m0['ranges'][0]['o_r_us']:.4g} -> {md['ranges'][0]['o_r_us']:.4g}")


def cmd_same(a):
    _, m = load_model(a.run)
    _, f = load_model(a.fit)
    print(f"{a.fit} against {a.run}")
    check("change points", m.get("change_points_bytes") == f.get("change_points_bytes"),
          f"run {m.get('change_points_bytes')}, fit {f.get('change_points_bytes')}")
    check("ranges", len(m["ranges"]) == len(f["ranges"]), f"run {len(m['ranges'])}, fit {len(f['ranges'])}")
    keys = ["g_us", "G_us_per_byte", "o_us"] + (["L_us", "o_r_us"] if a.with_L else [])
    for i, (rm, rf) in enumerate(zip(m["ranges"], f["ranges"])):
        check(f"range {i} bounds", (rm["from_bytes"], rm["to_bytes"]) == (rf["from_bytes"], rf["to_bytes"]),
              f"run {rm['from_bytes']:g}..{rm['to_bytes']:g}, fit {rf['from_bytes']:g}..{rf['to_bytes']:g}")
        for k in keys:
            within(f"range {i} {k}", rf[k], rm[k], a.rtol)
    within("L_eel_us", value(f["L_eel_us"]), value(m["L_eel_us"]), a.rtol)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("truth")
    t.add_argument("run")
    for name in ("--L", "--os", "--g", "--G"):
        t.add_argument(name, type=float, required=True)
    t.add_argument("--or", dest="o_r", type=float, required=True)
    t.add_argument("--S", type=int, default=0)
    t.add_argument("--tol", type=float, default=0.05)
    t.add_argument("--bias", type=float, default=0.0,
                   help="absolute allowance (us) on the o_s, o_r intercepts and L for a known measurement bias")
    t.add_argument("--lines", action="store_true", help="also o_r and the slopes O_s (--O), O_r (--Or)")
    t.add_argument("--O", type=float, default=0.0)
    t.add_argument("--Or", type=float, default=0.0)
    o = sub.add_parser("overheads")
    o.add_argument("run")
    o.add_argument("--os", type=float, required=True)
    o.add_argument("--or", dest="o_r", type=float, required=True)
    o.add_argument("--tol", type=float, default=0.02)
    o.add_argument("--timer-step", dest="timer_step", action="store_true")
    s = sub.add_parser("switch")
    s.add_argument("loggp")
    s.add_argument("loggps")
    s.add_argument("--S", type=int, required=True)
    c = sub.add_parser("change-point")
    c.add_argument("run")
    c.add_argument("--at", type=int, required=True, help="the last size of the lower protocol")
    c.add_argument("--resolve", type=float, default=0.0,
                   help="on a miss, exit 3 instead of failing when the step across --at is under this many"
                        " times the run's noise (the machine hides it)")
    g = sub.add_parser("loggps")
    g.add_argument("run")
    for name in ("--L", "--os", "--G"):
        g.add_argument(name, type=float, required=True)
    g.add_argument("--or", dest="o_r", type=float, required=True)
    g.add_argument("--tol", type=float, default=0.10)
    g.add_argument("--report-per-byte", dest="report_per_byte", action="store_true",
                   help="print O_s, O_r, G_s, G_l instead of asserting them")
    r = sub.add_parser("rate")
    r.add_argument("run")
    r.add_argument("--mbit", type=float, required=True)
    r.add_argument("--tol", type=float, default=0.10)
    d = sub.add_parser("delay")
    d.add_argument("base")
    d.add_argument("delayed")
    d.add_argument("--us", type=float, required=True)
    d.add_argument("--tol", type=float, default=0.10)
    d.add_argument("--repeat", help="a second run without delay: their L difference is the noise allowed twice")
    m = sub.add_parser("same")
    m.add_argument("run")
    m.add_argument("fit")
    m.add_argument("--with-L", action="store_true")
    m.add_argument("--rtol", type=float, default=1e-6)
    a = p.parse_args()
    {"truth": cmd_truth, "overheads": cmd_overheads, "switch": cmd_switch, "change-point": cmd_change_point, "loggps": cmd_loggps, "rate": cmd_rate, "delay": cmd_delay, "same": cmd_same}[a.cmd](a)
    if failures:
        print(f"{len(failures)} check(s) failed:")
        for f in failures:
            print(f"  - {f}")
        sys.exit(1)


if __name__ == "__main__":
    main()
