#!/usr/bin/env bash
# Options as a user meets them: a misspelt name is exit 2 naming the closest
# valid one, a bad value is exit 2 in the one format with the row's range,
# and --help shows each option's type and range from its declared row.
source "$(dirname "$0")/../lib/ngx-run.sh"

S=(-s 1 -c 1 --warmup 0)

# refused REGEX ARG...: ngx ARG... exits 2 and its stderr matches REGEX (extended)
refused() { expect_ngx_usage -E "ngx ${*:2}" "$@"; }

refused "'--loggp-nn' is unknown to pattern 'loggp' \(did you mean '--loggp-n'\?\)" -m sim -x loggp --loggp-nn 3
refused "'--tcp-progresss' is unknown to module 'tcp' \(did you mean '--tcp-progress'\?\)" \
    -m tcp "${S[@]}" --tcp-progresss poll
refused "--loggp-n '1': must be in 2\.\.10000" -m sim -x loggp "${S[@]}" --loggp-n 1
refused "--loggp-detector 'fast': expected robust, paper or none" -m sim -x loggp "${S[@]}" --loggp-detector fast
refused "--tcp-port '70000': must be in 0\.\.65535" -m tcp "${S[@]}" --tcp-port 70000
refused "--tcp-progress 'spin': expected block or poll" -m tcp "${S[@]}" --tcp-progress spin
refused "--sim-S 'x': expected a size such as 4Ki" -m sim "${S[@]}" --sim-S x

ngx_run 20 -m tcp -x loggp --help
[[ $RC == 0 ]] || fail "-m tcp -x loggp --help exited $RC"
help=$(tr -s ' \n' ' ' <"$IT_DIR/out") # Boost wraps long help lines
for shown in "--loggp-n arg (=16) messages n of PRTT(n,0,s) and PRTT(n,d,s) [whole number, 2..10000]" \
    "[auto, per-sample or batch]" "[robust, paper or none]" "--tcp-port arg (=0) port to listen on; 0 picks a free one [whole number, 0..65535]" \
    "[bytes, 0..1Gi]" "[block or poll]" "[yes or no]"; do
    [[ $help == *"$shown"* ]] || fail "--help lacks '$shown'"
done
ok "--help shows each option's type and range from its row"

# The core's own options: a misspelt name names the closest, a bad value is
# the row's message in the one format.
refused "unknown option '--timeot' \(did you mean '--timeout'\?\)" -m sim "${S[@]}" --timeot 3
refused "--timeout '-1': must be in 0\.001\.\.86400" -m sim "${S[@]}" --timeout -1
refused "--timeout '0': must be in 0\.001\.\.86400" -m sim "${S[@]}" --timeout 0
refused "--retries 'x': expected a whole number in 0\.\.1000000" -m sim "${S[@]}" --retries x
refused "--timer 'fast': expected auto, tsc or clock" -m sim "${S[@]}" --timer fast
refused "--max-size '1Ti': expected a size such as 4Ki in 0\.\.1073741824 bytes" --listen 0 --max-size 1Ti

# The subcommands: declared rows too, each misspelt name answered with the
# closest valid one, each bad value with the row's message.
cat >loggp.json <<'JSON'
{"pattern": "loggp", "model": {"kind": "loggp", "ranges": [
  {"from_bytes": 1, "to_bytes": 65536, "L_us": 5, "o_us": 1, "g_us": 2, "G_us_per_byte": 0.0003}]}}
JSON
cat >overhead.json <<'JSON'
{"pattern": "overhead", "runs": []}
JSON
refused "unrecognised option '--sizez' \(did you mean '--size'\?\)" predict --params loggp.json --op pingpong --sizez 8
refused "unrecognised option '--loghsp' \(did you mean '--loghssp'\?\)" fit overhead.json overhead.json --loghsp
refused "unrecognised option '--tolerence' \(did you mean '--tolerance'\?\)" check a.json b.json --tolerence 5
refused "--tolerance 'x': expected a percentage in 0\.\.1000%" check a.json b.json --tolerance x
refused "--alpha '0\.9': must be in 1e-12\.\.0\.5" check a.json b.json --alpha 0.9
refused "--processes '1': must be in 2\.\.4096" export --goal --op bcast --algorithm linear -P 1 -s 8
refused "--unit 'ms': expected ns, ps or fs" export --goal --op bcast --algorithm linear -P 4 -s 8 --unit ms
refused "--format 'xml': expected table, json or csv" trace analyze . --params loggp.json --format xml

# ngx predict: one type per common option for every kind. -s is a list of
# sizes; an operation of one message refuses a list of several.
refused "--size '8,64': --op pingpong takes one size, not a list of 2" predict --params loggp.json --op pingpong -s 8,64
refused "--size '8-1Ki': --op pingpong takes one size, not a list of 8" predict --params loggp.json --op pingpong -s 8-1Ki
refused "--size '8,x': expected a size such as 4Ki, a range 8-1Mi or a list 8,64,1Ki" \
    predict --params loggp.json --op allreduce -s 8,x -P 4
ngx_run 30 predict --params loggp.json --op pingpong -s 100 --format json
[[ $RC == 0 ]] && grep -q '"time_us": 7.0297' out || fail "predict -s 100 (a list of one): exit $RC: $(cat out err)"
ok "predict -s 100: one size is a list of one"
ngx_run 30 predict --params loggp.json --op allreduce -s 8,64 -P 4 --format json
[[ $RC == 0 ]] && [[ $(grep -c '"bytes": 8\b\|"bytes": 64\b' out) -ge 2 ]] || fail "predict allreduce -s 8,64: exit $RC: $(cat out err)"
ok "predict --op allreduce -s 8,64: a collective takes the list"

# Every subcommand's --help shows each row's type and range.
helps() { # WHAT EXPECTED... : `ngx WHAT --help` shows every EXPECTED text
    local what=$1
    shift
    read -ra words <<<"$what"
    ngx_run 20 "${words[@]}" --help
    [[ $RC == 0 ]] || fail "ngx $what --help exited $RC"
    local text
    text=$(tr -s ' \n' ' ' <"$IT_DIR/out")
    for shown in "$@"; do
        [[ $text == *"$shown"* ]] || fail "ngx $what --help lacks '$shown': $text"
    done
    ok "ngx $what --help shows the rows' types"
}
helps "" "--timeout arg (=10) deadline of every blocking step, seconds [number, 0.001..86400]" \
    "--retries arg" "[whole number, 0..1000000]" "--timer arg (=auto)" "[auto, tsc or clock]" \
    "--max-size arg (=64Mi)" "[bytes, 0..1Gi]" "--format arg" "[table, csv or json]"
helps check "smallest relative change that counts (default: see above)" "[percent, 0..1000]" "[number, 1e-12..0.5]" "[text or junit]"
helps compare "--json" "--help"
helps launches "-o [ --output ] arg" "[file to write]"
helps export "[whole number, 2..4096]" "[bytes, 1..1Gi]" "[ns, ps or fs]" "[number, 0..1000000]"
helps "trace analyze" "[table, json or csv]" "[file to write]"
helps "trace export" "[ns, ps or fs]" "[file to write]"
helps predict "[bytes or a list of them, 0..1024Gi]" "[whole number or a list of them, 1..1073741824]" "[intra or inter]"
helps "predict --params loggp.json" "[bytes or a list of them, 0..1024Gi]" "[number, 0..1000000000]"
helps "fit loggp.json" "[whole number, 1..100]" "[robust, paper or none]" "[table, csv or json]"
