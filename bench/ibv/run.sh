#!/bin/bash
# bench/ibv: inside a SoftRoCE guest (or directly on a host with an RDMA
# device), ngx's 1-byte ping-pong over ibv next to perftest's ib_send_lat in
# the same run; prints both medians and their ratio. A benchmark, not a test:
# rxe under TCG is slow and noisy, so only the ratio means something.
#
#     bench/ibv/run.sh [BUILD_DIR]          (default: build)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-${NGX_BUILD_ROOT:-$root/build}}" && pwd)
export NGX_SOURCE_ROOT=$root NGX_BUILD_ROOT=$build NGX=$build/ngx NGX_MODULE_PATH=$build/modules
[ -x "$NGX" ] || { echo "bench/ibv: no ngx in $build: build it first (meson setup $build && ninja -C $build)"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
"$root/tests/softroce/softroce.sh" "$here/bench.list" | tee "$log" || rc=$?
echo
grep -a 'bench-ibv:' "$log" | tr -d '\r' || echo "bench/ibv: no result (softroce.sh exit $rc)"
exit $rc
