#!/bin/bash
# tools.sh: ngx-netdelay and ngx-netprobe reject bad options with exit
# status 2 and a message, a client with no server gives up at its deadline
# with status 1, and the relay stops on its own after --max-seconds (its TUN
# devices vanish with it) or cleanly on SIGTERM.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$(dirname "$0")/netns.sh"
[[ -n $NETNS_NETDELAY && -n $NETNS_NETPROBE ]] || skip "tools not built"

# tool_usage CMD...: exit 2 and a message on stderr
tool_usage() { expect_usage "$*" . "$@"; }
tool_usage "$NETNS_NETDELAY"
tool_usage "$NETNS_NETDELAY" --bogus
tool_usage "$NETNS_NETDELAY" --ns-a x --dev-a t --ns-b y
tool_usage "$NETNS_NETDELAY" --ns-a x --dev-a t --ns-b y --dev-b u --delay-us -1
tool_usage "$NETNS_NETDELAY" --ns-a x --dev-a t --ns-b y --dev-b u --drop 1.5
tool_usage "$NETNS_NETDELAY" --ns-a x --dev-a t --ns-b y --dev-b u --max-seconds 0
tool_usage "$NETNS_NETDELAY" --ns-a x --dev-a averyveryverylongname --ns-b y --dev-b u
tool_usage "$NETNS_NETDELAY" --ns-a x --dev-a t --ns-b y --dev-b u --drop-proto tcp
tool_usage "$NETNS_NETPROBE"
tool_usage "$NETNS_NETPROBE" dance --addr 127.0.0.1 --port 1
tool_usage "$NETNS_NETPROBE" rtt-client --port 1
tool_usage "$NETNS_NETPROBE" rtt-client --addr 127.0.0.1 --port 70000
tool_usage "$NETNS_NETPROBE" rtt-client --addr not-an-address --port 7000
"$NETNS_NETDELAY" --help | grep -q -- --max-seconds || fail "ngx-netdelay --help"
"$NETNS_NETPROBE" --help | grep -q -- rtt-client || fail "ngx-netprobe --help"

# No server: connection refused until the deadline, then status 1.
t0=$(date +%s%N)
timeout 10 "$NETNS_NETPROBE" rtt-client --addr 127.0.0.1 --port 9 --timeout 0.5 2>/dev/null
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "client without server: status $rc after $ms ms"
[[ $rc == 1 && $ms -lt 3000 ]] || fail "client without a server should fail with 1 near its 0.5 s deadline"

# The relay in namespaces (skipped without root).
netns_require tun
netns_init
"$NETNS_NETDELAY" --ns-a nosuchns$$ --dev-a t0 --ns-b nosuchns$$ --dev-b t1 --max-seconds 1 2>"$NETNS_DIR/err"
rc=$?
[[ $rc == 1 ]] || fail "missing namespace: status $rc, want 1"
echo "ok (1): missing namespace -> $(cat "$NETNS_DIR/err")"

NETNS_RELAY_SECONDS=1 netns_relay_pair life 0 || fail "relay pair"
pid=$(netns_get life relay_pid) a=$(netns_get life ns_a)
ip -n "$a" link show tun-a >/dev/null || fail "no tun-a while the relay runs"
netns_wait_bg "$pid" 5
rc=$?
[[ $rc == 0 ]] || fail "relay after --max-seconds: status $rc, want 0"
grep -q 'max-seconds' "$(netns_get life relay_log)" || fail "relay did not say why it stopped"
ip -n "$a" link show tun-a >/dev/null 2>&1 && fail "tun-a outlived the relay"
echo "ok: relay stopped by itself after --max-seconds 1 and tun-a is gone"

netns_relay_pair term 0 || fail "relay pair"
pid=$(netns_get term relay_pid)
kill -TERM "$pid"
netns_wait_bg "$pid" 5
rc=$?
[[ $rc == 0 ]] || fail "relay after SIGTERM: status $rc, want 0"
grep -q 'stopping: signal' "$(netns_get term relay_log)" || fail "relay did not report the signal"
echo "ok: relay stopped on SIGTERM: $(grep stopping "$(netns_get term relay_log)")"
echo PASS
