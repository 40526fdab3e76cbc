#!/bin/bash
# default-job.sh: `ngx` with no arguments runs the main job (ping-pong over
# every local module) and exits 0 with one table per module, shm and tcp.
source "$(dirname "$0")/lib.sh"
ngx_run 120
[[ $RC == 0 ]] || fail "ngx with no arguments exited $RC"
for m in shm tcp; do
    grep -q "^# $m pingpong" out || fail "no $m table in the default job's output"
    # at least the 1-byte row of that table
    awk -v m="$m" '/^# /{cur=$2} cur==m && $1=="1" && $2=="B"{found=1} END{exit !found}' out ||
        fail "the $m table has no 1 B row"
done
[[ $(grep -c '^# ' out) == 2 ]] || fail "expected exactly 2 tables, got: $(grep '^# ' out)"
ok "default job: $(grep '^# ' out | tr '\n' ' ')"
echo PASS
