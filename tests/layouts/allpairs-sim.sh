#!/usr/bin/env bash
# allpairs over sim in virtual time with a per-link table (--sim-links): the
# latency and bandwidth matrices recover the table within 3% and the verdict
# names exactly the one slow node (L and G three times the others') and its
# links. P = 5 and 7 run under mpirun (odd P: a rank idles in some phases), P = 6
# as 3 local pairs; with "quiet" the one-pair-at-a-time baseline instead of
# shift rounds (in virtual time it must find the same matrices).
#     allpairs-sim.sh P [quiet]
source "$(dirname "$0")/common.sh"
P=$1
MODE=${2:-shift}
SLOW=$((P - 2))
LINKS=$SCRATCH/links.txt
OUT=$SCRATCH/allpairs.json
CSV=$SCRATCH/allpairs.csv
HOSTS=$(python3 -c "print(','.join('node%d' % i for i in range($P)))")

# Every ordered pair its own L (5..10 us); the slow node's links L x 3, G x 3.
python3 - "$P" "$SLOW" > "$LINKS" <<'PY'
import sys
P, slow = int(sys.argv[1]), int(sys.argv[2])
print("# FROM TO L(us) G(us/byte)")
for i in range(P):
    for j in range(P):
        if i != j:
            L, G = 5 + 0.5 * i + 0.25 * j, 0.001 + 0.0001 * ((i + 2 * j) % 3)
            if slow in (i, j):
                L, G = 3 * L, 3 * G
            print(i, j, L, G)
PY

ARGS=(-m sim --sim-clock virtual --sim-sleep 20 --sim-links "$LINKS" -x allpairs -s 1,64Ki -c 20 --warmup 2
      --host-of "$HOSTS" --allpairs-csv "$CSV" -o "$OUT")
[[ $MODE == quiet ]] && ARGS+=(--allpairs-quiet-baseline yes)
if (( P % 2 == 1 )); then
    command -v mpirun >/dev/null || skip "odd P needs mpirun (install openmpi-bin)"
    layouts_mpirun "$P" "$NGX" "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "the run failed"; }
else
    ngx_deadline 60 --pairs $((P / 2)) "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 ||
        { cat "$SCRATCH/out.txt"; fail "the run failed"; }
fi

python3 - "$OUT" "$LINKS" "$P" "$SLOW" "$CSV" <<'PY' || exit 1
import csv, json, sys
out, links, P, slow, csv_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
d = json.load(open(out))
run = d.get("runs", [d])[0]
if run["status"] != "complete":
    sys.exit("FAIL: run status %s: %s" % (run["status"], run.get("error")))
a = run["model"]["allpairs"]
L, G = {}, {}
for line in open(links):
    if line.startswith("#"):
        continue
    i, j, l, g = line.split()
    L[int(i), int(j)], G[int(i), int(j)] = float(l), float(g)
o_s = o_r = 1.0; gap = 2.0; s = 65536  # sim defaults, and the last size of -s
bad = []
def check(what, i, j, got, want):
    if got is None or abs(got - want) > 0.03 * want:
        bad.append("%s[%d][%d] = %s, the table gives %.4f" % (what, i, j, got, want))
for i in range(P):
    for j in range(P):
        if i == j:
            if a["latency_us"][i][j] is not None:
                bad.append("the diagonal holds a value")
            continue
        # a 1-byte ping-pong: o_s + o_r + (L_ij + L_ji) / 2; a stream: s / (g + (s-1) G_ij)
        check("latency_us", i, j, a["latency_us"][i][j], o_s + o_r + (L[i, j] + L[j, i]) / 2)
        check("bandwidth_MBps", i, j, a["bandwidth_MBps"][i][j], s / (gap + (s - 1) * G[i, j]))
if bad:
    sys.exit("FAIL: the matrices do not recover the table:\n  " + "\n  ".join(bad[:10]))
hosts = ["node%d" % i for i in range(P)]
if a["hosts"] != hosts:
    sys.exit("FAIL: hosts %s, expected %s" % (a["hosts"], hosts))
if a["outliers"]["nodes"] != [hosts[slow]]:
    sys.exit("FAIL: outlier nodes %s, expected exactly [%s]" % (a["outliers"]["nodes"], hosts[slow]))
want_links = sorted([[hosts[i], hosts[j]] for i in range(P) for j in range(P) if i != j and slow in (i, j)])
if sorted(a["outliers"]["links"]) != want_links:
    sys.exit("FAIL: outlier links %s, expected those of %s only" % (a["outliers"]["links"], hosts[slow]))
if a["rounds_done"] != a["rounds"]:
    sys.exit("FAIL: %s of %s rounds done" % (a["rounds_done"], a["rounds"]))
rows = list(csv.DictReader(open(csv_path)))
if len(rows) != P * (P - 1) or any(r["latency_us"] == "" for r in rows):
    sys.exit("FAIL: the CSV has %d cells (or empty ones), expected %d" % (len(rows), P * (P - 1)))
print("ok: P = %d (%s, layout %s): %d cells within 3%% of the table, outlier %s and its %d links" %
      (P, "mpirun" if P % 2 else "local", a["layout"], P * (P - 1), hosts[slow], len(want_links)))
PY

# The heat maps of `ngx plot` (P = 6 only, to keep the suite fast): both
# matrices drawn, named by their gids in the SVG.
[[ $P == 6 && $MODE == shift ]] || exit 0
timeout 120 "$NGX" plot "$OUT" -o "$SCRATCH/map.svg" > "$SCRATCH/plot.txt" 2>&1
rc=$?
# ngx plot exits 1 when python or matplotlib is missing: nothing to check then.
[[ $rc -eq 1 ]] && { echo "note: ngx plot cannot run here: $(cat "$SCRATCH/plot.txt")"; exit 0; }
[[ $rc -eq 0 ]] || { cat "$SCRATCH/plot.txt"; fail "ngx plot failed on the allpairs run (exit $rc)"; }
for gid in allpairs:latency_us allpairs:bandwidth_MBps; do
    grep -q "id=\"$gid\"" "$SCRATCH/map.svg" || fail "the heat map has no $gid"
done
echo "ok: ngx plot drew both heat maps"
