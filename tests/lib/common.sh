# common.sh: the one shell library of ngx's script tests; every script
# sources it first (a suite's own helpers, tests/<suite>/common.sh, source it
# in turn):
#     source "$(dirname "$0")/../lib/common.sh"
# Exit codes follow meson's: 0 pass, 1 fail, 77 skipped (with the reason on
# stdout), 2 for the harness's own usage errors.
#
#     fail MESSAGE...          FAIL: MESSAGE, plus the tail of $FAIL_STDERR
#                              when that file is set and not empty; exit 1
#     skip REASON...           SKIP: REASON; exit 77
#     ok MESSAGE...            ok: MESSAGE
#     need_ngx                 skip unless $NGX is an executable (meson sets it)
#     need_tool NAME [HINT]    skip unless command NAME exists
#     need_root [WHY]          skip unless run as root
#     need_mpirun              skip unless mpirun exists
#     need_mpi_module          skip unless the mpi module was built
#     make_scratch             SCRATCH: a temporary directory removed at exit
#     ngx_deadline SECS ARG... ngx ARG... killed after SECS (its exit code;
#                              124 or 137 when the deadline ended it)
#     json_field FILE EXPR     prints EXPR evaluated in python3 with d the
#                              JSON document of FILE (e.g. 'd["runs"][0]["status"]')
#     free_port [ADDR]         a TCP port free on ADDR (default 127.0.0.1) now
#     expect_usage WHAT TEXT COMMAND...
#                              COMMAND (bounded to 60 s) exits 2 and its
#                              stderr says TEXT (grep's basic regex); else fail
#     MPIRUN_LOCAL             mpirun as root on this machine's loopback (an array):
#                              "${MPIRUN_LOCAL[@]}" --mca btl self,vader -np 2 PROGRAM
set -u
TESTS_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAIL_STDERR=${FAIL_STDERR:-}

fail() {
    echo "FAIL: $*"
    [[ -n $FAIL_STDERR && -s $FAIL_STDERR ]] && { echo "--- stderr:"; tail -20 "$FAIL_STDERR"; }
    exit 1
}
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }

need_ngx() { [[ -n ${NGX:-} && -x $NGX ]] || skip "\$NGX is not set (run through meson test)"; }
need_tool() { command -v "$1" >/dev/null || skip "$1 is missing${2:+ ($2)}"; }
need_root() { [[ $(id -u) == 0 ]] || skip "needs root${1:+ ($1)}"; }
need_mpirun() { command -v mpirun >/dev/null || skip "mpirun not found (install openmpi-bin)"; }
need_mpi_module() {
    [[ -e ${NGX_MODULE_PATH:-}/mpi/ngx_mpi.so || -e ${NGX_MODULE_PATH:-}/ngx_mpi.so ]] ||
        skip "the mpi module was not built (MPI not found at configure time)"
}

make_scratch() {
    SCRATCH=$(mktemp -d)
    trap 'rm -rf "$SCRATCH"' EXIT
}

ngx_deadline() {
    local secs=$1
    shift
    timeout -k 5 "$secs" "$NGX" "$@"
}

json_field() {
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

free_port() {
    python3 -c 'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' \
        "${1:-127.0.0.1}"
}

expect_usage() {
    local what=$1 text=$2 out err rc
    shift 2
    out=$(mktemp) err=$(mktemp)
    timeout -k 5 60 "$@" >"$out" 2>"$err" </dev/null
    rc=$?
    if [[ $rc != 2 ]]; then
        cat "$out" "$err"
        rm -f "$out" "$err"
        fail "$what: exit $rc, expected 2"
    fi
    if ! grep -q -- "$text" "$err"; then
        cat "$err"
        rm -f "$out" "$err"
        fail "$what: the message does not say '$text'"
    fi
    ok "$what: exit 2, $(grep -v '^$' "$err" | head -1)"
    rm -f "$out" "$err"
}

MPIRUN_LOCAL=(mpirun --allow-run-as-root --bind-to none --oversubscribe --mca oob_tcp_if_include lo)
