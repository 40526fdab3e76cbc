# fault-common.sh: sourced (after common.sh) by the mpi fault tests: a peer
# stopped, killed or cut off mid-run under mpirun.
#     wait_first_size OUT PID        until OUT holds a "1 B" table row (30 s;
#                                    the runs use --passes 1 --max-rel-ci off,
#                                    so that each size is reported as soon as
#                                    it is done: a size that may be measured
#                                    again is reported after the last pass)
#     rank_pid R                     the pid of this test's ngx of rank R
#     check_fault_outcome MODULE RC MS TIMEOUT_S ERR JSON [START_NS]
#                                    exit 1, within TIMEOUT_S + 1 s + 1 s of
#                                    launcher slack, a message naming the step,
#                                    the size and the side, and the JSON of
#                                    rank 0 with status "error" and results;
#                                    with FAULT_KILLED_RANK=R also mpirun's
#                                    exit 137 naming rank R as killed
#
# With START_NS (date +%s%N at the fault) also: the JSON was written within
# --timeout + 1 s of the fault (ngx's own part, whatever the launcher adds).
#
# Launcher slack (LAUNCHER_SLACK_MS, default 1000): Open MPI's teardown after
# MPI_Abort, measured here on loopback at 0.9-1.1 s (tcp module, --timeout 3:
# exit 4.05 s after SIGSTOP); across namespaces with the measured link down
# 3.1-4.2 s (the ranks are gone by --timeout + 1.4 s, mpirun takes 2 s more).

wait_first_size() {
    local out=$1 pid=$2 i
    for ((i = 0; i < 600; i++)); do
        grep -Eq '^ +1 +1B ' "$out" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

rank_pid() {
    local p
    for p in $(pgrep -x ngx); do
        { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" || continue
        { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "NGX_MODULE_PATH=$NGX_MODULE_PATH" || continue
        echo "$p"
        return 0
    done
    return 1
}

# fault_fail MESSAGE: the whole stderr of the run, then the failure (last, so
# that a log cut in the middle still shows it). Uses check_fault_outcome's err.
fault_fail() {
    echo "---- the whole stderr ----"
    cat "$err"
    echo "----"
    fail "$@"
}

check_fault_outcome() {
    local module=$1 rc=$2 ms=$3 timeout_s=$4 err=$5 json=$6 start_ns=${7:-}
    local limit_ms=$(((timeout_s + 1) * 1000 + ${LAUNCHER_SLACK_MS:-1000}))
    if [[ $rc == 137 && ${FAULT_KILLED_RANK:-} != "" ]]; then
        # mpirun's own exit code reports the rank killed by the test (128 + 9),
        # whatever the surviving rank did: accept it only with mpirun naming
        # that rank, and no other rank ending on a signal.
        grep -Eq "process rank $FAULT_KILLED_RANK with PID .* exited on signal 9" "$err" ||
            fault_fail "$module: exit 137 without mpirun naming the killed rank $FAULT_KILLED_RANK"
        grep -E "process rank [0-9]+ with PID .* exited on signal" "$err" | grep -vq "rank $FAULT_KILLED_RANK " &&
            fault_fail "$module: another rank ended on a signal"
    elif [[ $rc == 139 && ${FAULT_RANK_PIDS:-} != "" ]]; then
        # Open MPI's launcher itself can crash tearing down a job whose link
        # went down (seen in mpi-link-down, tcp module): accept 139 only when
        # the process that received SIGSEGV is none of the ngx ranks, and no
        # rank ended on a signal; the ranks' own outcome is checked below.
        local crashed pid
        crashed=$(sed -n 's/^\[[^:]*:\([0-9]*\)\] \*\*\* Process received signal \*\*\*$/\1/p' "$err")
        [[ -n $crashed ]] || fault_fail "$module: exit 139 without a crash report"
        for pid in $crashed; do
            [[ " $FAULT_RANK_PIDS " != *" $pid "* ]] || fault_fail "$module: ngx rank (pid $pid) crashed"
        done
        ! grep -Eq "process rank [0-9]+ with PID .* exited on signal" "$err" || fault_fail "$module: a rank ended on a signal"
        echo "note: $module: mpirun (pid $crashed, not an ngx rank: $FAULT_RANK_PIDS) crashed in its teardown; exit 139"
    else
        [[ $rc == 1 ]] || fault_fail "$module: exit $rc, expected 1"
    fi
    ((ms <= limit_ms)) || fault_fail "$module: ended $ms ms after the fault, more than --timeout + 1 s + slack ($limit_ms ms)"
    grep -Eq 'ngx \(rank [01]\)|rank [01] \((driver|responder)\)' "$err" ||
        fault_fail "$module: no message names the side (rank)"
    grep -Eq 'size [0-9]+ (B|KiB|MiB)' "$err" || fault_fail "$module: no message names the size"
    grep -Eq "recv|send|step '" "$err" || fault_fail "$module: no message names the step"
    python3 - "$json" "$start_ns" "$timeout_s" <<'PY' || fault_fail "$module: the -o JSON of rank 0 is missing or wrong"
import json, os, sys
d = json.load(open(sys.argv[1]))
if sys.argv[2]:  # ngx's own part, without the launcher: the file is written within --timeout + 1 s
    written_ms = (os.stat(sys.argv[1]).st_mtime_ns - int(sys.argv[2])) / 1e6
    print(f"json written {written_ms:.0f} ms after the fault")
    assert written_ms <= (float(sys.argv[3]) + 1) * 1000, f"written {written_ms:.0f} ms after the fault"
run = d["runs"][0] if "runs" in d else d
assert run["status"] == "error", run["status"]
assert len(run["results"]) >= 1, "no results kept"
assert "size" in run.get("error", ""), run.get("error")
print(f'json: status {run["status"]}, {len(run["results"])} sizes kept, error: {run["error"][:100]}')
PY
}
