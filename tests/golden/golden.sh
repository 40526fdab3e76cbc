#!/bin/bash
# golden.sh: every saved run in the tests' fixtures (tests/**/fixtures/*.json,
# *.csv) refits with `ngx fit` and predicts with `ngx predict` to the same
# output as stored in expected/FIXTURE.txt: the fit's table, its JSON file
# and a fixed set of predictions from the refitted model (and from the saved
# run itself where it holds a model). A file that differs byte for byte is
# compared again number by number (compare.py: 1e-9 relative, the rest of
# the text exactly), so a changed number fails the test.
#
# When a change is meant to change the numbers, regenerate the expected files
# from the source root and commit them with the change that explains them:
#   NGX=build/ngx NGX_PATTERN_PATH=build/patterns NGX_MODULE_PATH=build/modules \
#     bash tests/golden/golden.sh --regenerate
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
: "${NGX:?NGX must point at the ngx executable (meson sets it)}"
[[ -x $NGX ]] || { echo "FAIL: NGX=$NGX is not executable"; exit 1; }
NGX=$(cd "$(dirname "$NGX")" && pwd)/$(basename "$NGX")
GOLDEN_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOURCE_ROOT=$(cd "$GOLDEN_DIR/../.." && pwd)
EXPECTED_DIR=$GOLDEN_DIR/expected
regenerate=0
[[ ${1:-} == --regenerate ]] && regenerate=1
[[ $# -le 1 && (${1:-} == '' || $regenerate == 1) ]] || { echo "usage: golden.sh [--regenerate]" >&2; exit 2; }
make_scratch

# run ARG...: append "## ngx ARG..." with its exit code, stdout and stderr
# to $OUT; sets RC (each ngx bounded to 30 s; the fixtures' fits take under a second).
run() {
    local rc
    ngx_deadline 30 "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
    RC=$rc
    [[ $rc == 124 || $rc == 137 ]] && fail "ngx $* did not finish within 30 s"
    { echo "## ngx $* (exit $rc)"; cat "$SCRATCH/out"; echo "## stderr"; cat "$SCRATCH/err"; } >>"$OUT"
}

# append_file FILE: the file's text (its ngx_version line left out, so that a
# version bump alone changes no expected file).
append_file() {
    echo "## file $(basename "$1")" >>"$OUT"
    if [[ -f $1 ]]; then grep -v '"ngx_version":' "$1" >>"$OUT"; else echo "(not written)" >>"$OUT"; fi
}

# model_kind FILE: the model kind `ngx predict --params FILE --help` names, or ''.
model_kind() {
    ngx_deadline 30 predict --params "$1" --help 2>/dev/null | sed -n '1s/^Model \([a-z0-9_-]*\):.*/\1/p'
}

# predictions FILE: the predictions every model kind of these fixtures answers.
predictions() {
    local file=$1 kind size
    kind=$(model_kind "$file")
    echo "## model kind: ${kind:-none}" >>"$OUT"
    [[ -n $kind ]] || return 0
    run predict --params "$file" --op pingpong -s 1
    [[ $RC == 0 ]] || return 0 # e.g. a saved run without a fitted model: its refusal is kept
    for size in 64 1Ki 4Ki 64Ki; do
        run predict --params "$file" --op pingpong -s "$size"
    done
    run predict --params "$file" --op pingpong -s 3000 --format json
    run predict --params "$file" --save-model "$SCRATCH/model.json"
    append_file "$SCRATCH/model.json"
    rm -f "$SCRATCH/model.json"
    if [[ $kind == loggp ]]; then
        run predict --params "$file" --op prtt -s 1Ki -n 16 -d 2
        run predict --params "$file" --op bcast -s 8-64Ki -P 4-16
        run predict --params "$file" --op allreduce -s 1Ki,64Ki -P 4,16 --gamma 0.001
        run predict --params "$file" --export loggopsim
    fi
}

cd "$SOURCE_ROOT" || exit 1
mapfile -t fixtures < <(find tests -path '*/fixtures/*' -type f \( -name '*.json' -o -name '*.csv' \) | LC_ALL=C sort)
[[ ${#fixtures[@]} -gt 0 ]] || fail "no saved run found under tests/**/fixtures"
mkdir -p "$EXPECTED_DIR"
failed=0
for fixture in "${fixtures[@]}"; do
    name=$(basename "$fixture")
    OUT=$SCRATCH/$name.txt
    : >"$OUT"
    run fit "$fixture" -o "$SCRATCH/fit.json"
    append_file "$SCRATCH/fit.json"
    [[ -f $SCRATCH/fit.json ]] && predictions "$SCRATCH/fit.json"
    rm -f "$SCRATCH/fit.json"
    echo "## predictions from the saved run itself" >>"$OUT"
    predictions "$fixture"
    # the scratch folder's name changes from run to run
    sed -i "s|$SCRATCH|<scratch>|g" "$OUT"
    expected=$EXPECTED_DIR/$name.txt
    if [[ $regenerate == 1 ]]; then
        cp "$OUT" "$expected"
        echo "wrote $expected"
    elif [[ ! -f $expected ]]; then
        echo "FAIL: $fixture has no expected file $expected (run golden.sh --regenerate)"
        failed=1
    elif cmp -s "$OUT" "$expected"; then
        echo "ok: $fixture: the refit and predictions are unchanged (byte for byte)"
    elif ! command -v python3 >/dev/null; then
        echo "FAIL: $fixture: the output differs from $expected (python3, to compare numbers within 1e-9, is missing)"
        diff "$expected" "$OUT" | head -20
        failed=1
    elif python3 "$GOLDEN_DIR/compare.py" "$expected" "$OUT"; then
        echo "ok: $fixture: the refit and predictions are unchanged (numbers within 1e-9 relative)"
    else
        echo "FAIL: $fixture: the refit or a prediction changed (diff against $expected above)"
        failed=1
    fi
done
# an expected file whose fixture is gone is stale
for expected in "$EXPECTED_DIR"/*.txt; do
    [[ -e $expected ]] || continue
    name=$(basename "$expected" .txt)
    printf '%s\n' "${fixtures[@]}" | grep -q "/$name\$" || { echo "FAIL: $expected has no fixture (remove it)"; failed=1; }
done
[[ $failed == 0 ]] || exit 1
[[ $regenerate == 1 ]] && echo "regenerated ${#fixtures[@]} expected files" || echo PASS
