# truth.sh: the loggp suite's checks against ground truth (sourced instead
# of common.sh, which it includes): LG_CHECK (loggp_check.py, the arithmetic
# on ngx's JSON), measuring again on a failed check, and the sim's virtual
# time. Used by the runs over the sim (suite 'virtual': exact truth) and by
# bench/loggp/sim-realtime.sh (the same runs in real time, their accuracy).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
LG_CHECK=(python3 "$LG_DIR/loggp_check.py")

# lg_measure_and_check LABEL RUN_CMD CHECK_CMD: run RUN_CMD then CHECK_CMD
# (both strings of shell words, evaluated); on a failed check, measure once
# more (the machine is shared and noisy) and fail if the second check fails
# too (LG_ATTEMPTS=3: twice more). A failing RUN_CMD (ngx error) fails at
# once: that is not noise.
lg_measure_and_check() {
    local label=$1 run=$2 chk=$3 attempt
    for ((attempt = 1; attempt <= ${LG_ATTEMPTS:-2}; attempt++)); do
        echo "--- $label, attempt $attempt (load: $(cut -d' ' -f1-3 /proc/loadavg))"
        eval "$run" || fail "$label: the measurement failed"
        if eval "$chk"; then
            ok "$label (attempt $attempt)"
            return 0
        fi
    done
    fail "$label: the checks failed ${LG_ATTEMPTS:-2} times in a row"
}

# lg_sim_clock "$@": a script given "virtual" among its arguments runs the
# sim in virtual time (--sim-clock virtual): the truth is exact, so checks
# hold to TOL=0.001 (0.1%) with no bias, and one attempt (the run repeats
# exactly). Otherwise SIM_CLOCK is empty and TOL/BIAS stay the script's.
lg_sim_clock() {
    SIM_CLOCK=()
    local arg
    for arg in "$@"; do
        if [[ $arg == virtual ]]; then
            SIM_CLOCK=(--sim-clock virtual)
            TOL=0.001 BIAS=0 LG_ATTEMPTS=1
        fi
    done
}
