#!/bin/bash
# cleanup.sh: the library leaves nothing behind: a child script that
# builds a veth pair, a relay pair and a background job and then fails, or is
# killed with SIGTERM, ends with its namespaces, relay and job all gone
# (under set -eu -o pipefail, which callers may use).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/netns.sh"
netns_require tun probe

child() {  # how to end: fail | term
    bash -c '
        set -eu -o pipefail
        source "$1"
        netns_init
        netns_veth_pair v || exit 3
        netns_relay_pair r 10 || exit 3
        netns_bg "$(netns_get v ns_b)" /dev/null sleep 100
        echo "run=$NETNS_RUN_ID relay=$(netns_get r relay_pid) job=$NETNS_BG_PID dir=$NETNS_DIR"
        # (builtins only after the kill: a forked command could outlive the trap)
        if [[ $2 == term ]]; then kill -TERM $$; for ((i = 0; i < 1000000; i++)); do :; done; fi
        exit 1
    ' child "$(dirname "$0")/netns.sh" "$1"
}

for how in fail term; do
    line=$(child "$how")
    rc=$?
    echo "child ($how) exited $rc: $line"
    [[ $line == run=* ]] || fail "child ($how) did not get set up"
    run=$(netns_kv "$line" run) relay=$(netns_kv "$line" relay) job=$(netns_kv "$line" job) dir=$(netns_kv "$line" dir)
    case $how in
    fail) [[ $rc == 1 ]] || fail "child exit status $rc was not preserved" ;;
    term) [[ $rc == 143 ]] || fail "child killed by SIGTERM exited $rc, not 143" ;;
    esac
    left=$(ip netns list | awk '{print $1}' | grep "^$run-")
    [[ -z $left ]] || fail "namespaces left behind: $left"
    ! kill -0 "$relay" 2>/dev/null || fail "relay $relay still running"
    ! kill -0 "$job" 2>/dev/null || fail "background job $job still running"
    [[ ! -e $dir ]] || fail "scratch dir $dir left behind"
done

# netns_sweep_stale removes namespaces of runs whose process is gone.
stale="ngx999999999-x-a"
ip netns add "$stale" || fail "cannot add $stale"
netns_sweep_stale 2>/dev/null
ip netns list | grep -q "^$stale" && { ip netns del "$stale"; fail "netns_sweep_stale left $stale"; }
echo PASS
