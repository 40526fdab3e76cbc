# sim-common.sh: the overhead suite's runs over the sim against its truth (sourced
# instead of common.sh, which it includes): in virtual time (suite
# 'virtual': exact) or in real time (bench/loggp/sim-realtime.sh: their
# accuracy on this machine).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# sim_clock "$@": a script given "virtual" runs the sim in virtual time
# (--sim-clock virtual): exact truth, so TOL=0.001 (0.1%) and one attempt
# (ATTEMPT runs a check once: the run repeats exactly). Otherwise the
# script's TOL and ATTEMPT=twice stay.
sim_clock() {
    SIM_CLOCK=()
    ATTEMPT=twice
    local arg
    for arg in "$@"; do
        if [[ $arg == virtual ]]; then
            SIM_CLOCK=(--sim-clock virtual)
            TOL=0.001 ATTEMPT=
        fi
    done
}

# sim_fidelity SIM_OPTIONS...: in real time, how well this machine lets the
# overhead pattern time the sim's calls right now: the pattern at 1 B over
# the sim with the given options (plain eager sends), whose o_s and o_r are
# known exactly, measured at the test's start. Sets FIDELITY_US to the
# largest |measured - truth| of its o_s and o_r columns (both barrier roots;
# 0 in virtual time) and prints it: the real-time checks allow twice that on
# top of their relative tolerance, a margin this machine justifies now
# rather than a constant chosen on another one. A size or mode whose error
# exceeds twice the reference's is still a failure.
sim_fidelity() {
    FIDELITY_US=0
    [[ ${#SIM_CLOCK[@]} -gt 0 ]] && return 0
    "$NGX" -m sim "$@" -x overhead -s 1 -c 200 --warmup 20 --cpus 0,1 -o "$SCRATCH/fidelity.json" \
        >"$SCRATCH/fidelity.log" 2>&1 || { cat "$SCRATCH/fidelity.log"; fail "the reference overhead run failed"; }
    FIDELITY_US=$(python3 - "$SCRATCH/fidelity.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
run = (doc.get("runs") or [doc])[0]
options = run["options"]["module_options"]
truth = {"o_s": float(options.get("sim-os", 1)), "o_r": float(options.get("sim-or", 1))}
r = run["results"][0]
worst = 0.0
for key, want in truth.items():
    for column in (key + "_us", key + "_root_driver_us", key + "_root_responder_us"):
        worst = max(worst, abs(r[column] - want))
        print(f"  reference 1 B: {column} {r[column]:.3f} us, truth {want:.3f} us", file=sys.stderr)
print(f"{worst:.4f}")
PY
)
    echo "the reference run on this machine now: within $FIDELITY_US us of the truth (load $(cut -d' ' -f1 /proc/loadavg))"
}
