#!/bin/bash
# shm-inline.sh: the loggp pattern finds the shm module's inline switch
# (issue 9, item 4). A shm record is an 8-byte header and its payload in
# 64-byte cells (modules/shm/ring.hpp), so a message of up to 56 bytes costs
# one cache line from writer to reader and a larger one at least two. Sizes
# 16..256 B in steps of 1.2x, pinned to CPUs 0,1; asserted: a protocol range
# starts within one size step of the first measured size above 56 B. Three
# attempts: the step is one cache line, ~10% of PRTT(1,0,s) and one or two
# timer steps of this VM, and a busy machine hides it in about a third of runs.
source "$(dirname "$0")/common.sh"
lg_need_cpus
lg_need_module shm
run() {
    ngx_run 120 -m shm -x loggp -s 16-256 --grade 1.2 --cpus 0,1 -o "$IT_DIR/shm.json"
    [[ $RC == 0 ]] || { tail -5 "$IT_DIR/err"; return 1; }
    sed -n '/^# loggp parameters/,$p' "$IT_DIR/out"
}
LG_ATTEMPTS=3 lg_measure_and_check "shm's 56-byte inline switch" run '"${LG_CHECK[@]}" change-point "$IT_DIR/shm.json" --at 56'
echo PASS
