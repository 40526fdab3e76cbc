# common.sh: sourced by the scripts of suite 'coll': fail, the skips for a
# missing $NGX or python3, a scratch dir removed on exit, and P ranks started
# as the layouts tests start them (even P: local pairs; odd P: mpirun).
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_ngx
need_tool python3
make_scratch

# coll_run P OUT_TEXT NGX_ARGS...: P ranks of ngx; the exit code of the run.
coll_run() {
    local np=$1 out=$2
    shift 2
    if ((np % 2 == 1)); then
        timeout -k 5 60 "${MPIRUN_LOCAL[@]}" --mca btl self,vader -x NGX_MODULE_PATH -x NGX_PATTERN_PATH \
            -np "$np" "$NGX" "$@" >"$out" 2>&1
    else
        ngx_deadline 60 --pairs $((np / 2)) "$@" >"$out" 2>&1
    fi
}

# coll_cluster_start: what the emulated-cluster scripts need (root, tbf,
# mpirun, the mpi module) or skip; the namespaces and SCRATCH go at exit.
coll_cluster_start() {
    NETNS_NO_TRAP=1 netns_start tbf mpi
    "$NGX" --list-modules 2>/dev/null | grep -qw mpi || skip "the mpi module is not built"
    trap 'netns_cleanup; rm -rf "$SCRATCH"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

