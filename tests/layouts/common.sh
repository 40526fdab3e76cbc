# common.sh: sourced by the scripts of suite 'layouts': fail, the skips for
# a missing $NGX or python3, a scratch dir removed on exit, and mpirun as
# root on loopback (the flags of tests/mpi/common.sh).
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_ngx
need_tool python3
make_scratch

# layouts_mpirun NP PROGRAM [ARG...]: P ranks on this machine (odd P needs MPI).
layouts_mpirun() {
    local np=$1
    shift
    timeout -k 5 60 "${MPIRUN_LOCAL[@]}" --mca btl self,vader -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -np "$np" "$@"
}
