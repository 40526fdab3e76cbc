#!/bin/sh
# Runs one SoftRoCE test list, one test at a time (rxe is reported to drop
# completions with many QPs at once), each bounded by `timeout`.
#
#     run-list.sh LIST
#
# LIST has one test per line: NAME TIMEOUT_SECONDS COMMAND..., run by sh -c
# in $SOFTROCE_RUN_DIR; '#' starts a comment. A command exiting 77 is
# skipped. For each test the console shows
#     @@ngx-softroce begin NAME
#     @@ngx-softroce end NAME rc=N SECONDSs
# and "pass|fail|skip NAME" is appended to $SOFTROCE_RUN_DIR/results.
# Exits 1 when a test failed.
list=$1
results=${SOFTROCE_RUN_DIR:?}/results
here=$(cd "$(dirname "$0")" && pwd)
export SOFTROCE_TESTS=$here
failed=0
now() { cut -d' ' -f1 /proc/uptime; }

while read -r name tmo cmd; do
    case $name in ''|'#'*) continue ;; esac
    echo "@@ngx-softroce begin $name"
    t0=$(now)
    (cd "$SOFTROCE_RUN_DIR" && timeout -k 5 "$tmo" sh -c "$cmd") </dev/null 2>&1
    rc=$?
    secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
    case $rc in
        0) verdict=pass ;;
        77) verdict=skip ;;
        124|137) verdict=fail; echo "$name: timed out after $tmo s" ;;
        *) verdict=fail ;;
    esac
    [ $verdict = fail ] && failed=1
    echo "$verdict $name" >> "$results"
    echo "@@ngx-softroce end $name rc=$rc ${secs}s"
done < "$list"
exit $failed
