# ngx-run.sh: the helpers of the scripts that drive ngx as a user would
# (integration, faults, loggp, passes; sourced), on top of tests/lib/common.sh
# (fail, skip, ok, free_port, ...). Needs $NGX (set by meson's test_env); runs
# from a scratch directory that is removed at exit, together with every
# background process started through it_bg; fail prints the tail of the last
# ngx_run's stderr.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
: "${NGX:?NGX must point at the ngx executable (meson sets it)}"
[[ -x $NGX ]] || { echo "FAIL: NGX=$NGX is not executable"; exit 1; }
IT_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IT_SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd) # the calling script's folder, for its own helpers
IT_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ngx-it.XXXXXX")
IT_PIDS=()
IT_PEERS=()  # forked peers (grandchildren) seen by a test: stopped at exit if still ngx

it_cleanup() {
    local pid child
    for pid in "${IT_PIDS[@]}"; do
        # the forked peer of a background ngx, stopped or not
        for child in $(pgrep -P "$pid" 2>/dev/null); do
            kill -CONT "$child" 2>/dev/null; kill -KILL "$child" 2>/dev/null
        done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    for pid in "${IT_PEERS[@]}"; do
        [[ $(cat "/proc/$pid/comm" 2>/dev/null) == ngx ]] || continue
        kill -CONT "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
    done
    rm -rf "$IT_DIR"
}
if [[ ${IT_NO_TRAP:-0} != 1 ]]; then
    trap it_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
fi
cd "$IT_DIR" || exit 1

FAIL_STDERR=$IT_DIR/err

# ngx_run SECONDS ARG...: run ngx bounded; stdout -> $IT_DIR/out, stderr -> $IT_DIR/err; sets RC.
ngx_run() {
    local secs=$1
    shift
    ngx_deadline "$secs" "$@" >"$IT_DIR/out" 2>"$IT_DIR/err"
    RC=$?
    [[ $RC == 124 || $RC == 137 ]] && fail "ngx $* did not finish within $secs s"
    [[ $RC == 0 ]] && validate_outputs "$@"
    return 0
}

# validate_json FILE...: the files conform to the published schema
# (schema/ngx-result.schema.json); fails the test otherwise.
validate_json() {
    python3 "$IT_LIB_DIR/../../schema/validate.py" "$@" || fail "$*: not valid against schema/ngx-result.schema.json"
}

# validate_outputs ARG...: validate_json on every -o/--output FILE.json of an ngx command line.
validate_outputs() {
    local previous='' argument files=()
    for argument in "$@"; do
        [[ ($previous == -o || $previous == --output) && $argument == *.json && -s $argument ]] && files+=("$argument")
        previous=$argument
    done
    [[ ${#files[@]} -eq 0 ]] || validate_json "${files[@]}"
}

# it_bg LOG ARG...: start ngx in the background (stdout and stderr to LOG); sets BG_PID.
it_bg() {
    local log=$1
    shift
    "$NGX" "$@" >"$log" 2>&1 </dev/null &
    BG_PID=$!
    IT_PIDS+=("$BG_PID")
}

# wait_pid PID SECONDS: wait for PID; sets RC (124 if it outlived SECONDS, then killed) and ELAPSED.
wait_pid() {
    local pid=$1 secs=$2 t0 n i
    t0=$(date +%s.%N)
    n=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 50 }')
    for ((i = 0; i < n; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.02
    done
    if kill -0 "$pid" 2>/dev/null; then
        RC=124
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    else
        wait "$pid"
        RC=$?
    fi
    ELAPSED=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}

# le A B: true when A <= B (decimals)
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# check_results FILE MODULE SIZES_SPEC COUNT [STATUS]: the fields every result
# carries (check_json.py), the published schema and sane per-size statistics;
# SIZES_SPEC is "1-1Mi" (every power of two) or a list.
check_results() {
    python3 "$IT_LIB_DIR/check_json.py" "$@" || fail "$1: JSON check failed"
}
# (check_json.py validates against the published schema too.)
