#!/usr/bin/env bash
# Suite 'schema': every kind of JSON ngx writes conforms to the
# published schema (schema/ngx-result.schema.json): one run and several, each
# pattern, --raw and --percentiles, an interrupted-free error-free sim run;
# and the validator rejects a document that breaks it, naming the field.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
NGX=${NGX:?NGX must name the ngx binary}
here=$(cd "$(dirname "$0")" && pwd)
validate=(python3 "$here/../../schema/validate.py")
make_scratch
dir=$SCRATCH
cd "$dir" || fail "cd $dir"
python3 -c 'import json, jsonschema; jsonschema.Draft202012Validator.check_schema(json.load(open(__import__("sys").argv[1])))' \
    "$here/../../schema/ngx-result.schema.json" || fail "the schema itself is not a valid JSON Schema 2020-12"

quick=(-s 1-4Ki -c 10 --warmup 2)
runs=(
    "one.json|-m sim -x pingpong ${quick[*]}"
    "two.json|-m sim,shm -x pingpong ${quick[*]}"
    "variants.json|-m sim --sim-L 5,10 -x pingpong ${quick[*]}"
    "raw.json|-m sim -x pingpong ${quick[*]} --raw --percentiles 25,75,99.9"
    "pingping.json|-m sim -x pingping ${quick[*]}"
    "loggp.json|-m sim -x loggp ${quick[*]}"
    "loggps.json|-m sim -x loggps ${quick[*]}"
    "overhead.json|-m sim -x overhead ${quick[*]}"
    "ebb.json|-m sim --sim-clock virtual --pairs 2 -x ebb -s 16Ki -c 2 --ebb-bisections 2"
    "congestion.json|-m sim --sim-clock virtual --pairs 2 -x congestion -s 16Ki -c 2"
    "loghssp.json|-m sim --sim-clock virtual --pairs 2 -x loghssp --host-of a,a,b,b -s 1,1Ki -c 10 --warmup 2"
)
for entry in "${runs[@]}"; do
    file=${entry%%|*}
    read -r -a arguments <<<"${entry#*|}"
    pattern=$(sed -n 's/.*-x \([a-z]*\).*/\1/p' <<<"${arguments[*]}")
    "$NGX" --list-patterns | grep -q "^  $pattern " || fail "pattern $pattern is not built"
    "$NGX" "${arguments[@]}" -o "$file" >/dev/null 2>err || fail "ngx ${arguments[*]}: $(cat err)"
    "${validate[@]}" "$file" || fail "ngx ${arguments[*]} -o $file does not conform to the schema"
done
"$NGX" -m sim -x loggp "${quick[@]}" --raw-prtt prtt.csv -o /dev/null --format json >/dev/null || fail "--raw-prtt"
[[ -c /dev/null ]] || fail "-o /dev/null put a regular file in place of the device"
# -o through a symbolic link writes the file it points to and keeps the link.
ln -s linked-target.json link.json
"$NGX" -m sim -x pingpong "${quick[@]}" -o link.json >/dev/null 2>err || fail "-o link.json: $(cat err)"
[[ -L link.json ]] || fail "-o link.json replaced the symbolic link with a file"
"${validate[@]}" linked-target.json || fail "-o link.json did not write the file it points to"
"$NGX" fit prtt.csv -o fit.json >/dev/null 2>err || fail "ngx fit prtt.csv -o fit.json: $(cat err)"
"${validate[@]}" fit.json || fail "ngx fit -o fit.json (an offline fit) does not conform"
"$NGX" -m sim -x pingpong "${quick[@]}" --format json >stdout.json || fail "--format json"
"${validate[@]}" stdout.json || fail "--format json on stdout does not conform"

# A document that breaks the schema is rejected, the field named.
break_and_check() { # break_and_check PYTHON-STATEMENT EXPECTED-TEXT
    python3 - "$1" <<'PY' || fail "could not write broken.json"
import json, sys
d = json.load(open("one.json"))
exec(sys.argv[1])
json.dump(d, open("broken.json", "w"))
PY
    "${validate[@]}" broken.json >out 2>&1
    local code=$?
    [ $code -eq 1 ] && grep -q -- "$2" out || fail "the validator accepted '$1' (exit $code): $(cat out)"
}
break_and_check 'd["results"][0]["median_us"] = "fast"' "results/0/median_us"
break_and_check 'd["schema_version"] = 2' "schema_version"
break_and_check 'del d["host"]' "'host' is a required property"
break_and_check 'd["results"][0]["size_bytes"] = -1' "results/0/size_bytes"
break_and_check 'd["status"] = "fine"' "status"
"${validate[@]}" missing.json >/dev/null 2>&1
[ $? -eq 2 ] || fail "the validator should exit 2 on a missing file"

# Installed with ngx, beside the plot script and the completion.
if [ -n "${NGX_BUILD_ROOT:-}" ]; then
    meson introspect "$NGX_BUILD_ROOT" --installed >installed.json || fail "meson introspect --installed"
    for want in share/ngx/ngx-result.schema.json share/ngx/ngx_plot.py share/bash-completion/completions/ngx; do
        grep -q "$want" installed.json || fail "$want is not installed"
    done
fi
echo "schema: ${#runs[@]} kinds of output conform, broken documents rejected"
