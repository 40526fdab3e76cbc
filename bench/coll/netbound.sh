#!/usr/bin/env bash
# bench/coll/netbound.sh: the network-bound collectives check in full,
# on an emulated cluster of 8 network namespaces whose
# NICs never burst (tbf with a peak rate 1% above the rate), with ranks that
# sleep while they wait (libngx-idle.so), Open MPI's own MPI_Bcast,
# MPI_Allreduce, MPI_Allgather and MPI_Alltoall of 4 KiB..1 MiB over P = 4
# and 8 ranks, measured by the coll pattern and predicted (Open MPI's tuned
# choice, `ngx predict --algorithm auto`'s costing) from a LogGP fit between
# two nodes; every size a launch of its own, so that every row carries the
# CPU use of the run that measured it. The work is tests/coll/mpi-cluster.sh
# (its `netbound` preset, widened here); this script sets the full table,
# records the load average before and after, and keeps the output and the
# JSON files. Root (network namespaces). About 10 minutes at 30 Mbit/s.
# Results: bench/results/coll-netbound.md.
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
source "$HERE/../lib.sh"

usage() {
    cat <<'USAGE'
usage: bench/coll/netbound.sh [options] [BUILD_DIR]

  BUILD_DIR           meson build directory with ngx (default ./build)
  --rate MBIT         NIC rate in Mbit/s (default 30)
  -P LIST             rank counts, space- or comma-separated (default 4,8; at most 8)
  -s, --sizes LIST    collective sizes, comma-separated (default 4Ki,8Ki,...,1Mi)
  --ops LIST          of bcast, allreduce, allgather, alltoall (default all four)
  -o, --output DIR    keep the table (netbound.txt) and the JSON files there (default: a new temp dir)
  -h, --help          this help
USAGE
}

BUILD=./build RATE=30 PS=4,8 SIZES=4Ki,8Ki,16Ki,32Ki,64Ki,128Ki,256Ki,512Ki,1Mi OPS=bcast,allreduce,allgather,alltoall OUT=""
need_arg() { [[ $# -ge 2 && -n $2 ]] || { echo "coll/netbound.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --rate) need_arg "$@"; RATE=$2; shift 2 ;;
        -P) need_arg "$@"; PS=$2; shift 2 ;;
        -s|--sizes) need_arg "$@"; SIZES=$2; shift 2 ;;
        --ops) need_arg "$@"; OPS=$2; shift 2 ;;
        -o|--output) need_arg "$@"; OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "coll/netbound.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) BUILD=$1; shift ;;
    esac
done
find_ngx coll/netbound.sh "$BUILD"
require_uints coll/netbound.sh RATE
((RATE >= 5 && RATE <= 1000)) || { echo "coll/netbound.sh: --rate $RATE: expected 5..1000 Mbit/s" >&2; exit 2; }
PS=${PS//,/ }
for P in $PS; do
    [[ $P =~ ^[0-9]+$ ]] && ((P >= 2 && P <= 8)) || { echo "coll/netbound.sh: -P: '$P' is not 2..8" >&2; exit 2; }
done
[[ $SIZES =~ ^[0-9]+(Ki|Mi)?(,[0-9]+(Ki|Mi)?)*$ ]] || { echo "coll/netbound.sh: --sizes '$SIZES': expected e.g. 4Ki,64Ki,1Mi" >&2; exit 2; }
OPS=${OPS//,/ }
for op in $OPS; do
    [[ $op =~ ^(bcast|allreduce|allgather|alltoall)$ ]] || { echo "coll/netbound.sh: --ops: unknown operation '$op'" >&2; exit 2; }
done
[[ $(id -u) == 0 ]] || { echo "coll/netbound.sh: network namespaces need root" >&2; exit 2; }
BUILD_DIR=$(dirname "$NGX")
[[ -f $BUILD_DIR/tools/idle/libngx-idle.so ]] || { echo "coll/netbound.sh: $BUILD_DIR/tools/idle/libngx-idle.so is not built" >&2; exit 2; }
[[ -n $OUT ]] || OUT=$(mktemp -d)
mkdir -p "$OUT" || exit 2

{
    echo "# bench/coll/netbound.sh --rate $RATE -P ${PS// /,} -s $SIZES --ops ${OPS// /,}"
    echo "# start $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
} | tee "$OUT/netbound.txt"
# The fit covers the messages from Rabenseifner's eighth of 8 KiB up to 128
# KiB; beyond, the rate-limited line is extrapolated (a fit up to 512 KiB
# came out with a degenerate rendezvous range at 30 Mbit/s: L -20 ms, o_s
# 18.8 ms; bench/results/coll-netbound.md).
NGX_TEST_CLUSTER_NODES=8 NGX_TEST_CLUSTER_P=$PS NGX_TEST_CLUSTER_MBIT=$RATE NGX_TEST_CLUSTER_SIZES=$SIZES \
    NGX_TEST_CLUSTER_OPS=$OPS NGX_TEST_CLUSTER_PER_SIZE=1 NGX_TEST_CLUSTER_KEEP=$OUT \
    NGX_TEST_CLUSTER_FIT_SIZES=${NGX_TEST_CLUSTER_FIT_SIZES:-1Ki,2Ki,4Ki,8Ki,16Ki,32Ki,64Ki,128Ki} \
    NGX=$NGX NGX_SOURCE_ROOT=$ROOT NGX_BUILD_ROOT=$BUILD_DIR NGX_MODULE_PATH=$BUILD_DIR/modules \
    NGX_PATTERN_PATH=$BUILD_DIR/patterns bash "$ROOT/tests/coll/mpi-cluster.sh" netbound 2>&1 | tee -a "$OUT/netbound.txt"
rc=${PIPESTATUS[0]}
echo "# end $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg); output in $OUT" |
    tee -a "$OUT/netbound.txt"
exit "$rc"
