# common.sh: sourced by the scripts of suite 'layouts': fail, the skips for
# a missing $NGX or python3, a scratch dir removed on exit, and mpirun as
# root on loopback (the flags of tests/mpi/common.sh).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[[ -n ${NGX:-} && -x $NGX ]] || { echo "SKIP: \$NGX is not set (run through meson test)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# layouts_mpirun NP PROGRAM [ARG...]: P ranks on this machine (odd P needs MPI).
layouts_mpirun() {
    local np=$1
    shift
    timeout -k 5 60 mpirun --allow-run-as-root --bind-to none --oversubscribe \
        --mca oob_tcp_if_include lo --mca btl self,vader -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -np "$np" "$@"
}
