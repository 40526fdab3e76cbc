#!/bin/bash
# fit-bad-input.sh: `ngx fit` and `ngx predict` refuse bad input with exit 2
# and a message naming the problem, never a silent fit. Each row: the exit code, an extended regex the stderr
# message must match, then the arguments; every row is bounded (5 s) and must
# print no fitted parameters. A valid file and a valid prediction are
# checked first (regex '-': any message), so the rows fail for the reason
# they name.
source "$(dirname "$0")/common.sh"
H=size_bytes,n,delay_us,prtt_1_0_us,prtt_n_0_us,prtt_n_d_us
good() { printf '%s\n1,16,20,20,110,370\n2,16,20,20,110,370\n4,16,20,20.1,110.2,370.4\n8,16,20,20.2,110.4,370.6\n' "$H"; }
pass=0 failed=0
row() {  # RC REGEX ARG...
    local want=$1 regex=$2 problem=""
    shift 2
    timeout -k 2 5 "$NGX" "$@" >"$IT_DIR/out" 2>"$IT_DIR/err" </dev/null
    local rc=$?
    if [[ $rc == 124 || $rc == 137 ]]; then problem="not refused within 5 s"
    elif [[ $rc != "$want" ]]; then problem="exit $rc, expected $want"
    elif [[ $regex != - ]] && ! grep -Eq -- "$regex" "$IT_DIR/err"; then problem="message does not match /$regex/"
    elif [[ $want != 0 ]] && grep -Eq 'L_us|g_us|G_us_per_byte|predicted' "$IT_DIR/out"; then
        problem="it printed a result anyway"
    fi
    local msg
    msg=$(head -c 200 "$IT_DIR/err" | tr '\n' ' ')
    if [[ -n $problem ]]; then
        failed=$((failed + 1)); echo "FAIL   ngx $(printf '%q ' "$@")-> $problem; stderr: $msg"
    else
        pass=$((pass + 1)); echo "ok     ngx $(printf '%q ' "$@")-> $rc: $msg"
    fi
}
f() { echo "$IT_DIR/$1"; }
# --- controls: the valid inputs work -----------------------------------------
good >"$(f good.csv)"
row 0 - fit "$(f good.csv)" -o "$(f good.json)"
grep -q '"ranges"' "$(f good.json)" || fail "the control fit wrote no model"
row 0 - predict --params "$(f good.json)" --op pingpong -s 4Ki
# --- ngx fit: raw-PRTT CSV ---------------------------------------------------
good | sed '1s/,prtt_n_d_us$//; 2,$s/,[^,]*$//' >"$(f missing-column.csv)"
row 2 "missing-column\.csv:1: missing column 'prtt_n_d_us'" fit "$(f missing-column.csv)"
good | sed '3s/^2,16,20,20,/2,16,20,abc,/' >"$(f non-numeric.csv)"
row 2 "non-numeric\.csv:3: column prtt_1_0_us: 'abc' is not a number" fit "$(f non-numeric.csv)"
good | sed '3s/,110,/,nan,/' >"$(f nan.csv)"
row 2 "nan\.csv:3: column prtt_n_0_us: 'nan' is not a number" fit "$(f nan.csv)"
good | head -3 >"$(f two-sizes.csv)"
row 2 "two-sizes\.csv: 2 sizes;.*at least three" fit "$(f two-sizes.csv)"
printf '%s\n' "$H" >"$(f header-only.csv)"
row 2 "header-only\.csv: 0 sizes;.*at least three" fit "$(f header-only.csv)"
good | sed '3{h;d};4{G}' >"$(f unsorted.csv)"   # sizes 1,4,2,8
head -2 "$(f unsorted.csv)" | tail -1 | grep -q '^1,' || fail "fixture"
row 2 "unsorted\.csv:4: sizes must increase.*\(2 after 4\)" fit "$(f unsorted.csv)"
good | sed '4s/^4,/2,/' >"$(f duplicate.csv)"
row 2 "duplicate\.csv:4: sizes must increase.*\(2 after 2\)" fit "$(f duplicate.csv)"
: >"$(f empty.csv)"
row 2 "empty\.csv: empty file" fit "$(f empty.csv)"
good | head -c -7 >"$(f truncated.csv)"              # the last line loses its last cell, no newline
row 2 "truncated\.csv:5: expected 6 cells, found 5" fit "$(f truncated.csv)"
good | head -c -6 >"$(f truncated-cell.csv)"         # ... cut just after a comma
row 2 "truncated-cell\.csv:5: column prtt_n_d_us: '' is not a number" fit "$(f truncated-cell.csv)"
good | sed '4s/,[^,]*,[^,]*$//' >"$(f short-line.csv)"
row 2 "short-line\.csv:4: expected 6 cells, found 4" fit "$(f short-line.csv)"
good | sed '3s/$/,7/' >"$(f extra-cell.csv)"
row 2 "extra-cell\.csv:3: expected 6 cells, found 7" fit "$(f extra-cell.csv)"
head -c 4096 "$NGX" >"$(f binary.csv)"
row 2 "binary\.csv: binary data" fit "$(f binary.csv)"
good | sed '1s/prtt_1_0_us,prtt_n_0_us/prtt_n_0_us,prtt_1_0_us/' >"$(f swapped.csv)"
row 2 "swapped\.csv:1: column 4 is 'prtt_n_0_us', expected 'prtt_1_0_us'" fit "$(f swapped.csv)"
good | sed '3s/,-\?[0-9.]*,\([^,]*\),\([^,]*\)$/,-5,\1,\2/' >"$(f negative.csv)"
row 2 "negative\.csv:3: column prtt_1_0_us: -5 is negative" fit "$(f negative.csv)"
good | sed '3s/^2,16,/2,8,/' >"$(f mixed-n.csv)"
row 2 "mixed-n\.csv:3: n must be the same" fit "$(f mixed-n.csv)"
row 2 "nonexistent\.csv: cannot be read" fit "$(f nonexistent.csv)"
echo '{"model": 1}' >"$(f not-a-run.json)"
# A JSON that names no pattern ("pattern", or a model's "kind"): the dispatcher says so.
row 2 "not-a-run\.json: not a saved run: it names no pattern" fit "$(f not-a-run.json)"
echo '{"pattern": "loggp", "model": 1}' >"$(f loggp-not-a-run.json)"
row 2 "loggp-not-a-run\.json: not a saved loggp run" fit "$(f loggp-not-a-run.json)"
echo '{"pattern": "loggp", "results": [' >"$(f broken.json)"
row 2 "broken\.json: starts like JSON but is not valid JSON" fit "$(f broken.json)"
# --- ngx predict -------------------------------------------------------------
row 2 "nonexistent\.json: cannot be read" predict --params "$(f nonexistent.json)" --op pingpong -s 4Ki
row 2 "--params.*required" predict --op pingpong -s 4Ki
row 2 "broken\.json: starts like JSON but is not valid JSON" predict --params "$(f broken.json)" --op pingpong -s 4Ki
row 2 "binary\.csv: not a JSON document" predict --params "$(f binary.csv)" --op pingpong -s 4Ki
row 2 "no LogGP parameters" predict --params "$(f loggp-not-a-run.json)" --op pingpong -s 4Ki
echo '{"pattern":"loggp","model":{"ranges":[{"from_bytes":1,"to_bytes":8,"L_us":"x","o_us":1,"g_us":1,"G_us_per_byte":0.1}]}}' >"$(f bad-range.json)"
row 2 "model range without a numeric 'L_us'" predict --params "$(f bad-range.json)" --op pingpong -s 4
echo '{"pattern":"loggp","model":{"ranges":[{"from_bytes":1,"to_bytes":8,"L_us":1,"o_us":1,"g_us":1,"G_us_per_byte":0.1,"exchange_cpu_share":1.5}]}}' >"$(f bad-share.json)"
row 2 "\"exchange_cpu_share\" is 1\.5, expected a share of O_s and O_r in 0\.\.1" predict --params "$(f bad-share.json)" --op allreduce -P 4 -s 4
row 2 "--op 'pingpang': expected pingpong, prtt, bcast-linear, bcast-tree, bcast, reduce, allreduce" \
    predict --params "$(f good.json)" --op pingpang -s 4Ki
row 2 "--size '4Q': expected a size" predict --params "$(f good.json)" --op pingpong -s 4Q
row 2 "--size '-3': expected a size" predict --params "$(f good.json)" --op pingpong -s -3
row 2 "--size '0': expected a size such as 4Ki in 1\.\." predict --params "$(f good.json)" --op pingpong -s 0
row 2 "-s/--size is required" predict --params "$(f good.json)" --op pingpong
row 2 "--processes '0': must be in 1\.\." predict --params "$(f good.json)" --op bcast-tree -P 0 -s 4Ki
echo "$pass rows ok, $failed failed"
[[ $failed == 0 ]] || fail "$failed row(s) failed"
echo PASS
