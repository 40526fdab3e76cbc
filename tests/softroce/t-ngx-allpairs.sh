#!/bin/sh
# Per-peer queue pairs (module ABI 1.5 open_link/select_peer) on the RDMA
# device: `ngx --pairs 2 -m ibv -x allpairs` forks 4 ranks and every rank
# connects one RC queue pair per peer as the shift rounds first need it;
# `-x coll` runs ngx's own allreduce (binomial, recursive doubling, ring,
# Rabenseifner: exchanges with isend/irecv, whose requests stay with the
# queue pair they were posted on) over the same links. Asserts exit 0, status complete, every ordered
# pair's latency measured (> 0) in P - 1 = 3 rounds, every bandwidth cell
# given > 0 (an empty one is a timing relation under TCG, printed), and every
# collective row measured. No timing is asserted (TCG). Exits 77 when ngx or
# its ibv module is missing.
[ -x "${NGX:-}" ] || { echo "no ngx binary at '${NGX:-}'"; exit 77; }
"$NGX" --list-modules 2>/dev/null | grep -q "^ *ibv " || { echo "ngx has no module ibv"; exit 77; }
dir=${SOFTROCE_RUN_DIR:-.}
set -- --pairs 2 -m ibv -x allpairs -s 8,16Ki -c 5 --warmup 1 --timeout 30 -o "$dir/allpairs-ibv.json"
echo "+ ngx $*"
"$NGX" "$@" || { echo "FAIL: ngx allpairs exited $?"; exit 1; }
set -- --pairs 2 -m ibv -x coll --coll-op allreduce -s 1Ki,64Ki -c 5 --warmup 1 --timeout 30 -o "$dir/coll-ibv.json"
echo "+ ngx $*"
"$NGX" "$@" || { echo "FAIL: ngx coll exited $?"; exit 1; }
exec python3 - "$dir/allpairs-ibv.json" "$dir/coll-ibv.json" <<'PY'
import json, math, sys
problems = []
def run_of(path):
    doc = json.load(open(path))
    run = (doc.get("runs") or [doc])[0]
    if run["status"] != "complete":
        problems.append("%s: status %r" % (path, run["status"]))
    return run
a = run_of(sys.argv[1])["model"]["allpairs"]
P = 4
cells = [a["latency_us"][i][j] for i in range(P) for j in range(P) if i != j]
if any(v is None or not math.isfinite(v) or v <= 0 for v in cells):
    problems.append("allpairs latency_us has missing or non-positive cells: %r" % a["latency_us"])
# A bandwidth cell is (W - 1) s / (t_W - t_1) of median stream times: under
# TCG on a busy host t_1's median can exceed t_W's, and the cell is left
# empty (a timing relation, not checked here); a cell given must be > 0.
bw = [a["bandwidth_MBps"][i][j] for i in range(P) for j in range(P) if i != j]
if any(v is not None and (not math.isfinite(v) or v <= 0) for v in bw):
    problems.append("allpairs bandwidth_MBps has non-positive cells: %r" % a["bandwidth_MBps"])
empty = sum(v is None for v in bw)
if empty:
    print("note (TCG timing, not checked): %d of %d bandwidth cells empty (t_W not above t_1)" % (empty, len(bw)))
if a["rounds_done"] != P - 1:
    problems.append("allpairs: %r of %d rounds done" % (a["rounds_done"], P - 1))
coll = run_of(sys.argv[2])
rows = coll["model"]["rows"]
if len(rows) != 8 or not all(r.get("median_us") and r["median_us"] > 0 for r in rows):
    problems.append("coll: expected 8 measured rows (4 algorithms x 2 sizes), got %r" % rows)
for p in problems:
    print("FAIL: per-peer queue pairs: " + p)
if not problems:
    print("PASS: per-peer queue pairs: 12 allpairs latency cells in 3 rounds; allreduce rows %s" %
          ", ".join("%s %d B %.0f us" % (r["algorithm"], r["bytes"], r["median_us"]) for r in rows))
sys.exit(1 if problems else 0)
PY
