#!/usr/bin/env bash
# The ReFrame library (reframe/) on the local system, over the sim in virtual
# time (exact, deterministic), with the suite's site configuration:
#  1. partition ngx-local:local (scheduler local, launcher local): baselines
#     recorded, then every check passes against them; ReFrame's perflog holds
#     ngx's numbers with their units (latency_1B = o_s + L + o_r = 12 us);
#  2. a planted regression, the sim's L raised from 10 to 12.5 us (small
#     messages 20% slower): exactly NgxLatency fails, and its message is
#     ngx check's verdict;
#  3. bad configuration fails a check with a clear message, no traceback: no
#     baseline file (NgxLatency), a module this ngx lacks (NgxBandwidth).
# mpirun.sh runs the library under the mpirun launcher, slurm.sh under srun.
source "$(dirname "$0")/common.sh"

# --- 1. local launcher: record, then pass ------------------------------------
record_baselines ngx-local:local
ls "$SCRATCH/baselines/ngx-local/local"
rfm ngx-local:local
[[ $RC == 0 ]] || { cat rfm.out; fail "the unchanged system failed a check: exit $RC"; }
outcome | tee outcome.txt
[[ $(grep -c ' pass$' outcome.txt) == 6 && $(wc -l <outcome.txt) == 6 ]] ||
    fail "6 test cases expected to pass (latency, bandwidth, loggp, allpairs, 2 collectives)"
perflog=$(find "$SCRATCH" -path '*perflogs/ngx-local/local/NgxLatency.log' | head -1)
[[ -n $perflog ]] || fail "no perflog of NgxLatency"
tail -1 "$perflog"
tail -1 "$perflog" | grep -Eq '\|latency_1B=12\.0 us(\||$)' || fail "the perflog lacks latency_1B=12.0 us: $(tail -1 "$perflog")"
grep -Eq '\|bandwidth_1MiB=9[0-9][0-9]\.[0-9]* MB/s(\||$)' "$(dirname "$perflog")/NgxBandwidth.log" ||
    fail "the perflog lacks bandwidth_1MiB in MB/s: $(tail -1 "$(dirname "$perflog")/NgxBandwidth.log")"
grep -Eq '\|r0_L_us=10\.0 us(\||$)' "$(dirname "$perflog")/NgxLogGP.log" ||
    fail "the perflog lacks r0_L_us=10.0 us: $(tail -1 "$(dirname "$perflog")/NgxLogGP.log")"
grep -Eq '\|error_1MiB=[-0-9.e]+ %(\||$)' "$(dirname "$perflog")/NgxCollectives.log" ||
    fail "the perflog lacks error_1MiB in %: $(tail -1 "$(dirname "$perflog")/NgxCollectives.log")"
ok "all checks pass on the unchanged sim; the perflogs hold ngx's numbers with units"

# --- 2. planted regression: L 10 -> 12.5 us ------------------------------------
SIM_NETWORK="--sim-clock virtual --sim-L 12.5" rfm ngx-local:local
[[ $RC != 0 ]] || fail "the planted regression passed every check"
outcome | tee outcome.txt
[[ $(grep -v ' pass$' outcome.txt) == "NgxLatency fail" ]] || fail "exactly NgxLatency must fail"
why=$(reason NgxLatency)
echo "$why"
[[ $why == *"ngx check against"*"REGRESSION: 3 regressions"*"1 B: regression: +20.8% (12 -> 14.5"* ]] ||
    fail "the failure does not give ngx check's verdict"
ok "the planted regression fails NgxLatency alone, with ngx check's verdict"

# --- 3. bad configuration -------------------------------------------------------
mkdir empty
rfm ngx-local:local -n 'NgxLatency|NgxBandwidth' -S "NgxLatency.baseline_dir=$SCRATCH/empty" \
    -S NgxBandwidth.ngx_module=nosuch -S NgxBandwidth.module_opts=
[[ $RC != 0 ]] || fail "a missing baseline and a missing module passed"
outcome | tee outcome.txt
[[ $(grep -c ' fail$' outcome.txt) == 2 ]] || fail "both checks must fail"
why=$(reason NgxLatency)
echo "$why"
[[ $why == *"no baseline for ngx-local:local at $SCRATCH/empty/ngx-local/local/NgxLatency-sim.json"* ]] ||
    fail "the missing baseline is not named"
why=$(reason NgxBandwidth)
echo "$why"
[[ $why == *"ngx -m nosuch exited 2: ngx"*"nosuch"* ]] || fail "the missing module is not named"
ok "bad configuration: failed checks with clear messages"

echo PASS
