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
# loopback, and mpirun when it and the MPI bootstrap are there.
source "$(dirname "$0")/../integration/lib.sh"
: "${NGX_FIXTURE_MODULE_DIR:?meson sets NGX_FIXTURE_MODULE_DIR to the directory of the fixture module}"
modules=${NGX_MODULE_PATH:-}
export NGX_MODULE_PATH="$NGX_FIXTURE_MODULE_DIR:$modules"
bound=5
run_args=(-m corrupt --corrupt-extra-step 1 -x pingpong -s 1 -c 10 --warmup 1 --timeout 60)
planted="rank 1 is in step [0-9]+ 'module: barrier' \(exchange\)"

# check WHAT FILE RC ELAPSED: exit 1 within the bound, the desync naming both steps.
check() {
    local what=$1 file=$2 rc=$3 elapsed=$4
    echo "$what: exit $rc after $elapsed s: $(grep -m1 'desync' "$file")"
    [[ $rc == 1 ]] || fail "$what: expected exit 1, got $rc: $(tail -5 "$file")"
    le "$elapsed" "$bound" || fail "$what: took $elapsed s, more than $bound s (--timeout 60)"
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
t0=$(date +%s.%N)
timeout -k 5 60 mpirun --allow-run-as-root --bind-to none --oversubscribe --mca oob_tcp_if_include lo \
    --mca btl_tcp_if_include lo --mca btl self,tcp -x NGX_MODULE_PATH -np 2 \
    "$NGX" --bootstrap mpi "${run_args[@]}" >mpi.log 2>&1
rc=$?
elapsed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
# mpirun reports the job's code: 1 from MPI_Abort(1) of rank 0.
[[ $rc != 124 && $rc != 137 ]] || fail "mpirun: the job did not end within 60 s: $(tail -5 mpi.log)"
check "mpirun" mpi.log "$([[ $rc == 0 ]] && echo 0 || echo 1)" "$elapsed"
