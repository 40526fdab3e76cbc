#!/bin/bash
# bench/ibv: inside a SoftRoCE guest (or directly on a host with an RDMA
# device), through tests/softroce/softroce.sh, one of two comparisons:
#  - perftest (default, bench.list): ngx's 1-byte ping-pong over ibv next to
#    perftest's ib_send_lat in the same run; prints both medians and their
#    ratio;
#  - mpi-loggp (mpi-loggp.list): LogGP of MPI over verbs next to raw verbs
#    (`mpirun -np 2 ngx -m ibv,mpi -x loggp`), each parameter's difference;
#  - bw (bw.list): ngx -m ibv -x bw (write mode, put, send mode, get) next to
#    ib_write_bw, ib_send_bw and ib_read_bw, and MPI over UCX rc_verbs next to
#    raw verbs, per size the paired ratio over alternated rounds.
# Benchmarks, not tests: rxe under TCG is slow and noisy, so only ratios and
# differences within one run mean something.
#
#     bench/ibv/run.sh [perftest|mpi-loggp|bw] [BUILD_DIR]    (default: perftest build)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
list=$here/bench.list
case ${1:-} in
    perftest) shift ;;
    mpi-loggp) list=$here/mpi-loggp.list; shift ;;
    bw) list=$here/bw.list; shift ;;
esac
build=$(cd "${1:-${NGX_BUILD_ROOT:-$root/build}}" && pwd)
export NGX_SOURCE_ROOT=$root NGX_BUILD_ROOT=$build NGX=$build/ngx NGX_MODULE_PATH=$build/modules
[ -x "$NGX" ] || { echo "bench/ibv: no ngx in $build: build it first (meson setup $build && ninja -C $build)"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
"$root/tests/softroce/softroce.sh" "$list" | tee "$log" || rc=$?
echo
grep -a 'bench-ibv:' "$log" | tr -d '\r' || echo "bench/ibv: no result (softroce.sh exit $rc)"
exit $rc
