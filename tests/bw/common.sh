# common.sh: sourced by the scripts of suite 'bw': fail, the skips for a
# missing $NGX or python3, a scratch dir removed on exit, bw_run, and
# need_mpi and mpi_run for the scripts under mpirun.
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_ngx
need_tool python3
make_scratch
# windows.py, the closed form of a window over the sim, for the tests' python.
export BW_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# bw_run OUT_TEXT NGX_ARGS...: one bounded run of ngx; its exit code.
bw_run() {
    local out=$1
    shift
    ngx_deadline 90 "$@" >"$out" 2>&1
}

# need_mpi: skips (exit 77) without mpirun or the mpi module.
need_mpi() {
    need_mpirun
    "$NGX" --list-modules 2>/dev/null | grep -qw mpi || [[ -e ${NGX_MODULE_PATH:-}/ngx_mpi.so ]] ||
        skip "the mpi module is not built"
}

# mpi_run NP OUT NGX_ARGS...: one bounded run of ngx under mpirun on this node; its exit code.
mpi_run() {
    local np=$1 out=$2
    shift 2
    timeout -k 5 90 "${MPIRUN_LOCAL[@]}" \
        --mca btl self,vader -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -np "$np" "$NGX" "$@" >"$out" 2>&1
}
