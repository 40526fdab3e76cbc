#!/usr/bin/env bash
# allpairs over the mpi module (per-peer links, ABI 1.5) with P = 5 ranks
# under mpirun: every ordered pair measured in shift rounds (real time: only
# that each cell is a positive number, no value), the rounds all done; and
# --mpi-mode ready, which pre-posts its receive from one peer, refused with
# exit 2 naming the mode.
source "$(dirname "$0")/common.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (install openmpi-bin)"; exit 77; }
[[ -e $NGX_MODULE_PATH/mpi/ngx_mpi.so || -e $NGX_MODULE_PATH/ngx_mpi.so ]] ||
    { echo "SKIP: the mpi module was not built (MPI not found at configure time)"; exit 77; }
OUT=$SCRATCH/allpairs.json
layouts_mpirun 5 "$NGX" -m mpi -x allpairs -s 8,16Ki -c 20 --allpairs-host-of n0,n1,n2,n3,n4 -o "$OUT" \
    > "$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "the run failed"; }
python3 - "$OUT" <<'PY' || exit 1
import json, math, sys
d = json.load(open(sys.argv[1]))
run = d.get("runs", [d])[0]
if run["status"] != "complete":
    sys.exit("FAIL: status %s: %s" % (run["status"], run.get("error")))
a = run["model"]["allpairs"]
for name in ("latency_us", "bandwidth_MBps"):
    m = a[name]
    cells = [m[i][j] for i in range(5) for j in range(5) if i != j]
    if len(m) != 5 or any(v is None or not math.isfinite(v) or v <= 0 for v in cells):
        sys.exit("FAIL: %s has missing or non-positive cells: %s" % (name, m))
if a["rounds_done"] != 4 or a["layout"] != "shift":
    sys.exit("FAIL: %s of 4 shift rounds done (layout %s)" % (a["rounds_done"], a["layout"]))
print("ok: mpi, P = 5: 20 cells, latency median %.2f us" % sorted(
    a["latency_us"][i][j] for i in range(5) for j in range(5) if i != j)[10])
PY
layouts_mpirun 3 "$NGX" -m mpi --mpi-mode ready -x allpairs -c 5 > "$SCRATCH/ready.txt" 2>&1
rc=$?
[[ $rc -eq 2 ]] || { cat "$SCRATCH/ready.txt"; fail "--mpi-mode ready with allpairs: exit $rc, expected 2"; }
grep -q "mpi-mode ready and irsend pre-post a receive from one peer" "$SCRATCH/ready.txt" ||
    { cat "$SCRATCH/ready.txt"; fail "the refusal of ready mode does not say why"; }
echo "ok: --mpi-mode ready refused with exit 2"
