#!/bin/bash
# bench/integration/check-tbf.sh: how small a change `ngx check` catches on
# real runs, over R rounds (root: namespaces, tbf). Each round runs
# tests/integration/check-tbf.sh with the rates 400, 400 and 360 Mbit/s (the
# test itself asserts only a change beyond a factor of 2: 400 against 100)
# and keeps its three runs; then `ngx check` with its default --tolerance
# (5%) compares 400 against 360 (a regression of about 10%: should be
# flagged) and 400 against 400 (should not). Prints per round both verdicts
# and the per-size changes, and how many rounds were right.
#
#     bench/integration/check-tbf.sh [BUILD_DIR] [-r ROUNDS]
set -u
source "$(dirname "$0")/../lib.sh"
accuracy_args "$0" "$@"
keep=$(mktemp -d)
trap 'rm -rf "$keep"' EXIT
caught=0 quiet=0
for ((r = 1; r <= ROUNDS; r++)); do
    rm -f "$keep"/*.json
    NGX_CHECK_TBF_RATES="400 400 360" NGX_CHECK_TBF_KEEP=$keep timeout -k 5 600 \
        bash "$SOURCE_ROOT/tests/integration/check-tbf.sh" >/dev/null 2>&1
    [[ -s $keep/changed.json ]] || { echo "round $r: the runs failed"; continue; }
    "$NGX" check "$keep/base.json" "$keep/changed.json" > "$keep/changed.txt" 2>&1
    rc_changed=$?
    "$NGX" check "$keep/base.json" "$keep/same.json" > "$keep/same.txt" 2>&1
    rc_same=$?
    [[ $rc_changed == 1 ]] && caught=$((caught + 1))
    [[ $rc_same == 0 ]] && quiet=$((quiet + 1))
    echo "round $r: 400 -> 360 Mbit/s exit $rc_changed (changes: $(awk '/ B / { printf "%s %s ", $1 $2, $5 }' "$keep/changed.txt")),"
    echo "         400 -> 400 Mbit/s exit $rc_same (changes: $(awk '/ B / { printf "%s %s ", $1 $2, $5 }' "$keep/same.txt"))"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "400 -> 360 Mbit/s flagged in $caught of $ROUNDS rounds; 400 -> 400 not flagged in $quiet of $ROUNDS"
