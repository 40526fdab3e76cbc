#!/bin/bash
# loggopsim.sh A|B: what `ngx predict --export loggopsim` exports for a sim
# run, fed to LogGOPSim (../shared/tools/loggopsim, built from its source),
# simulates the round trips ngx measured: for every measured size s, the
# simulated ping-pong round trip is within 5% of the measured PRTT(1,0,s).
#   A: L 5, o_s 3, o_r 2, g 6, G 0.002 us/B (2 ns/B)
#   B: L 4, o_s 2.5, o_r 1.5, g 4, G 0.0005 us/B (a link faster than 1 ns/B:
#      exported in ps, G 500; in whole ns it would round to 0 or 1)
# The line of the range holding s is used (its -S is the range's largest
# size). Skipped (77) when LogGOPSim cannot be built here, with the reason.
source "$(dirname "$0")/common.sh"
lg_need_cpus
lg_need_module sim
tools=${NGX_SHARED_TOOLS:-$LG_DIR/../../../shared/tools} # shared/ sits beside the clone, as in CI
[[ -f $tools/loggopsim/loggopsim.sh ]] || { echo "SKIP: no LogGOPSim script under $tools"; exit 77; }
source "$tools/loggopsim/loggopsim.sh"
why=$(loggopsim_build 2>&1) || { echo "SKIP: LogGOPSim cannot be built here: $why"; exit 77; }
case ${1:-A} in
A) sim=(--sim-L 5 --sim-os 3 --sim-or 2 --sim-g 6 --sim-G 0.002) ;;
B) sim=(--sim-L 4 --sim-os 2.5 --sim-or 1.5 --sim-g 4 --sim-G 0.0005) ;;
*) fail "unknown parameter set '$1' (A or B)" ;;
esac
run() {
    ngx_run 150 -m sim -x loggp "${sim[@]}" -s 1-8Ki --cpus 0,1 -o "$IT_DIR/run.json"
    [[ $RC == 0 ]] || { tail -5 "$IT_DIR/err"; return 1; }
    ngx_run 30 predict --params "$IT_DIR/run.json" --export loggopsim
    [[ $RC == 0 ]] || { echo "--export loggopsim: exit $RC: $(cat "$IT_DIR/err")"; return 1; }
    cp "$IT_DIR/out" "$IT_DIR/export.txt"
    cat "$IT_DIR/export.txt"
}
# For each size: the exported line with the smallest -S >= s, simulated; the
# ratio to the measured PRTT(1,0,s) (LogGOPSim's times are in ps here).
check() {
    local size measured line sim_ps worst=0 rc=0
    while read -r size measured; do
        line=$(awk -v s="$size" '/^-L/ { for (i = 1; i < NF; i++) if ($i == "-S") S = $(i + 1);
                                          if (S + 0 >= s + 0) { print; exit } last = $0 } END { if (!NR) exit 1 }' \
               "$IT_DIR/export.txt")
        [[ -n $line ]] || line=$(grep '^-L' "$IT_DIR/export.txt" | tail -1)
        # shellcheck disable=SC2086 # the exported flags are words
        sim_ps=$(loggopsim_pingpong "$size" 4 $line) || { echo "LogGOPSim failed: $sim_ps"; return 1; }
        python3 - "$size" "$measured" "$sim_ps" <<'PY' || rc=1
import sys
size, measured, sim = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]) / 1e6
err = (sim - measured) / measured
print(f"  {size:>6} B: measured PRTT(1,0,s) {measured:.4f} us, LogGOPSim {sim:.4f} us ({100 * err:+.2f}%)")
sys.exit(0 if abs(err) <= 0.05 else 1)
PY
    done < <(python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]: print(r["size_bytes"], r["median_us"])' "$IT_DIR/run.json")
    return $rc
}
lg_measure_and_check "LogGOPSim reproduces PRTT(1,0,s), set ${1:-A}" run check
echo PASS
