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
have_mpi || { echo "SKIP: mpirun, ompi_info or the mpi module missing"; exit 77; }
command -v mpicc >/dev/null || { echo "SKIP: no mpicc to build the MPI_Irecv shim"; exit 77; }
mpicc -shared -fPIC -O2 -o "$SCRATCH/slow_irecv.so" "$(dirname "$0")/slow_irecv.c" ||
    fail "building the MPI_Irecv shim"

check_ready() {  # MODE CALL
    local mode=$1 call=$2
    ngx_mpirun vader -x LD_PRELOAD="$SCRATCH/slow_irecv.so" -x SLOW_IRECV_US=30 "$NGX" -m mpi --mpi-mode "$mode" \
        -x overhead --overhead-call "$call" -s 1,1Ki -c 100 --warmup 10 -o "$SCRATCH/$mode.json" \
        >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; return 1; }
    python3 - "$SCRATCH/$mode.json" "$mode" <<'PY'
import json, sys
doc, mode = json.load(open(sys.argv[1])), sys.argv[2]
ok = True
for r in doc["results"]:
    good = r["o_r_us"] < 10 and r["timer12_us"] < 10 and r["o_r_prepare_us"] >= 25
    ok &= good
    print(f'{mode} {r["size_bytes"]} B: o_r {r["o_r_us"]:.2f} us, timer12 {r["timer12_us"]:.2f} us (< 10), re-post outside it '
          f'{r["o_r_prepare_us"]:.2f} us (>= 25){"" if good else "  <-- FAILS"}')
sys.exit(0 if ok else 1)
PY
}
twice check_ready ready blocking || fail "ready mode: the re-posted receive is inside the timed o_r"
twice check_ready irsend nonblocking || fail "irsend: the re-posted receive is inside the timed o_r"
echo PASS
