# kill-mid-run.sh: sourced by tests that kill a rank in the middle of a run
# (needs fail, $NGX and $SCRATCH from the suite's common.sh).
#
# kill_mid_run first|last OUT ARGS...: runs `ngx ARGS... --timeout 5 -o OUT`
# (output in $SCRATCH/killed.txt), kills its first or last forked rank 1.5 s
# in, and expects the run to end within 40 s with exit 1.
kill_mid_run() {
    local which=$1 out=$2
    shift 2
    local start leader victim= rc
    start=$(date +%s)
    "$NGX" "$@" --timeout 5 -o "$out" > "$SCRATCH/killed.txt" 2>&1 &
    leader=$!
    for _ in $(seq 1 50); do # the forked ranks appear within a few seconds
        victim=$(pgrep -P "$leader" | if [[ $which == first ]]; then head -n 1; else tail -n 1; fi)
        [[ -n $victim ]] && break
        sleep 0.1
    done
    [[ -n $victim ]] || { kill "$leader"; fail "no forked rank to kill"; }
    sleep 1.5
    kill -9 "$victim" 2>/dev/null
    timeout 40 tail --pid="$leader" -f /dev/null || { kill "$leader"; fail "the run did not end 40 s after a rank died"; }
    wait "$leader"
    rc=$?
    [[ $rc -eq 1 ]] || { cat "$SCRATCH/killed.txt"; fail "a dead rank: exit $rc, expected 1"; }
    echo "ok: a rank killed, the run ended $(( $(date +%s) - start )) s after it started (deadline 5 s), exit 1"
}
