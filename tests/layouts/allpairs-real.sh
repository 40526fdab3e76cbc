#!/usr/bin/env bash
# allpairs in real time over a module with per-peer links (ABI 1.5: tcp, udp, mpi): every
# ordered pair measured in shift rounds, each cell a positive number (real
# time: no values asserted), the rounds all done. A bandwidth cell may be
# null only when the run says the CPUs set its time (cpu_use.cpu_bound: more
# ranks than cores, or ranks waiting for a CPU) and counts it unresolved. Odd P and the mpi module
# run under mpirun, even P with tcp as local pairs (the forked bootstrap);
# with mpi also --mpi-mode ready, which pre-posts its receive from one peer,
# refused with exit 2 naming the mode.
#     allpairs-real.sh MODULE P
source "$(dirname "$0")/common.sh"
MODULE=$1
P=$2
OUT=$SCRATCH/allpairs.json
ARGS=(-m "$MODULE" -x allpairs -s 8,16Ki -c 20 -o "$OUT")
if [[ $MODULE == mpi ]] || (( P % 2 == 1 )); then
    command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (install openmpi-bin)"; exit 77; }
    if [[ $MODULE == mpi ]]; then
        [[ -e $NGX_MODULE_PATH/mpi/ngx_mpi.so || -e $NGX_MODULE_PATH/ngx_mpi.so ]] ||
            { echo "SKIP: the mpi module was not built (MPI not found at configure time)"; exit 77; }
    fi
    layouts_mpirun "$P" "$NGX" "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "the run failed"; }
else
    timeout -k 5 60 "$NGX" --pairs $((P / 2)) "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 ||
        { cat "$SCRATCH/out.txt"; fail "the run failed"; }
fi
python3 - "$OUT" "$P" "$MODULE" <<'PY' || exit 1
import json, math, sys
d = json.load(open(sys.argv[1]))
P, module = int(sys.argv[2]), sys.argv[3]
run = d.get("runs", [d])[0]
if run["status"] != "complete":
    sys.exit("FAIL: status %s: %s" % (run["status"], run.get("error")))
a = run["model"]["allpairs"]
cpu_bound = run.get("cpu_use", {}).get("cpu_bound", False)
for name in ("latency_us", "bandwidth_MBps"):
    m = a[name]
    cells = [m[i][j] for i in range(P) for j in range(P) if i != j]
    nulls = sum(v is None for v in cells)
    if len(m) != P or any(v is not None and (not math.isfinite(v) or v <= 0) for v in cells):
        sys.exit("FAIL: %s has non-positive cells: %s" % (name, m))
    if nulls and (name == "latency_us" or not cpu_bound or nulls != a["unresolved_bandwidth_cells"]):
        sys.exit("FAIL: %s has %d missing cells (cpu_bound %s, unresolved %d): %s"
                 % (name, nulls, cpu_bound, a["unresolved_bandwidth_cells"], m))
    if nulls:
        print("ok: %d of %d bandwidth cells unresolved, on a run the CPUs set" % (nulls, len(cells)))
if a["rounds_done"] != P - 1 or a["layout"] != "shift":
    sys.exit("FAIL: %s of %d shift rounds done (layout %s)" % (a["rounds_done"], P - 1, a["layout"]))
print("ok: %s, P = %d: %d cells measured in %d shift rounds" % (module, P, P * (P - 1), P - 1))
PY
[[ $MODULE == mpi ]] || exit 0
layouts_mpirun 3 "$NGX" -m mpi --mpi-mode ready -x allpairs -c 5 > "$SCRATCH/ready.txt" 2>&1
rc=$?
[[ $rc -eq 2 ]] || { cat "$SCRATCH/ready.txt"; fail "--mpi-mode ready with allpairs: exit $rc, expected 2"; }
grep -q "mpi-mode ready and irsend pre-post a receive from one peer" "$SCRATCH/ready.txt" ||
    { cat "$SCRATCH/ready.txt"; fail "the refusal of ready mode does not say why"; }
echo "ok: --mpi-mode ready refused with exit 2"
