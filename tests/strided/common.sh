# common.sh: sourced by the scripts of suite 'strided'.
#     run_ngx MODE [NGX_ARGS...]   MODE: tcp (forked pair), mpi-vader, mpi-tcp (mpirun -np 2)
#     run_np N BTL [NGX_ARGS...]   mpirun -np N with the mpi module (or $MODULE)
# mpirun runs under flock /tmp/ngx-net.lock; missing mpirun or mpi module: exit 77.
# The ranks yield while they wait (mpi_yield_when_idle): two ranks that spin
# on two shared cores under load lose whole time slices to each other (every
# one of 100 samples of vader's 4 KiB took 3 ms at load 20 without it).
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_ngx
make_scratch

need_mpi() {
    need_mpirun
    need_mpi_module
}

run_np() {
    local np=$1 btl=$2
    shift 2
    flock /tmp/ngx-net.lock timeout -k 5 240 "${MPIRUN_LOCAL[@]}" --mca btl_tcp_if_include lo --mca btl "self,$btl" --mca mpi_yield_when_idle 1 \
        -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -np "$np" "$NGX" -m "${MODULE:-mpi}" "$@"
}

run_ngx() {
    local mode=$1
    shift
    case $mode in
        tcp) ngx_deadline 240 -m tcp --tcp-progress poll "$@" ;; # polling: no wake-ups in the times
        mpi-vader) run_np 2 vader "$@" ;;
        mpi-tcp) run_np 2 tcp "$@" ;;
        *) fail "unknown mode $mode" ;;
    esac
}

# py FILE EXPRESSION: evaluates EXPRESSION with d = the JSON document, rows(stride) its results.
py() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def rows(stride=None):
    return [r for r in d["results"] if stride is None or r.get("stride") == stride]
def at(size, stride, key):
    return [r[key] for r in rows(stride) if r["size_bytes"] == size][0]
print(eval(sys.argv[2]))
PY
}
