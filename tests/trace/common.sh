# common.sh: sourced by the tests of suite 'trace'. Arguments of every test
# (tests/trace/meson.build): the ngx-trace-run launcher, ngx-trace-dump and
# the ring program. Runs mpirun as root on loopback with the flags of
# tests/mpi/common.sh, the tracer preloaded through ngx-trace-run:
#     trace_mpirun DIR NP [NGX-TRACE-RUN OPTION...] -- PROGRAM [ARG...]
# Exits 77 (skipped) with a reason when mpirun is missing.
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_mpirun
TRACE_RUN=$1 TRACE_DUMP=$2 RING=$3
shift 3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI_TIMEOUT=${MPI_TIMEOUT:-90}
make_scratch

trace_mpirun() {
    local dir=$1 np=$2
    shift 2
    local -a opts=()
    while [[ $# -gt 0 && $1 != -- ]]; do opts+=("$1"); shift; done
    shift
    flock /tmp/ngx-net.lock timeout -k 5 "$MPI_TIMEOUT" bash "$TRACE_RUN" -o "$dir" "${opts[@]}" -- \
        mpirun --bind-to none --oversubscribe --mca oob_tcp_if_include lo --mca btl self,vader -np "$np" "$@"
}
