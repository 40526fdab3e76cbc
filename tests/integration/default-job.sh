#!/bin/bash
# default-job.sh: `ngx` with no arguments runs the main job, LogGP (paper 001)
# over every local module, and exits 0 with one table and one parameter set
# per module (shm and tcp) and their comparison.
source "$(dirname "$0")/lib.sh"
ngx_run 180
[[ $RC == 0 ]] || fail "ngx with no arguments exited $RC"
for m in shm tcp; do
    grep -q "^# $m loggp" out || fail "no $m loggp table in the default job's output"
    # at least the 1-byte row of that table
    awk -v m="$m" '/^# /{cur=$2} cur==m && $1=="1" && $2=="B"{found=1} END{exit !found}' out ||
        fail "the $m table has no 1 B row"
done
[[ $(grep -c '^# loggp parameters per protocol range' out) == 2 ]] ||
    fail "expected a LogGP parameter set per module, got: $(grep '^# ' out)"
[[ $(grep -c '^  1 B .. .*L_us .*o_us .*g_us .*G_us_per_byte' out) -ge 2 ]] ||
    fail "parameter ranges lack L, o, g or G"
grep -q "^# comparison: loggp" out || fail "no comparison of the two modules"
ok "default job: $(grep '^# ' out | tr '\n' ' ')"
echo PASS
