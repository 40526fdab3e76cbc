#!/usr/bin/env bash
# ebb over sim in virtual time with a per-link table (--sim-links): in a
# bisection every flow has its own sender and receiver, and sim gives each
# sender its own NIC, so each flow's bandwidth is its link's, s / (g + (s-1) G),
# exactly: every flow within 3% of the table, the slowest flow named is the
# slowest link drawn (a slow node's links have G x 3), ebb_MBps is the
# harmonic mean of the drawn links' rates, and every bisection pairs each
# rank once (odd P: exactly one rank idles). P = 5 and 7 run under mpirun,
# P = 6 as 3 local pairs.
#     ebb-sim.sh P
source "$(dirname "$0")/common.sh"
P=$1
K=6
LINKS=$SCRATCH/links.txt
OUT=$SCRATCH/ebb.json

# Every ordered pair its own G; the slow node's links three times slower.
python3 - "$P" > "$LINKS" <<'PY'
import sys
P = int(sys.argv[1])
slow = P - 2
print("# FROM TO L(us) G(us/byte)")
for i in range(P):
    for j in range(P):
        if i != j:
            G = 0.001 + 0.00002 * (i * P + j)  # no two links alike: the slowest is one link
            print(i, j, 5, 3 * G if slow in (i, j) else G)
PY

ARGS=(-m sim --sim-clock virtual --sim-sleep 20 --sim-links "$LINKS" -x ebb -s 64Ki -c 3 --ebb-bisections "$K"
      --ebb-seed 7 -o "$OUT")
if (( P % 2 == 1 )); then
    command -v mpirun >/dev/null || skip "odd P needs mpirun (install openmpi-bin)"
    layouts_mpirun "$P" "$NGX" "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "the run failed"; }
else
    ngx_deadline 60 --pairs $((P / 2)) "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 ||
        { cat "$SCRATCH/out.txt"; fail "the run failed"; }
fi

python3 - "$OUT" "$LINKS" "$P" "$K" <<'PY' || exit 1
import json, sys
out, links, P, K = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = json.load(open(out))
run = d.get("runs", [d])[0]
if run["status"] != "complete":
    sys.exit("FAIL: run status %s: %s" % (run["status"], run.get("error")))
e = run["model"]["ebb"]
G = {}
for line in open(links):
    if not line.startswith("#"):
        i, j, _, g = line.split()
        G[int(i), int(j)] = float(g)
s, gap = 65536, 2.0  # the size of -s and sim's default g
want = lambda i, j: s / (gap + (s - 1) * G[i, j])
if e["bisections_done"] != K or len(e["per_bisection"]) != K:
    sys.exit("FAIL: %s of %d bisections done" % (e["bisections_done"], K))
bad, drawn = [], []
for k, b in enumerate(e["per_bisection"]):
    ranks = sorted([r for pair in b["pairs"] for r in pair] + b["idle"])
    if ranks != list(range(P)) or len(b["idle"]) != P % 2:
        bad.append("bisection %d: pairs %s, idle %s do not cover each rank once" % (k, b["pairs"], b["idle"]))
    if len(b["directions"]) != 2:
        bad.append("bisection %d: %d directions, expected 2" % (k, len(b["directions"])))
    for d in b["directions"]:
        total = 0
        for f in d["flows"]:
            i, j, got = f["from"], f["to"], f["bandwidth_MBps"]
            drawn.append((want(i, j), i, j, k))
            if got is None or abs(got - want(i, j)) > 0.03 * want(i, j):
                bad.append("flow %d->%d in bisection %d: %s MB/s, the table gives %.1f" % (i, j, k, got, want(i, j)))
            total += got or 0
        if abs(d["aggregate_MBps"] - total) > 1e-6 * total:
            bad.append("bisection %d: aggregate %s is not the sum %s of its flows" % (k, d["aggregate_MBps"], total))
if bad:
    sys.exit("FAIL:\n  " + "\n  ".join(bad[:10]))
if len(drawn) != K * 2 * (P // 2):
    sys.exit("FAIL: %d flows, expected %d" % (len(drawn), K * 2 * (P // 2)))
rate, i, j, k = min(drawn)
slow = e["slowest"]
if (slow["from"], slow["to"]) != (i, j):
    sys.exit("FAIL: the slowest flow is %s, the slowest link drawn is %d->%d (%.1f MB/s)" % (slow, i, j, rate))
if P - 2 not in (i, j):
    sys.exit("FAIL: the slowest link drawn %d->%d is not one of the slow node %d's" % (i, j, P - 2))
harmonic = len(drawn) / sum(1 / r for r, *_ in drawn)
if abs(e["ebb_MBps"] - harmonic) > 0.03 * harmonic:
    sys.exit("FAIL: ebb_MBps %s, the harmonic mean of the drawn links is %.1f" % (e["ebb_MBps"], harmonic))
f = e["flow_MBps"]
if not (f["min"] <= f["p10"] <= f["p25"] <= f["median"] <= f["p75"] <= f["p90"] <= f["max"]) or f["count"] != len(drawn):
    sys.exit("FAIL: the flows' distribution is not ordered or misses flows: %s" % f)
if abs(f["min"] - rate) > 0.03 * rate or e["aggregate_MBps"]["count"] != 2 * K:
    sys.exit("FAIL: distribution min %s (slowest link %.1f), %s cut totals" % (f["min"], rate, e["aggregate_MBps"]["count"]))
print("ok: P = %d, %d bisections: %d flows within 3%% of the table, slowest %d->%d (%.1f MB/s), ebb %.1f MB/s" %
      (P, K, len(drawn), i, j, rate, e["ebb_MBps"]))
PY
