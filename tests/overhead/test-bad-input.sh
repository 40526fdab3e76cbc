#!/bin/bash
# Bad input to the overhead pattern and its offline hooks exits 2 with a
# message naming the cause.
source "$(dirname "$0")/common.sh"

expect_usage() {  # WORDS-EXPECTED-IN-STDERR -- COMMAND...
    local want=$1
    shift 2
    "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
    local code=$?
    [[ $code -eq 2 ]] || { cat "$SCRATCH/err"; fail "exit $code, not 2: $*"; }
    grep -qi -- "$want" "$SCRATCH/err" || { cat "$SCRATCH/err"; fail "stderr does not name '$want': $*"; }
    echo "ok (exit 2, names '$want'): $*"
}

expect_usage "overhead-root" -- "$NGX" -m sim -x overhead -s 1 -c 10 --overhead-root sideways
expect_usage "overhead-delay" -- "$NGX" -m sim -x overhead -s 1 -c 10 --overhead-delay -3
expect_usage "overhead-call" -- "$NGX" -m sim -x overhead -s 1 -c 10 --overhead-call maybe
expect_usage "no non-blocking" -- "$NGX" -m shm -x overhead -s 1 -c 10 --overhead-call nonblocking
expect_usage "sim-mode" -- "$NGX" -m sim --sim-mode eager -x overhead -s 1 -c 10
"$NGX" -m sim -x overhead -s 1,1Ki -c 20 --warmup 2 -o "$SCRATCH/run.json" >/dev/null 2>&1 || fail "a short run failed"
expect_usage "needs two" -- "$NGX" fit "$SCRATCH/run.json" --loghssp
expect_usage "one saved overhead run" -- "$NGX" fit "$SCRATCH/run.json" "$SCRATCH/run.json"
expect_usage "--base 'nope'" -- "$NGX" fit "$SCRATCH/run.json" --base nope
echo '{"pattern": "overhead", "results": [{"size_bytes": 1}]}' >"$SCRATCH/bare.json"
expect_usage "min_us" -- "$NGX" fit "$SCRATCH/bare.json"
echo 'not json' >"$SCRATCH/junk.json"
expect_usage "junk.json" -- "$NGX" fit "$SCRATCH/junk.json"
"$NGX" fit --loghssp "$SCRATCH/run.json" "$SCRATCH/run.json" -o "$SCRATCH/model.json" >/dev/null ||
    fail "fit --loghssp on two runs failed"
expect_usage "tier" -- "$NGX" predict --params "$SCRATCH/model.json" --op p2p -s 1Ki
expect_usage "tier" -- "$NGX" predict --params "$SCRATCH/model.json" --op p2p --tier middle -s 1Ki
expect_usage "op" -- "$NGX" predict --params "$SCRATCH/model.json" --op bcast --tier intra -s 1Ki
expect_usage "size" -- "$NGX" predict --params "$SCRATCH/model.json" --tier intra -s lots
expect_usage "not a LoGH" -- "$NGX" predict --params "$SCRATCH/run.json" --tier intra -s 1Ki
echo PASS
