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
#     netns_start NEED...      source tests/net/netns.sh, skip unless its NEEDs
#                              are met (netns_require: tbf, probe, mpi, tun),
#                              start a run whose namespaces go at exit
#                              (netns_init; NETNS_NO_TRAP=1: the caller's trap)
#     ngx_deadline SECS ARG... ngx ARG... killed after SECS (its exit code;
#                              124 or 137 when the deadline ended it); a
#                              function, so not behind `ip netns exec`, and
#                              in the background $! is not ngx's parent
#     json_field FILE EXPR     prints EXPR evaluated in python3 with d the
#                              JSON document of FILE (e.g. 'd["runs"][0]["status"]')
#     free_port [ADDR]         a TCP port free on ADDR (default 127.0.0.1) now
#     expect_usage [-E] [-i] WHAT TEXT COMMAND...
#                              COMMAND (bounded to $USAGE_DEADLINE s, default
#                              60; a shell function brings its own deadline)
#                              exits 2 and its stderr says TEXT (a basic
#                              regex; -E extended, -i any case); else fail
#     expect_ngx_usage [-E] [-i] WHAT TEXT ARG...
#                              the same for ngx ARG...
#     MPIRUN_LOCAL             mpirun as root on this machine's loopback (an array):
#                              "${MPIRUN_LOCAL[@]}" --mca btl self,vader -np 2 PROGRAM
set -u
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

netns_start() {
    source "$(dirname "${BASH_SOURCE[0]}")/../net/netns.sh" || fail "cannot source tests/net/netns.sh"
    netns_require "$@"
    netns_init || fail "netns_init"
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

# cpu_bound RUN.json...: true when any run says the CPUs, not the transport,
# set its time (cpu_use.cpu_bound: its ranks waited for a CPU, or outnumber
# the free cores); a real-time bound is then not judged on that run.
cpu_bound() {
    python3 -c 'import json, sys
sys.exit(0 if any(json.load(open(f)).get("cpu_use", {}).get("cpu_bound") for f in sys.argv[1:]) else 1)' "$@"
}

free_port() {
    python3 -c 'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' \
        "${1:-127.0.0.1}"
}

expect_usage() {
    local flags=() what text out err rc
    while [[ $1 == -E || $1 == -i ]]; do
        flags+=("$1")
        shift
    done
    what=$1 text=$2
    shift 2
    out=$(mktemp) err=$(mktemp)
    if declare -F "$1" >/dev/null; then
        "$@" >"$out" 2>"$err" </dev/null # a helper of the script's, with its own deadline
    else
        timeout -k 5 "${USAGE_DEADLINE:-60}" "$@" >"$out" 2>"$err" </dev/null
    fi
    rc=$?
    if [[ $rc != 2 ]]; then
        cat "$out" "$err"
        rm -f "$out" "$err"
        fail "$what: exit $rc, expected 2"
    fi
    if ! grep -q "${flags[@]}" -- "$text" "$err"; then
        cat "$err"
        rm -f "$out" "$err"
        fail "$what: the message does not say '$text'"
    fi
    ok "$what: exit 2, $(grep -m1 "${flags[@]}" -- "$text" "$err")"
    rm -f "$out" "$err"
}

expect_ngx_usage() {
    local flags=()
    while [[ $1 == -E || $1 == -i ]]; do
        flags+=("$1")
        shift
    done
    expect_usage "${flags[@]}" "$1" "$2" "$NGX" "${@:3}"
}

MPIRUN_LOCAL=(mpirun --allow-run-as-root --bind-to none --oversubscribe --mca oob_tcp_if_include lo)
