#!/bin/bash
# Bad input to the overhead pattern and its offline hooks exits 2 with a
# message naming the cause.
source "$(dirname "$0")/common.sh"


expect_usage -i "overhead-root" "overhead-root" "$NGX" -m sim -x overhead -s 1 -c 10 --overhead-root sideways
expect_usage -i "overhead-delay" "overhead-delay" "$NGX" -m sim -x overhead -s 1 -c 10 --overhead-delay -3
expect_usage -i "overhead-call" "overhead-call" "$NGX" -m sim -x overhead -s 1 -c 10 --overhead-call maybe
expect_usage -i "no non-blocking" "no non-blocking" "$NGX" -m shm -x overhead -s 1 -c 10 --overhead-call nonblocking
expect_usage -i "sim-mode" "sim-mode" "$NGX" -m sim --sim-mode eager -x overhead -s 1 -c 10
"$NGX" -m sim -x overhead -s 1,1Ki -c 20 --warmup 2 -o "$SCRATCH/run.json" >/dev/null 2>&1 || fail "a short run failed"
expect_usage -i "needs two" "needs two" "$NGX" fit "$SCRATCH/run.json" --loghssp
expect_usage -i "one saved overhead run" "one saved overhead run" "$NGX" fit "$SCRATCH/run.json" "$SCRATCH/run.json"
expect_usage -i "--base 'nope'" "--base 'nope'" "$NGX" fit "$SCRATCH/run.json" --base nope
echo '{"pattern": "overhead", "results": [{"size_bytes": 1}]}' >"$SCRATCH/bare.json"
expect_usage -i "min_us" "min_us" "$NGX" fit "$SCRATCH/bare.json"
echo 'not json' >"$SCRATCH/junk.json"
expect_usage -i "junk.json" "junk.json" "$NGX" fit "$SCRATCH/junk.json"
"$NGX" fit --loghssp "$SCRATCH/run.json" "$SCRATCH/run.json" -o "$SCRATCH/model.json" >/dev/null ||
    fail "fit --loghssp on two runs failed"
expect_usage -i "tier" "tier" "$NGX" predict --params "$SCRATCH/model.json" --op p2p -s 1Ki
expect_usage -i "tier" "tier" "$NGX" predict --params "$SCRATCH/model.json" --op p2p --tier middle -s 1Ki
expect_usage -i "op" "op" "$NGX" predict --params "$SCRATCH/model.json" --op bcast --tier intra -s 1Ki
expect_usage -i "size" "size" "$NGX" predict --params "$SCRATCH/model.json" --tier intra -s lots
expect_usage -i "not a LoGH" "not a LoGH" "$NGX" predict --params "$SCRATCH/run.json" --tier intra -s 1Ki
echo PASS
