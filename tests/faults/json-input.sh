#!/bin/bash
# json-input.sh: the JSON files of predict, fit and compare are checked
# before they are used (issue 31 item 9). A range's from_bytes of -5 or
# 1e300, an unknown schema_version, a "pattern" that is not a string, a
# pair count best-k would count up to for ever: exit 2 naming the field. compare says when a run holds several results of one
# size. A FIFO (or any file that is not a regular one) is refused at once
# instead of blocking.
source "$(dirname "$0")/../integration/lib.sh"
model() { # FROM_BYTES [EXTRA_TOP_LEVEL_JSON]: a one-range loggp model file on stdout
    printf '{"pattern": "loggp", %s"model": {"kind": "loggp", "ranges": [{"from_bytes": %s, "to_bytes": 1024, "L_us": 5, "o_us": 1, "g_us": 2, "G_us_per_byte": 0.0003}]}}\n' "${2:-}" "$1"
}
# refused WHAT PATTERN ARG...: ngx ARG... exits 2 within 10 s naming PATTERN
refused() {
    local what=$1 pattern=$2
    shift 2
    ngx_run 10 "$@"
    [[ $RC == 2 ]] || fail "$what: exit $RC, expected 2: $(cat out err | head -5)"
    grep -q -- "$pattern" err || fail "$what: the message does not say '$pattern': $(cat err)"
    ok "$what: $(head -1 err | cut -c1-120)"
}

model 1 >good.json
ngx_run 10 predict --params good.json --op pingpong -s 100
[[ $RC == 0 ]] || fail "the valid model: exit $RC: $(cat err)"

model -5 >negative.json
refused "from_bytes -5" '"from_bytes" is -5' predict --params negative.json --op pingpong -s 100
model 1e300 >huge.json
refused "from_bytes 1e300" '"from_bytes" is 1e+300' predict --params huge.json --op pingpong -s 100
model 1 '"schema_version": 99, ' >future.json
refused "schema_version 99 (predict)" '"schema_version" is 99' predict --params future.json --op pingpong -s 100
refused "schema_version 99 (fit)" '"schema_version" is 99' fit future.json
refused "schema_version 99 (compare)" '"schema_version" is 99' compare future.json good.json
printf '{"pattern": 5, "model": {"kind": "loggp", "ranges": []}}\n' >pattern.json
refused "a numeric pattern (fit)" '"pattern" is not a string' fit pattern.json
refused "a numeric pattern (predict)" '"pattern" is not a string' predict --params pattern.json --op pingpong -s 1

cat >nodecomm.json <<'JSON'
{"pattern": "nodecomm", "model": {"kind": "nodecomm", "ranges": [{"from_bytes": -5, "to_bytes": 1024}]}}
JSON
refused "a nodecomm range from -5 bytes" '"from_bytes" is -5' predict --params nodecomm.json --op nodecomm -k 2 -s 64
cat >manypairs.json <<'JSON'
{"pattern": "nodecomm", "model": {"kind": "nodecomm", "ranges": [{"from_bytes": 0}], "nodecomm": {"pairs": [1000000000000000]}}}
JSON
refused "10^15 measured pairs for best-k" '"nodecomm.pairs" holds 1000000000000000' predict --params manypairs.json --op best-k -s 1Mi

cat >twice.json <<'JSON'
{"module": "tcp", "pattern": "pingpong", "results": [
  {"size_bytes": 64, "count": 10, "median_us": 5.0}, {"size_bytes": 64, "count": 10, "median_us": 9.0}]}
JSON
cat >once.json <<'JSON'
{"module": "shm", "pattern": "pingpong", "results": [{"size_bytes": 64, "count": 10, "median_us": 1.0}]}
JSON
ngx_run 10 compare once.json twice.json
[[ $RC == 0 ]] || fail "compare with a repeated size: exit $RC: $(cat err)"
grep -q '2 results of 64 B; the last one is compared' err || fail "compare does not say the results collide: $(cat err)"
ok "compare names the colliding size: $(head -1 err)"

mkfifo pipe.json
refused "a FIFO (predict)" 'not a regular file' predict --params pipe.json --op pingpong -s 1
refused "a FIFO (fit)" 'not a regular file' fit pipe.json
refused "a FIFO (compare)" 'not a regular file' compare pipe.json good.json
echo PASS
