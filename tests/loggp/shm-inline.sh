#!/bin/bash
# shm-inline.sh: the loggp pattern finds the shm module's inline switch.
# A shm record is an 8-byte header and its payload in 64-byte cells
# (modules/shm/ring.hpp), so a message of up to 56 bytes costs one cache line
# from writer to reader and a larger one at least two. Sizes 16..256 B in
# steps of 1.2x, pinned to CPUs 0,1; asserted: a protocol range starts within
# one size step of the first measured size above 56 B.
# The step is one cache line, ~10% of PRTT(1,0,s) and a few timer steps. Its
# margin comes from the run itself: an attempt whose step across 56 B is
# under 8 times its own noise (the medians' scatter or their 95% half-width)
# cannot show the switch, and does not count against the detector. Up to
# three attempts; the test fails when an attempt that could show the switch
# missed it and no attempt found it, and is skipped (77, with the numbers)
# when no attempt could show it (a busy machine hides it).
source "$(dirname "$0")/common.sh"
lg_need_cpus
lg_need_module shm
missed_resolvable=0
for attempt in 1 2 3; do
    echo "--- shm's 56-byte inline switch, attempt $attempt (load: $(cut -d' ' -f1-3 /proc/loadavg))"
    ngx_run 120 -m shm -x loggp -s 16-256 --grade 1.2 --cpus 0,1 -o "$IT_DIR/shm.json"
    [[ $RC == 0 ]] || fail "the measurement failed: $(tail -5 "$IT_DIR/err")"
    sed -n '/^# loggp parameters/,$p' "$IT_DIR/out"
    "${LG_CHECK[@]}" change-point "$IT_DIR/shm.json" --at 56 --resolve 8
    case $? in
        0) ok "shm's 56-byte inline switch (attempt $attempt)"; echo PASS; exit 0 ;;
        3) ;;
        *) missed_resolvable=$((missed_resolvable + 1)) ;;
    esac
done
((missed_resolvable == 0)) || fail "the switch was missed in $missed_resolvable attempt(s) whose step stood 8 times above the noise"
echo "SKIP: in 3 attempts this machine's noise hid the one-cache-line step at 56 B (numbers above)"
exit 77
