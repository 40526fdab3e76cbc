#!/usr/bin/env bash
# `ngx compare` of two all-pairs maps, cell by cell, over sim in virtual time
# (exact, so what moved is known): a baseline map of 6 ranks on 6 named
# nodes; the same network again (nothing moved: median ratio 1, no cell, no
# node); node 4's links three times slower in G and L (exactly node 4 and
# its 10 cells moved, in both directions, named by host, and nothing else);
# every link 1.5 times slower in L (the map as a whole moved: median ratio,
# no cell apart from the rest). Bad input: maps of different P, a map
# against a run without one: exit 2 naming it.
source "$(dirname "$0")/common.sh"
HOSTS=node0,node1,node2,node3,node4,node5

links() {  # LATENCY_FACTOR SLOW_NODE SLOW_FACTOR > table
    python3 - "$@" <<'PY'
import sys
f, slow, k = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
for i in range(6):
    for j in range(6):
        if i != j:
            L, G = f * (5 + 0.5 * i + 0.25 * j), 0.001
            if slow in (i, j):
                L, G = k * L, k * G
            print(i, j, L, G)
PY
}
measure() {  # NAME LINKS_FILE [P]
    ngx_deadline 60 --pairs "${3:-3}" -m sim --sim-clock virtual --sim-sleep 20 --sim-links "$2" -x allpairs \
        -s 1,64Ki -c 10 --warmup 2 --host-of "${HOSTS}" -o "$SCRATCH/$1.json" >"$SCRATCH/$1.out" 2>&1 ||
        { cat "$SCRATCH/$1.out"; fail "allpairs run $1 failed"; }
}
links 1 -1 1 >"$SCRATCH/base.txt"
links 1 4 3 >"$SCRATCH/slow.txt"
links 1.5 -1 1 >"$SCRATCH/shift.txt"
measure base "$SCRATCH/base.txt"
measure same "$SCRATCH/base.txt"
measure slow "$SCRATCH/slow.txt"
measure shift "$SCRATCH/shift.txt"

"$NGX" compare "$SCRATCH/base.json" "$SCRATCH/same.json" "$SCRATCH/slow.json" "$SCRATCH/shift.json" >"$SCRATCH/table.txt" ||
    fail "ngx compare exited $?"
cat "$SCRATCH/table.txt"
"$NGX" compare --json "$SCRATCH/base.json" "$SCRATCH/same.json" "$SCRATCH/slow.json" "$SCRATCH/shift.json" \
    >"$SCRATCH/cmp.json" || fail "ngx compare --json exited $?"
python3 - "$SCRATCH/cmp.json" <<'PY' || exit 1
import json, sys
m = json.load(open(sys.argv[1]))["allpairs"]
assert m["ranks"] == 6 and m["hosts"] == ["node%d" % i for i in range(6)], m["hosts"]
same, slow, shift = m["runs"]
def moved(run, q):
    return sorted((c["from_host"], c["to_host"]) for c in run[q]["changed"])
def near(x, want, tol=0.02):
    return abs(x - want) <= tol * want
bad = []
# Nothing moved.
for q in ("latency", "bandwidth"):
    if moved(same, q) or not near(same[q]["median_ratio"], 1.0, 1e-6):
        bad.append("same network: %s moved %s, median ratio %s" % (q, moved(same, q), same[q]["median_ratio"]))
if any(n["changed"] for n in same["nodes"]):
    bad.append("same network: a node moved")
# Node 4 slower: exactly its 10 cells, and node 4 alone.
want = sorted([("node4", "node%d" % j) for j in range(6) if j != 4] + [("node%d" % i, "node4") for i in range(6) if i != 4])
for q in ("latency", "bandwidth"):
    if moved(slow, q) != want:
        bad.append("slow node 4: %s cells moved %s, want %s" % (q, moved(slow, q), want))
for c in slow["bandwidth"]["changed"]:
    if not c["ratio"] < 0.5:
        bad.append("slow node 4: bandwidth cell %s ratio %.3f, want about 1/3" % ((c["from"], c["to"]), c["ratio"]))
nodes = [n["host"] for n in slow["nodes"] if n["changed"]]
if nodes != ["node4"]:
    bad.append("slow node 4: nodes moved %s" % nodes)
# The whole map 1.5 x slower in L: the median ratio says so, no cell stands out.
if moved(shift, "latency") or not shift["latency"]["median_ratio"] > 1.2:
    bad.append("shift: latency cells moved %s, median ratio %s" % (moved(shift, "latency"), shift["latency"]["median_ratio"]))
if any(n["changed"] for n in shift["nodes"]):
    bad.append("shift: a node moved")
if bad:
    sys.exit("FAIL:\n  " + "\n  ".join(bad))
print("ok: identical maps: nothing moved; node 4 slower: its 10 cells and node 4; 1.5 x L everywhere: median ratio %.3f, no cell" %
      shift["latency"]["median_ratio"])
PY
grep -q "node node4 moved" "$SCRATCH/table.txt" || fail "the table does not name node4"

# Bad input.
HOSTS=node0,node1,node2,node3 measure small "$SCRATCH/base.txt" 2
"$NGX" compare "$SCRATCH/base.json" "$SCRATCH/small.json" >/dev/null 2>"$SCRATCH/err.txt"
rc=$?
[[ $rc == 2 ]] && grep -q "different sizes" "$SCRATCH/err.txt" ||
    fail "maps of 6 and 4 ranks: exit $rc, $(cat "$SCRATCH/err.txt")"
python3 - "$SCRATCH/small.json" "$SCRATCH/nomap.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
run = d.get("runs", [d])[0]
del run["model"]["allpairs"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$NGX" compare "$SCRATCH/small.json" "$SCRATCH/nomap.json" >/dev/null 2>"$SCRATCH/err.txt"
rc=$?
[[ $rc == 2 ]] && grep -q "holds no all-pairs map" "$SCRATCH/err.txt" ||
    fail "a map against a run without one: exit $rc, $(cat "$SCRATCH/err.txt")"
echo PASS
