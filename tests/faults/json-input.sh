#!/bin/bash
# json-input.sh: every reader of saved runs (predict, fit, compare, check,
# launches, plot, trace analyze --params) checks its JSON before using it,
# through one reader (ngx/json_input.hpp). A from_bytes of -5, 1e300 or
# 1.5, a size_bytes of -5 or 64.5 or a count of 1e300 in a run's results, an
# unknown schema_version, a "pattern" that is not a string, a pair count
# best-k would count up to for ever: exit 2 naming the field. compare, check
# and launches say when a run holds several results of one size (the last
# one is used). A FIFO (or any file that is not a regular one) is refused at
# once instead of blocking (each refusal bounded by a 10 s timeout).
source "$(dirname "$0")/../lib/ngx-run.sh"
model() { # FROM_BYTES [EXTRA_TOP_LEVEL_JSON]: a one-range loggp model file on stdout
    printf '{"pattern": "loggp", %s"model": {"kind": "loggp", "ranges": [{"from_bytes": %s, "to_bytes": 1024, "L_us": 5, "o_us": 1, "g_us": 2, "G_us_per_byte": 0.0003}]}}\n' "${2:-}" "$1"
}
# each refusal (expect_ngx_usage WHAT PATTERN ARG...) within 10 s
USAGE_DEADLINE=10
model 1 >good.json
ngx_run 10 predict --params good.json --op pingpong -s 100
[[ $RC == 0 ]] || fail "the valid model: exit $RC: $(cat err)"

model -5 >negative.json
expect_ngx_usage "from_bytes -5" '"from_bytes" is -5' predict --params negative.json --op pingpong -s 100
model 1e300 >huge.json
expect_ngx_usage "from_bytes 1e300" '"from_bytes" is 1e+300' predict --params huge.json --op pingpong -s 100
model 1 '"schema_version": 99, ' >future.json
expect_ngx_usage "schema_version 99 (predict)" '"schema_version" is 99' predict --params future.json --op pingpong -s 100
expect_ngx_usage "schema_version 99 (fit)" '"schema_version" is 99' fit future.json
expect_ngx_usage "schema_version 99 (compare)" '"schema_version" is 99' compare future.json good.json
printf '{"pattern": 5, "model": {"kind": "loggp", "ranges": []}}\n' >pattern.json
expect_ngx_usage "a numeric pattern (fit)" '"pattern" is not a string' fit pattern.json
expect_ngx_usage "a numeric pattern (predict)" '"pattern" is not a string' predict --params pattern.json --op pingpong -s 1

cat >nodecomm.json <<'JSON'
{"pattern": "nodecomm", "model": {"kind": "nodecomm", "ranges": [{"from_bytes": -5, "to_bytes": 1024}]}}
JSON
expect_ngx_usage "a nodecomm range from -5 bytes" '"from_bytes" is -5' predict --params nodecomm.json --op nodecomm -k 2 -s 64
cat >manypairs.json <<'JSON'
{"pattern": "nodecomm", "model": {"kind": "nodecomm", "ranges": [{"from_bytes": 0}], "nodecomm": {"pairs": [1000000000000000]}}}
JSON
expect_ngx_usage "10^15 measured pairs for best-k" '"nodecomm.pairs" holds 1000000000000000' predict --params manypairs.json --op best-k -s 1Mi

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

model 1.5 >fraction.json
expect_ngx_usage "from_bytes 1.5" '"from_bytes" is 1.5' predict --params fraction.json --op pingpong -s 100

# result FILE SIZE [COUNT]: a one-size pingpong result file
result() {
    printf '{"schema_version": 1, "module": "tcp", "pattern": "pingpong", "results": [{"size_bytes": %s, "count": %s, "median_us": 5.0, "min_us": 4.0}]}\n' "$2" "${3:-10}" >"$1"
}
result base.json 64
result negative-size.json -5
result fraction-size.json 64.5
result huge-count.json 64 1e300
expect_ngx_usage "size_bytes -5 (compare)" 'results\[0\]: "size_bytes" is -5' compare base.json negative-size.json
expect_ngx_usage "size_bytes 64.5 (check)" '"size_bytes" is 64.5' check base.json fraction-size.json
expect_ngx_usage "count 1e300 (launches)" '"count" is 1e+300' launches base.json huge-count.json
expect_ngx_usage "count 1e300 (plot)" '"count" is 1e+300' plot huge-count.json -o never.png
[[ ! -e never.png ]] || fail "plot drew a figure from a refused file"
expect_ngx_usage "schema_version 99 (check)" '"schema_version" is 99' check future.json good.json
expect_ngx_usage "schema_version 99 (launches)" '"schema_version" is 99' launches future.json good.json
expect_ngx_usage "schema_version 99 (trace analyze --params)" '"schema_version" is 99' trace analyze . --params future.json
cat >loggps.json <<'JSON'
{"pattern": "loggps", "model": {"kind": "loggps", "L_us": {"value": 1}, "o_prime_us": {"value": 1},
 "O_s_us_per_byte": {"value": 0}, "O_r_us_per_byte": {"value": 0}, "G_s_us_per_byte": {"value": 0.001},
 "G_l_us_per_byte": {"value": 0.001}, "s_bytes": 0, "S_bytes": -5}}
JSON
expect_ngx_usage "S_bytes -5 (trace analyze --params)" '"S_bytes" is -5' trace analyze . --params loggps.json

ngx_run 10 launches twice.json twice.json
[[ $RC == 0 ]] || fail "launches with a repeated size: exit $RC: $(cat err)"
grep -q '2 results of 64 B; the last one is compared' err || fail "launches does not say the results collide: $(cat err)"
[[ $(grep -c '^ *64 B' out) == 1 ]] || fail "launches lists the repeated size more than once: $(cat out)"
ok "launches names the colliding size and lists it once"

mkfifo pipe.json
expect_ngx_usage "a FIFO (predict)" 'not a regular file' predict --params pipe.json --op pingpong -s 1
expect_ngx_usage "a FIFO (fit)" 'not a regular file' fit pipe.json
expect_ngx_usage "a FIFO (compare)" 'not a regular file' compare pipe.json good.json
expect_ngx_usage "a FIFO (check)" 'not a regular file' check pipe.json base.json
expect_ngx_usage "a FIFO (launches)" 'not a regular file' launches pipe.json base.json
expect_ngx_usage "a FIFO (plot)" 'not a regular file' plot pipe.json -o never.png
expect_ngx_usage "a FIFO (trace analyze --params)" 'not a regular file' trace analyze . --params pipe.json
echo PASS
