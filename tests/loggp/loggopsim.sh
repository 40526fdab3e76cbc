#!/bin/bash
# loggopsim.sh A|B: what `ngx predict --export loggopsim` exports for a sim
# run, fed to LogGOPSim (../shared/tools/loggopsim, built from its source),
# simulates the round trips ngx measured: for every measured size s, the
# simulated ping-pong round trip is within 5% of the measured PRTT(1,0,s)
# (sets A and B: the sim in virtual time, so the measured times are the
# model's, whatever the machine).
#   A: L 5, o_s 3, o_r 2, g 6, G 0.002 us/B (2 ns/B)
#   B: L 4, o_s 2.5, o_r 1.5, g 4, G 0.0005 us/B (a link faster than 1 ns/B:
#      exported in ps, G 500; in whole ns it would round to 0 or 1)
#   shm: the shm module, whose large messages are pipelined (ranges the
#      joint fit reads as overlapped) and whose middle range is additive:
#      LogGOPSim must simulate the round trip ngx's own model predicts
#      (`ngx predict --op pingpong`, doubled) within 1% at every size, so
#      the export carries each form of eq. (1) exactly (plus what a comment
#      line of the export says it changed: a negative per-byte cost, noise,
#      exported as 0; a range whose 2o + L < 0, exported from 0); the
#      measured times are printed beside them (the
#      model's own error is the fit quality's).
# The line of the range holding s is used (its -S is the range's largest
# size). Skipped (77) when LogGOPSim cannot be built here, with the reason.
source "$(dirname "$0")/truth.sh"
lg_need_cpus
lg_need_module sim
# shared/ sits beside the clone (as in CI), or beside the checkout a local
# clone was made from (a clone in a temporary directory); NGX_SHARED_TOOLS wins.
source "$NGX_SOURCE_ROOT/tests/lib/shared-tools.sh"
tools=$(ngx_shared_tools)
[[ -f $tools/loggopsim/loggopsim.sh ]] || skip "no LogGOPSim script under $tools (nor beside the checkout this was cloned from)"
source "$tools/loggopsim/loggopsim.sh"
why=$(loggopsim_build 2>&1) || skip "LogGOPSim cannot be built here: $why"
module=sim sizes=1-8Ki against=measured tolerance=0.05
case ${1:-A} in
A) sim=(--sim-clock virtual --sim-L 5 --sim-os 3 --sim-or 2 --sim-g 6 --sim-G 0.002) ;;
B) sim=(--sim-clock virtual --sim-L 4 --sim-os 2.5 --sim-or 1.5 --sim-g 4 --sim-G 0.0005) ;;
shm) lg_need_module shm; module=shm sizes=1-128Ki against=model tolerance=0.01 sim=() ;;
*) fail "unknown parameter set '$1' (A, B or shm)" ;;
esac
run() {
    ngx_run 150 -m "$module" -x loggp "${sim[@]}" -s "$sizes" --cpus 0,1 -o "$IT_DIR/run.json"
    [[ $RC == 0 ]] || { tail -5 "$IT_DIR/err"; return 1; }
}
# The export: a fit of a real module (shm) can have a range that is not
# LogGP (L < 0 on a noisy run), which the export carries as the same round
# trip, or refuses where no parameters of LogGOPSim give it: a refusal fails
# the attempt, with its message, and the run is measured again.
export_run() {
    ngx_run 30 predict --params "$IT_DIR/run.json" --export loggopsim
    [[ $RC == 0 ]] || { echo "--export loggopsim: exit $RC: $(cat "$IT_DIR/err")"; return 1; }
    cp "$IT_DIR/out" "$IT_DIR/export.txt"
    cat "$IT_DIR/export.txt"
}
# For each size: the exported line with the smallest -S >= s, simulated; the
# ratio to the measured PRTT(1,0,s) (LogGOPSim's times are in the unit the
# export's first line names: picoseconds, or femtoseconds when all fit).
check() {
    local size measured line sim_ps worst=0 rc=0 per_us
    export_run || return 1
    case $(head -1 "$IT_DIR/export.txt") in
    *"integer femtoseconds"*) per_us=1e9 ;;
    *"integer picoseconds"*) per_us=1e6 ;;
    *) echo "the export names no unit: $(head -1 "$IT_DIR/export.txt")"; return 1 ;;
    esac
    while read -r size measured; do
        line=$(awk -v s="$size" '/^-L/ { for (i = 1; i < NF; i++) if ($i == "-S") S = $(i + 1);
                                          if (S + 0 >= s + 0) { print; exit } last = $0 } END { if (!NR) exit 1 }' \
               "$IT_DIR/export.txt")
        [[ -n $line ]] || line=$(grep '^-L' "$IT_DIR/export.txt" | tail -1)
        # shellcheck disable=SC2086 # the exported flags are words
        sim_ps=$(loggopsim_pingpong "$size" 4 $line) || { echo "LogGOPSim failed: $sim_ps"; return 1; }
        model=$measured limit=$tolerance
        if [[ $against == model ]]; then
            # A range the export could carry only approximately (a negative
            # per-byte cost as 0; 2o + L < 0 as a line from 0) may differ by
            # what its comment line says it shrinks or grows by.
            limit=$(awk -v t="$tolerance" '/shrinks by|grows by/ { for (i = 1; i < NF; i++) if ($i == "by") { p = $(i + 1); sub("%", "", p);
                     if (p / 100 > d) d = p / 100 } } END { print t + d }' "$IT_DIR/export.txt")
            ngx_run 30 predict --params "$IT_DIR/run.json" --op pingpong -s "$size" --format json
            model=$(json_field "$IT_DIR/out" '2 * d["predictions"][0]["time_us"]' 2>/dev/null)
            [[ -n $model ]] || { echo "ngx predict printed no prediction for $size B"; return 1; }
        fi
        python3 - "$size" "$measured" "$sim_ps" "$model" "$against" "$limit" "$per_us" <<'PY' || rc=1
import sys
size, measured, model = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[4])
sim = float(sys.argv[3]) / float(sys.argv[7])
against, tolerance = sys.argv[5], float(sys.argv[6])
err = (sim - model) / model
line = f"  {size:>6} B: measured PRTT(1,0,s) {measured:.4f} us, LogGOPSim {sim:.4f} us"
if against == "model":
    line += f", ngx's model {model:.4f} us: LogGOPSim {100 * err:+.2f}% from the model"
else:
    line += f" ({100 * err:+.2f}%)"
print(line)
sys.exit(0 if abs(err) <= tolerance else 1)
PY
    done < <(python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]: print(r["size_bytes"], r["median_us"])' "$IT_DIR/run.json")
    return $rc
}
if [[ $module == shm ]]; then LG_ATTEMPTS=3; fi
lg_measure_and_check "LogGOPSim reproduces PRTT(1,0,s), set ${1:-A}" run check
echo PASS
