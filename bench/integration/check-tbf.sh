#!/bin/bash
# bench/integration/check-tbf.sh: how small a change `ngx check` catches on
# real runs, over R rounds (root: namespaces, tbf). Each round runs
# tests/integration/check-tbf.sh with the rates 100, 100 and 85 Mbit/s (the
# test itself asserts only a change beyond a factor of 2: 400 against 100;
# at 100 Mbit/s the link, not two busy CPUs, sets the time) and keeps its
# three runs, each a launch of its own; then `ngx check` with its default
# minimum effect for one launch against one (15%) compares 100 against 85
# (each size about 17.6% slower: should be flagged) and 100 against 100
# (should not). Prints per round both verdicts and the per-size changes,
# and how many rounds were right.
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
    NGX_CHECK_TBF_RATES="100 100 85" NGX_CHECK_TBF_KEEP=$keep timeout -k 5 600 \
        bash "$SOURCE_ROOT/tests/integration/check-tbf.sh" >/dev/null 2>&1
    [[ -s $keep/changed.json ]] || { echo "round $r: the runs failed"; continue; }
    "$NGX" check "$keep/base.json" "$keep/changed.json" > "$keep/changed.txt" 2>&1
    rc_changed=$?
    "$NGX" check "$keep/base.json" "$keep/same.json" > "$keep/same.txt" 2>&1
    rc_same=$?
    [[ $rc_changed == 1 ]] && caught=$((caught + 1))
    [[ $rc_same == 0 ]] && quiet=$((quiet + 1))
    echo "round $r: 100 -> 85 Mbit/s exit $rc_changed (changes: $(awk '/ (B|KiB|MiB) / { printf "%s %s ", $1 $2, $5 }' "$keep/changed.txt")),"
    echo "         100 -> 100 Mbit/s exit $rc_same (changes: $(awk '/ (B|KiB|MiB) / { printf "%s %s ", $1 $2, $5 }' "$keep/same.txt"))"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "100 -> 85 Mbit/s flagged in $caught of $ROUNDS rounds; 100 -> 100 not flagged in $quiet of $ROUNDS"
