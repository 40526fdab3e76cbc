#!/bin/bash
# Ready mode of the mpi module (Al-Tawil and Moritz 1998, section 3.1): the receive that
# ready mode keeps pre-posted is re-posted outside the overhead pattern's
# timed receive. Every MPI_Irecv is made 30 us slow (LD_PRELOAD shim,
# slow_irecv.c, built here with mpicc); under mpirun on the vader BTL,
# --mpi-mode ready (blocking) and irsend (non-blocking):
#  - o_r (median) stays below 10 us: the timed receive holds no MPI_Irecv
#    (irsend: o_r is the responder's post, timer21, and the driver's
#    delayed post, timer12, is checked too);
#  - o_r_prepare_us (the untimed prepare_recv after it) is at least 25 us:
#    the re-post happens there.
source "$(dirname "$0")/common.sh"
have_mpi || skip "mpirun, ompi_info or the mpi module missing"
command -v mpicc >/dev/null || skip "no mpicc to build the MPI_Irecv shim"
mpicc -shared -fPIC -O2 -o "$SCRATCH/slow_irecv.so" "$(dirname "$0")/slow_irecv.c" ||
    fail "building the MPI_Irecv shim"

check_ready() {  # MODE CALL
    local mode=$1 call=$2
    ngx_mpirun vader -x LD_PRELOAD="$SCRATCH/slow_irecv.so" -x SLOW_IRECV_US=30 "$NGX" -m mpi --mpi-mode "$mode" \
        -x overhead --overhead-call "$call" -s 1,1Ki -c 100 --warmup 10 -o "$SCRATCH/$mode.json" \
        >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; return 1; }
    python3 - "$SCRATCH/$mode.json" "$mode" "$NGX_SOURCE_ROOT/tests/lib" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
import bounds
doc, mode = json.load(open(sys.argv[1])), sys.argv[2]
half = 30 / 2  # the shim's delay of MPI_Irecv, halved
ok = True
for r in doc["results"]:
    s = f'{mode} {r["size_bytes"]} B'
    ok &= bounds.at_least(f"{s}: half the shim's delay over o_r (us)", half, r["o_r_us"])
    ok &= bounds.at_least(f"{s}: half the shim's delay over timer12 (us)", half, r["timer12_us"])
    ok &= bounds.at_least(f"{s}: the re-post outside o_r (us)", r["o_r_prepare_us"], half)
sys.exit(0 if ok else 1)
PY
}
check_ready ready blocking || fail "ready mode: the re-posted receive is inside the timed o_r"
check_ready irsend nonblocking || fail "irsend: the re-posted receive is inside the timed o_r"
echo PASS
