#!/usr/bin/env bash
# Bad input to strided, bcast and predict: exit 2 with a message naming it.
source "$(dirname "$0")/common.sh"


expect_usage "stride 0" "--strides '0'" "$NGX" -m tcp -x strided -s 1Ki --strides 1,0
expect_usage "stride 0, pattern's spelling" "--strided-strides '0'" "$NGX" -m tcp -x strided -s 1Ki --strided-strides 1,0
expect_usage "stride over the buffer limit" "over the buffer limit" \
    "$NGX" -m tcp -x strided -s 1Mi --strides 1,1Mi
expect_usage "--strides for a contiguous pattern" "sends contiguous messages" "$NGX" -m tcp -x pingpong --strides 1,4
expect_usage "--strides and --strided-strides both" "both choose the strides" \
    "$NGX" -m tcp -x strided -s 1Ki --strides 1,4 --strided-strides 1,2
expect_usage "unknown type" "expected double, int or char" "$NGX" -m tcp -x strided -s 1Ki --strided-type float
expect_usage "size not a whole number of elements" "whole number of 8-byte elements" \
    "$NGX" -m tcp -x strided -s 1001 --strides 1
expect_usage "bcast without collectives" "has no collectives" "$NGX" -m tcp -x bcast -s 1Ki
# predict: P < 2, and a file without a log3P model
run_file=$SCRATCH/strided.json
timeout 60 "$NGX" -m tcp -x strided -s 1Ki,4Ki --strides 1,4 -c 20 -o "$run_file" >/dev/null 2>&1 ||
    fail "a small strided run failed"
# the good case first: the run's grid, measured against log3P and LogGP (2 sizes x 2 strides)
grid=$("$NGX" predict --params "$run_file" --format csv) || fail "predict on the run's grid failed"
[[ $(grep -cE '^log3p,pingpong,[0-9]+,[0-9]+,[0-9.e+-]+,[0-9.e+-]+,[0-9.e+-]+$' <<<"$grid") == 4 ]] ||
    { echo "$grid"; fail "predict: expected 4 grid rows with their measured time and error"; }
expect_usage "predict with P = 1" "processes '1'" "$NGX" predict --params "$run_file" -s 1Ki -P 1
echo '{"pattern": "strided", "model": {"kind": "log3p"}}' >"$SCRATCH/empty.json"
expect_usage "predict without a model" "no log3P model" "$NGX" predict --params "$SCRATCH/empty.json" -s 1Ki
echo PASS
