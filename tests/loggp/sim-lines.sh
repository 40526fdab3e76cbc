#!/bin/bash
# sim-lines.sh C|D: loggp on the sim module recovers every LogGP parameter
# including the overhead lines, o_s(s) = o_s + (s-1) O_s and o_r(s) =
# o_r + (s-1) O_r (sim's --sim-O/--sim-Or busy-wait per byte), within 3%:
#   C: L 5, o_s 2, o_r 1.5, g 6, G 0.002, O_s 0.0005, O_r 0.00025 us/B
#   D: L 3, o_s 4, o_r 1, g 8, G 0.001, O_s 0.0002, O_r 0.0004 us/B
# 1 B..8 KiB, no rendezvous, one range. Checked: L (eq. (1) with the lines),
# o_s and o_r intercepts, O_s, O_r, g, G, L_eel = L + o_s + o_r.
# The intercepts used to carry an absolute bias (+0.09..0.11 us on o_s, the
# delay loop's cost beyond d in eq. (6); +0.065..0.07 us on o_r, the timer
# read and the sim's own call cost), fixed when eq. (6) began to use the
# delay really spent: o_s, o_r and
# L are now checked within 3% plus one timer step (0.01 us, --bias), the
# slopes O_s, O_r, g, G and L_eel within 3% flat.
source "$(dirname "$0")/truth.sh"
lg_need_cpus
lg_need_module sim
TOL=0.03 BIAS=0.01
lg_sim_clock "$@"
case ${1:-C} in
C) p=(--L 5 --os 2 --or 1.5 --g 6 --G 0.002) lines=(--O 0.0005 --Or 0.00025) ;;
D) p=(--L 3 --os 4 --or 1 --g 8 --G 0.001) lines=(--O 0.0002 --Or 0.0004) ;;
*) fail "unknown parameter set '$1' (C or D)" ;;
esac
sim=("${SIM_CLOCK[@]}" --sim-L "${p[1]}" --sim-os "${p[3]}" --sim-or "${p[5]}" --sim-g "${p[7]}" --sim-G "${p[9]}"
     --sim-O "${lines[1]}" --sim-Or "${lines[3]}" --sim-S 0)
run() {
    ngx_run 150 -m sim -x loggp "${sim[@]}" -s 1-8Ki -c 200 --cpus 0,1 -o "$IT_DIR/run.json"
    [[ $RC == 0 ]] || { tail -5 "$IT_DIR/err"; return 1; }
    sed -n '/^# loggp parameters/,$p' "$IT_DIR/out"
}
lg_measure_and_check "sim set ${1:-C} with overhead lines" run \
    '"${LG_CHECK[@]}" truth "$IT_DIR/run.json" "${p[@]}" --tol "$TOL" --bias "$BIAS" --lines "${lines[@]}"'
echo PASS
