# common.sh: shared helpers of the loggp suite (sourced after setting
# IT_NO_TRAP/NETNS_NO_TRAP as needed). Builds on ../integration/lib.sh:
# scratch dir $IT_DIR, fail/ok, ngx_run (bounded ngx, sets RC).
LG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$LG_DIR/../integration/lib.sh"
LG_CHECK=(python3 "$LG_DIR/loggp_check.py")

# lg_need_module NAME: exit 77 unless ngx finds module NAME.
lg_need_module() {
    local list
    list=$("$NGX" --list-modules 2>&1) || fail "ngx --list-modules failed: $(tail -3 <<<"$list")"
    grep -Eq "^  $1 " <<<"$list" || { echo "SKIP: module '$1' not built"; exit 77; }
}

# lg_need_cpus: --cpus 0,1 needs two online CPUs.
lg_need_cpus() {
    [[ $(nproc 2>/dev/null || echo 1) -ge 2 ]] || { echo "SKIP: pinning to CPUs 0,1 needs two CPUs"; exit 77; }
    command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
}

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
