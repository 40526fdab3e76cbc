#!/bin/bash
# desync.sh: two ranks that disagree about the step they are in end at once
# with an error naming both steps, not after the deadline. The fixture module
# "corrupt" with --corrupt-extra-step 1 makes rank 1 take one bootstrap step
# (a module's barrier, an exchange named "module: barrier") more than rank 0
# after connecting, while rank 0 goes on to the pattern's first step
# (pingpong: its first pass's exchange). With --timeout 60 the run must end with exit 1 within 5 s, and
# the message must name both ranks' steps ("bootstrap desync: rank 0 is in
# step N '...' (exchange) while rank 1 is in step N 'module: barrier'
# (exchange)"). Over each bootstrap: the local fork, --listen/--connect on
# loopback, and mpirun when it and the MPI bootstrap are there. mpirun's own
# start-up (seconds under a sanitizer on a busy CPU) is not the desync's: its
# bound is 5 s more than the same launch without the planted step took.
source "$(dirname "$0")/../lib/ngx-run.sh"
: "${NGX_FIXTURE_MODULE_DIR:?meson sets NGX_FIXTURE_MODULE_DIR to the directory of the fixture module}"
modules=${NGX_MODULE_PATH:-}
export NGX_MODULE_PATH="$NGX_FIXTURE_MODULE_DIR:$modules"
bound=5
run_args=(-m corrupt --corrupt-extra-step 1 -x pingpong -s 1 -c 10 --warmup 1 --timeout 60)
planted="rank 1 is in step [0-9]+ 'module: barrier' \(exchange\)"

# check WHAT FILE RC ELAPSED: exit 1 within the bound, the desync naming both steps.
check() {
    local what=$1 file=$2 rc=$3 elapsed=$4 limit=${5:-$bound}
    echo "$what: exit $rc after $elapsed s (bound $limit s): $(grep -m1 'desync' "$file")"
    [[ $rc == 1 ]] || fail "$what: expected exit 1, got $rc: $(tail -5 "$file")"
    le "$elapsed" "$limit" || fail "$what: took $elapsed s, more than $limit s (--timeout 60)"
    grep -Eq "bootstrap desync: rank 0 is in step [0-9]+ '[^']+' \(exchange\) while $planted" "$file" ||
        fail "$what: the message does not name both ranks' steps: $(tail -5 "$file")"
    ok "$what"
}

# The local launch: ngx forks rank 1.
t0=$(date +%s.%N)
ngx_run 30 "${run_args[@]}"
check "local" err "$RC" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')"

# --listen / --connect on loopback: the client is rank 0, the server rank 1.
port=$(free_port) || fail "no free port"
it_bg server.log --listen "127.0.0.1:$port" --accept-timeout 30
srv=$BG_PID
for _ in $(seq 100); do grep -q 'listening on' server.log && break; sleep 0.1; done
grep -q 'listening on' server.log || fail "no start-up line from the server: $(cat server.log)"
t0=$(date +%s.%N)
ngx_run 30 --connect "127.0.0.1:$port" "${run_args[@]}"
crc=$RC
check "--listen/--connect (client)" err "$crc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')"
wait_pid "$srv" "$bound"
[[ $RC != 124 ]] || fail "--listen/--connect: the server was still running $bound s after the client ended"
grep -Eq "$planted" server.log || fail "--listen/--connect: the server does not name its step: $(tail -5 server.log)"
ok "--listen/--connect (server ended, exit $RC)"

# mpirun, when there: the MPI bootstrap.
if ! command -v mpirun >/dev/null; then
    echo "mpirun: not found, the MPI bootstrap is not checked here (suite mpi needs it)"
    exit 0
fi
if [[ ! -e $modules/mpi/ngx_mpi.so && ! -e $modules/ngx_mpi.so ]]; then
    echo "mpirun: ngx was built without MPI (no mpi module), the MPI bootstrap is not checked"
    exit 0
fi
# mpirun_ngx LOG ARGS...: one launch of two ranks over the MPI bootstrap;
# sets RC and ELAPSED (seconds). Under ASan the leak check is off: Open MPI's
# own allocations at exit are not ngx's (as in the trace suite's mpirun runs).
mpirun_ngx() {
    local log=$1 t0
    shift
    t0=$(date +%s.%N)
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 timeout -k 5 60 "${MPIRUN_LOCAL[@]}" \
        --mca btl_tcp_if_include lo --mca btl self,tcp -x NGX_MODULE_PATH -np 2 \
        "$NGX" --bootstrap mpi "$@" >"$log" 2>&1
    RC=$?
    ELAPSED=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}
reference_args=("${run_args[@]}")
reference_args[3]=none  # --corrupt-extra-step none: the same run, no planted step
mpirun_ngx reference.log "${reference_args[@]}"
[[ $RC == 0 ]] || fail "mpirun without the planted step: exit $RC: $(tail -5 reference.log)"
echo "mpirun without the planted step: $ELAPSED s"
limit=$(awk -v r="$ELAPSED" -v b="$bound" 'BEGIN { printf "%.2f", r + b }')
mpirun_ngx mpi.log "${run_args[@]}"
# mpirun reports the job's code: 1 from MPI_Abort(1) of rank 0.
[[ $RC != 124 && $RC != 137 ]] || fail "mpirun: the job did not end within 60 s: $(tail -5 mpi.log)"
check "mpirun" mpi.log "$([[ $RC == 0 ]] && echo 0 || echo 1)" "$ELAPSED" "$limit"
