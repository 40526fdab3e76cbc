#!/bin/bash
# run.sh: 1-byte MPI ping-pong, side by side in one run, with the vader and
# the tcp BTL: a minimal MPI_Send/MPI_Recv program (pingpong.c), NPopenmpi
# (Debian's netpipe-openmpi) and `ngx -m mpi -x pingpong -s 1`. Prints each
# median half round trip and ngx's ratio to the minimal program (goal <= 1.05).
#     bench/mpi/run.sh [BUILD_DIR]       (default: build)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
ngx=$build/ngx
export NGX_MODULE_PATH=$build/modules
command -v mpicc >/dev/null || { echo "mpicc not found (libopenmpi-dev)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/pingpong" "$root/bench/mpi/pingpong.c" || exit 1
iterations=${ITERATIONS:-20000}

mpi() {
    local btl=$1
    shift
    timeout -k 5 120 mpirun --allow-run-as-root -np 2 --bind-to core --mca oob_tcp_if_include lo \
        --mca btl_tcp_if_include lo --mca btl "self,$btl" -x NGX_MODULE_PATH "$@"
}

netpipe_1byte() { # NPopenmpi's first line is 1 byte: "  0:  1 bytes  N times -->  Mbps in  usec"
    (cd "$work" && mpi "$1" NPopenmpi -l 1 -u 1 -o "$work/np.out" >/dev/null 2>&1)
    awk 'NR==1 {printf "%.3f\n", $NF * 1e6}' "$work/np.out"  # seconds -> us
}

ngx_1byte() {
    mpi "$1" "$ngx" -m mpi -x pingpong -s 1 -c "$iterations" --format json > "$work/ngx.json" 2>/dev/null
    python3 "$root/bench/report.py" ngx-median "$work/ngx.json" 1
}

printf '%-6s %12s %12s %12s %10s\n' btl minimal_us NPopenmpi_us ngx_us ngx/minimal
for btl in vader tcp; do
    minimal=$(mpi "$btl" "$work/pingpong" "$iterations" 1)
    netpipe=$(netpipe_1byte "$btl")
    ours=$(ngx_1byte "$btl")
    ratio=$(python3 -c "print(f'{$ours / $minimal:.3f}')")
    printf '%-6s %12.3f %12s %12.3f %10s\n' "$btl" "$minimal" "${netpipe:-?}" "$ours" "$ratio"
done
