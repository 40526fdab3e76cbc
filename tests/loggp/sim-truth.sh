#!/bin/bash
# sim-truth.sh A|B: loggp on the sim module recovers the parameters it was
# given (L, o, g, G each within 5%, the switch within one size step):
#   A: L 5, o_s 3, o_r 2, g 6, G 0.002, no rendezvous, 1 B..8 KiB: L, o, g, G,
#      L_eel = L + o_s + o_r, and no change point (a straight line).
#   B: L 4, o_s 2.5, o_r 1.5, g 4, G 0.001, S 2048 (rendezvous above 2 KiB),
#      1 B..6 KiB in steps of 1.25x: the same in the eager range, the change
#      point within one size step of S, and in the rendezvous range the values
#      the sim's handshake (docs/sim.md) implies (README.md): g' = 2L + 2o_s + 3o_r,
#      G' = G, o' = 3o_s + 2L + 2o_r.
# Sizes stay <= 8 KiB so that copying a message into the sim's ring fits in
# o_s (beyond that the measured o grows with s), and the longest repetition
# (PRTT(16,d,s) in the rendezvous range, about 1.3 ms) stays short on a
# shared 2-core machine. Pinned with --cpus 0,1; medians of 200; one retry.
source "$(dirname "$0")/truth.sh"
lg_need_cpus
lg_need_module sim
set_name=${1:-A}
TOL=0.05 BIAS=0
lg_sim_clock "$@"
case $set_name in
A) p=(--L 5 --os 3 --or 2 --g 6 --G 0.002) S=0 sizes=(-s 1-8Ki) ;;
B) p=(--L 4 --os 2.5 --or 1.5 --g 4 --G 0.001) S=2048 sizes=(-s 1-6Ki --grade 1.25) ;;
*) fail "unknown parameter set '$set_name' (A or B)" ;;
esac
sim=("${SIM_CLOCK[@]}" --sim-L "${p[1]}" --sim-os "${p[3]}" --sim-or "${p[5]}" --sim-g "${p[7]}" --sim-G "${p[9]}" --sim-S "$S")
run() {
    ngx_run 150 -m sim -x loggp "${sim[@]}" "${sizes[@]}" --cpus 0,1 -o "$IT_DIR/run.json"
    [[ $RC == 0 ]] || { tail -5 "$IT_DIR/err"; return 1; }
    sed -n '/^# loggp parameters/,$p' "$IT_DIR/out"
}
lg_measure_and_check "sim set $set_name" run \
    '"${LG_CHECK[@]}" truth "$IT_DIR/run.json" "${p[@]}" --S "$S" --tol "$TOL"'
echo PASS
