#!/bin/bash
# sim-overhead.sh O: loggp on the sim module with o_s = o_r = O us measures
# o_s(s) (eq. (6)) and o_r(s) (the timed receive), median over the sizes,
# within 2% of O (unbiased overheads:
# no cost of the delay loop, the timer or the sim's own calls may enter o),
# plus one step of the run's timer (10 ns on a KVM guest, whose TSC moves in
# 10 ns steps: 2% of 0.3 us is 6 ns, finer than one timed call resolves).
# L 5, g 4 (12 for O >= 4, so that g > o_s), G 0.001, 1..256 B, medians of
# 200, pinned to CPUs 0,1; one re-measure before failing (four below 1 us,
# see below).
#
# The sim can keep an overhead only down to what its own calls cost on this
# machine (a clock read, the copy into the shared ring, a cache line from
# the peer's core: 0.05-0.3 us on a 2-vCPU KVM guest, depending on where the
# host places the vCPUs). When more than a tenth of its sends or receives
# end late, it says so on stderr (sim_finalize) and there is no ground truth
# to compare with. The same when a run with o_s = o_r = 0 measures a
# median above O + 2% (the floor: CI once saw o_r 0.14 us for O = 0.05 with
# no late calls reported, a cost that lands before the sim's clock starts;
# on a quiet machine the floor is 0.04-0.05 us). For O below 1 us such a
# miss is measured again after a pause, and only when all five attempts
# were at the floor does the test exit 77, with the values.
source "$(dirname "$0")/truth.sh"
lg_need_cpus
lg_need_module sim
o=${1:?usage: sim-overhead.sh O_US [virtual]}
TOL=0.02
lg_sim_clock "$@"
g=$(python3 -c "print(12 if $o >= 4 else 4)")
sim=("${SIM_CLOCK[@]}" --sim-L 5 --sim-os "$o" --sim-or "$o" --sim-g "$g" --sim-G 0.001 --sim-S 0)
late=0
run() {
    ngx_run 150 -m sim -x loggp "${sim[@]}" -s 1-256 -c 200 --cpus 0,1 -o "$IT_DIR/run.json"
    [[ $RC == 0 ]] || { tail -5 "$IT_DIR/err"; return 1; }
    sed -n '/^# loggp parameters/,$p' "$IT_DIR/out"
    if grep -q '^sim: .* ended later than the model allows' "$IT_DIR/err"; then
        grep '^sim: ' "$IT_DIR/err"
        late=$((late + 1))
    fi
}
# floor_above: the sim run with o_s = o_r = 0 (the floor, what its own calls
# cost here) measures a median o_s(s) or o_r(s) above O + 2%: this machine
# cannot emulate O, with or without late calls reported. Prints the floor.
floor_above() {
    local keep=("${sim[@]}")
    sim=("${SIM_CLOCK[@]}" --sim-L 5 --sim-os 0 --sim-or 0 --sim-g "$g" --sim-G 0.001 --sim-S 0)
    run >/dev/null || { sim=("${keep[@]}"); return 1; }
    sim=("${keep[@]}")
    python3 - "$IT_DIR/run.json" "$o" <<'PY'
import json, statistics, sys
runs = json.load(open(sys.argv[1]))
results = (runs.get("runs") or [runs])[0]["results"]
o = float(sys.argv[2])
floor = {k: statistics.median(r[k] for r in results) for k in ("o_s_us", "o_r_us")}
print("  info the sim's floor here (o_s = o_r = 0): median o_s(s) %.4g us, o_r(s) %.4g us"
      % (floor["o_s_us"], floor["o_r_us"]))
sys.exit(0 if max(floor.values()) > 1.02 * o else 1)
PY
}
# values_ok: the measured overheads within 2% (and one timer step) of O.
values_ok() {
    "${LG_CHECK[@]}" overheads "$IT_DIR/run.json" --os "$o" --or "$o" --tol "$TOL" --timer-step
}
# at_floor: below 1 us, a miss that is the sim's own work (a late call, or a
# floor above O that the sim did not see as late: a cache line from the
# peer's core arrives before the sim's clock starts), not the measurement's.
at_floor() {
    python3 -c "import sys; sys.exit(0 if $o < 1 else 1)" && { [[ $late -gt 0 ]] || floor_above; }
}
# The floor moves with what the host runs beside this VM: a miss at the
# floor is measured again after a pause (up to 5 attempts below 1 us, 2
# above), and the test skips only when every attempt was at the floor.
attempts=$(python3 -c "print(5 if $o < 1 else 2)")
[[ ${#SIM_CLOCK[@]} -gt 0 ]] && attempts=1 # virtual time: exact, no floor, the same every run
floor_hits=0
for ((attempt = 1; attempt <= attempts; attempt++)); do
    echo "--- sim o_s = o_r = $o us, attempt $attempt (load: $(cut -d' ' -f1-3 /proc/loadavg))"
    late=0
    run || fail "sim o_s = o_r = $o us: the measurement failed"
    if values_ok; then
        ok "sim o_s = o_r = $o us (attempt $attempt)"
        echo PASS
        exit 0
    fi
    if at_floor; then
        floor_hits=$((floor_hits + 1))
        sleep 3
    fi
done
if [[ $floor_hits == "$attempts" ]]; then
    echo "SKIP: in $attempts attempts the sim could not keep o = $o us on this machine (its calls ended late, or" \
         "its floor is above $o us, above); the values above are this machine's floor, not a bias of the measurement"
    exit 77
fi
fail "sim o_s = o_r = $o us: the checks failed $attempts times, $floor_hits of them at the sim's floor"
