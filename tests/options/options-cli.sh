#!/usr/bin/env bash
# Options as a user meets them: a misspelt name is exit 2 naming the closest
# valid one, a bad value is exit 2 in the one format with the row's range,
# and --help shows each option's type and range from its declared row.
source "$(dirname "$0")/../integration/lib.sh"

S=(-s 1 -c 1 --warmup 0)

# expect CODE REGEX ARG...: ngx ARG... exits CODE and its stderr matches REGEX
expect() {
    local code=$1 regex=$2
    shift 2
    ngx_run 30 "$@"
    [[ $RC == "$code" ]] || fail "ngx $*: exit $RC, expected $code"
    grep -Eq -- "$regex" "$IT_DIR/err" || fail "ngx $*: stderr does not match '$regex'"
    ok "ngx $*"
}

expect 2 "'--loggp-nn' is unknown to pattern 'loggp' \(did you mean '--loggp-n'\?\)" -m sim -x loggp --loggp-nn 3
expect 2 "'--tcp-progresss' is unknown to module 'tcp' \(did you mean '--tcp-progress'\?\)" \
    -m tcp "${S[@]}" --tcp-progresss poll
expect 2 "--loggp-n '1': must be in 2\.\.10000" -m sim -x loggp "${S[@]}" --loggp-n 1
expect 2 "--loggp-detector 'fast': expected robust, paper or none" -m sim -x loggp "${S[@]}" --loggp-detector fast
expect 2 "--tcp-port '70000': must be in 0\.\.65535" -m tcp "${S[@]}" --tcp-port 70000
expect 2 "--tcp-progress 'spin': expected block or poll" -m tcp "${S[@]}" --tcp-progress spin
expect 2 "--sim-S 'x': expected a size such as 4Ki" -m sim "${S[@]}" --sim-S x

ngx_run 20 -m tcp -x loggp --help
[[ $RC == 0 ]] || fail "-m tcp -x loggp --help exited $RC"
help=$(tr -s ' \n' ' ' <"$IT_DIR/out") # Boost wraps long help lines
for shown in "--loggp-n arg (=16) messages n of PRTT(n,0,s) and PRTT(n,d,s) [whole number, 2..10000]" \
    "[auto, per-sample or batch]" "[robust, paper or none]" "--tcp-port arg (=0) port to listen on; 0 picks a free one [whole number, 0..65535]" \
    "[bytes, 0..1Gi]" "[block or poll]" "[yes or no]"; do
    [[ $help == *"$shown"* ]] || fail "--help lacks '$shown'"
done
ok "--help shows each option's type and range from its row"
