# common.sh: sourced by the tests of suite 'nodecomm'. mpirun as root on
# loopback (the flags of tests/mpi/common.sh), serialised with the other
# helpers' network and MPI runs through /tmp/ngx-net.lock:
#     nc_mpirun NP [MPIRUN_OPTION...] -- ngx ARG...
set -u
fail() { echo "FAIL: $*"; exit 1; }
[[ -n ${NGX:-} && -x $NGX ]] || { echo "SKIP: \$NGX is not set (run through meson test)"; exit 77; }
MPI_TIMEOUT=${MPI_TIMEOUT:-240}
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

need_mpirun() {
    command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (install openmpi-bin)"; exit 77; }
}

nc_mpirun() {
    local np=$1
    shift
    local -a extra=()
    while [[ $# -gt 0 && $1 != -- ]]; do extra+=("$1"); shift; done
    shift
    flock /tmp/ngx-net.lock timeout -k 5 "$MPI_TIMEOUT" mpirun --allow-run-as-root --bind-to none --oversubscribe \
        --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo --mca btl self,vader,tcp \
        --mca mpi_yield_when_idle 1 -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -np "$np" "${extra[@]}" "$@"
}

# Python on a saved run: nc_py FILE 'code using d (document), run (its first run), ctx (context), m (model)'.
nc_py() {
    python3 - "$1" "$2" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0] if "runs" in d else d
ctx = d.get("context", d)
m = run.get("model")
exec(sys.argv[2])
PY
}

# nc_two_nodes NEED: two network namespaces ("nodes") joined by the veth pair
# "v" with MTU 9000 (headers under 1% of a frame), holding the helpers'
# network lock, cleaned up at exit; NEED as netns_require takes it (mpi, tbf).
nc_two_nodes() {
    source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
    netns_require "$1"
    NETNS_NO_TRAP=1 netns_init
    trap 'netns_cleanup; rm -rf "$SCRATCH"' EXIT
    exec 9>/tmp/ngx-net.lock
    flock 9
    netns_veth_pair v || fail "veth pair"
    netns_mtu v 9000 || fail "MTU 9000"
}

# nc_complete FILE WHAT: a short run (k = 1, 2 over the sizes 1 B and 1 KiB)
# of rank 0's FILE finished (status complete) with every T(k, n) > 0.
nc_complete() {
    nc_py "$1" "
assert run['status'] == 'complete', run['status']
nc = m['nodecomm']
assert nc['pairs'] == [1, 2] and nc['sizes'] == [1, 1024], nc
assert all(t is not None and t > 0 for row in nc['T_us'] for t in row), nc['T_us']
print('$2: complete, T(k, n) > 0:', nc['T_us'])
" || fail "the JSON of nodecomm over $2"
}
