#!/usr/bin/env python3
"""Checks a saved -x loghssp run (tests/overhead/loghssp-*.sh).

    loghssp-check.py RUN.json NGX SCRATCH [--pairs A,B,C,D]

Always: the run completed; both tiers' parameters are present, finite and
>= 0; every point's stated prediction is eq. (8) (intra) or eq. (9) (inter)
of the saved tiers and lies within the stated prediction error of the
measured point; `ngx predict --params RUN.json --tier intra|inter -s SIZE`
gives the same eqs.; and `ngx fit --loghssp` on the run's two pairs, saved
as two overhead runs, fits the same tiers.
--pairs: the chosen pairs as intra driver, responder, inter driver, responder.
(The sim's known parameters are checked by loghssp-sim.sh itself.)
"""
import json, math, subprocess, sys

path, ngx, scratch = sys.argv[1:4]
args = sys.argv[4:]
opts = dict(zip(args[::2], args[1::2]))
doc = json.load(open(path))
run = doc.get("runs", [doc])[0]
if run["status"] != "complete":
    sys.exit("FAIL: run status %s: %s" % (run["status"], run.get("error")))
m = run["model"]
if m.get("kind") != "loghssp":
    sys.exit("FAIL: the model is %r, not loghssp" % m.get("kind"))
intra, inter = m["intra"], m["inter"]
for tier, keys in (("intra", ("s_s_us", "s_r_us", "S_us_per_byte")), ("inter", ("o_s_us", "o_r_us", "L_us", "G_us_per_byte"))):
    for k in keys:
        v = m[tier].get(k)
        if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            sys.exit("FAIL: %s.%s = %r, expected a finite number >= 0" % (tier, k, v))
print("intra: s_s %.4f us, s_r %.4f us, S %.6f us/B; inter: o_s %.4f us, o_r %.4f us, L %.4f us, G %.6f us/B" %
      (intra["s_s_us"], intra["s_r_us"], intra["S_us_per_byte"], inter["o_s_us"], inter["o_r_us"], inter["L_us"],
       inter["G_us_per_byte"]))

def eq8(k):
    return intra["s_s_us"] + intra["s_r_us"] + (k - 1) * intra["S_us_per_byte"]

def eq9(k):
    return inter["o_s_us"] + inter["o_r_us"] + (k - 1) * inter["G_us_per_byte"] + inter["L_us"]

sizes = {}
for tier, eq in (("intra", eq8), ("inter", eq9)):
    stated = m["prediction_error"][tier]["max_relative"]
    points = m["points"][tier]
    if not points:
        sys.exit("FAIL: no %s points" % tier)
    sizes[tier] = [p["size_bytes"] for p in points]
    for p in points:
        k, meas, pred = p["size_bytes"], p["measured_us"], p["predicted_us"]
        if abs(pred - eq(k)) > 1e-9 * max(1.0, abs(pred)):
            sys.exit("FAIL: %s %d B: stated prediction %.6f, eq. gives %.6f" % (tier, k, pred, eq(k)))
        if not (meas > 0) or abs(eq(k) - meas) / meas > stated + 1e-9:
            sys.exit("FAIL: %s %d B: eq. %.4f us against measured %.4f us, beyond the stated error %.2f%%" %
                     (tier, k, eq(k), meas, 100 * stated))
    print("%s: %d points within the stated error %.2f%%" % (tier, len(points), 100 * stated))

# ngx predict reads the saved run's model
for tier, eq in (("intra", eq8), ("inter", eq9)):
    k = sizes[tier][-1]
    out = subprocess.run([ngx, "predict", "--params", path, "--op", "p2p", "--tier", tier, "-s", str(k),
                          "--format", "json"], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        sys.exit("FAIL: ngx predict --tier %s exit %d: %s" % (tier, out.returncode, out.stderr))
    got = json.loads(out.stdout)["predictions"][0]["time_us"]
    if abs(got - eq(k)) > 1e-3 + 1e-6 * eq(k):
        sys.exit("FAIL: ngx predict --tier %s -s %d gives %.4f us, the run's eq. %.4f us" % (tier, k, got, eq(k)))
print("ngx predict reads the run's model (both tiers)")

# The same data through ngx fit --loghssp: two overhead runs of the pairs' records.
results = run["results"]
for tier, flag in (("intra", 0), ("inter", 1)):
    part = {"pattern": "overhead", "module": run["module"],
            "results": [r for r in results if r["inter_node"] == flag]}
    if len(part["results"]) != len(sizes[tier]):
        sys.exit("FAIL: %d %s records for %d points" % (len(part["results"]), tier, len(sizes[tier])))
    json.dump(part, open("%s/%s.json" % (scratch, tier), "w"))
fit = subprocess.run([ngx, "fit", "--loghssp", scratch + "/intra.json", scratch + "/inter.json", "-o",
                      scratch + "/fitted.json"], capture_output=True, text=True, timeout=30)
if fit.returncode != 0:
    sys.exit("FAIL: ngx fit --loghssp exit %d: %s" % (fit.returncode, fit.stderr))
fitted = json.load(open(scratch + "/fitted.json"))
for tier in ("intra", "inter"):
    for k, v in m[tier].items():
        if abs(fitted[tier][k] - v) > 1e-12 * max(1.0, abs(v)):
            sys.exit("FAIL: ngx fit --loghssp gives %s.%s = %r, the run %r" % (tier, k, fitted[tier][k], v))
print("ngx fit --loghssp on the run's two pairs fits the same tiers")

if "--pairs" in opts:
    want = [int(x) for x in opts["--pairs"].split(",")]
    got = m["pairs"]["intra"]["ranks"] + m["pairs"]["inter"]["ranks"]
    if got != want:
        sys.exit("FAIL: pairs %s, expected intra %s and inter %s" % (got, want[:2], want[2:]))
    hosts = m["hosts"]
    if hosts[want[0]] != hosts[want[1]] or hosts[want[2]] == hosts[want[3]]:
        sys.exit("FAIL: the intra pair is not on one host or the inter pair not on two: %s" % hosts)
    print("pairs: intra %s, inter %s (hosts %s)" % (want[:2], want[2:], hosts))

print("PASS")
