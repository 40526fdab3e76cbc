#!/usr/bin/env bash
# allpairs as ONE --listen/--connect run over three hosts on this machine:
# two servers (127.0.0.2, 127.0.0.3) and a client (127.0.0.1), with
# `--connect A,B` and R = 1 and 2 ranks a host (P = 3 in shift rounds, P = 6
# one pair at a time) over tcp, and P = 3 over udp with a shared secret on
# every side: every ordered pair
# measured and every round done, the
# hosts listed in rank order (--host-of names them: all share one host name
# here), each server's run ended with exit 0.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/hosts-common.sh"

# run_hosts MODULE R [ARGS...]: one run, P = 3R ranks; checks the map.
run_hosts() {
    local module=$1 per_host=$2 out=$SCRATCH/hosts-$1-$2.json hosts
    shift 2
    hosts=$(python3 -c "import sys; r = int(sys.argv[1]); print(','.join(h for h in 'abc' for _ in range(r)))" \
        "$per_host")
    start_server s1 127.0.0.2 --allow 127.0.0.0/8 "${BOTH[@]}"
    local one=$SERVER one_pid=$SERVER_PID
    start_server s2 127.0.0.3 --allow 127.0.0.0/8 "${BOTH[@]}"
    local two=$SERVER two_pid=$SERVER_PID
    ngx_deadline 60 --connect "$one,$two" "${BOTH[@]}" --ranks-per-host "$per_host" --host-of "$hosts" -m "$module" \
        -x allpairs -s 8,256Ki -c 20 -o "$out" "$@" > "$SCRATCH/client.txt" 2>&1 ||
        { cat "$SCRATCH/client.txt" "$SCRATCH/s1.txt" "$SCRATCH/s2.txt"; fail "$module, R = $per_host: the client failed"; }
    wait_servers "$one_pid" "$two_pid"
    grep -q "served (exit code 0)" "$SCRATCH/s1.txt" && grep -q "served (exit code 0)" "$SCRATCH/s2.txt" ||
        { cat "$SCRATCH/s1.txt" "$SCRATCH/s2.txt"; fail "$module, R = $per_host: a server's run failed"; }
    python3 - "$out" "$per_host" "$module" "${BOTH[0]:+ (${BOTH[0]})}" <<'PY' || exit 1
import json, math, sys
d = json.load(open(sys.argv[1]))
r, module = int(sys.argv[2]), sys.argv[3]
p = 3 * r
run = d.get("runs", [d])[0]
if run["status"] != "complete":
    sys.exit("FAIL: status %s: %s" % (run["status"], run.get("error")))
a = run["model"]["allpairs"]
expected = [h for h in "abc" for _ in range(r)]
if a["hosts"] != expected:
    sys.exit("FAIL: hosts %s, expected %s" % (a["hosts"], expected))
cells = [a[m][i][j] for m in ("latency_us", "bandwidth_MBps") for i in range(p) for j in range(p) if i != j]
if len(cells) != 2 * p * (p - 1) or any(v is None or not math.isfinite(v) or v <= 0 for v in cells):
    sys.exit("FAIL: missing or non-positive cells: %s" % a)
if a["rounds_done"] != a["rounds"]:
    sys.exit("FAIL: %s of %s rounds done" % (a["rounds_done"], a["rounds"]))
print("ok: %s over 3 hosts%s, P = %d: %d ordered pairs measured, %s layout, %d rounds" %
      (module, sys.argv[4], p, p * (p - 1), a["layout"], a["rounds"]))
PY
}

BOTH=() # options of the servers and the client alike
run_hosts tcp 1
# Six ranks on two shared CPUs: one pair at a time, so that no stream is
# starved by the others' (a 16-message window timed shorter than one message
# is a missing cell, by the pattern's rule).
run_hosts tcp 2 --allpairs-quiet-baseline yes
# With a shared secret on every side (the host list is signed as the command line is).
umask 077
head -c 32 /dev/urandom | base64 > "$SCRATCH/secret"
BOTH=(--secret-file "$SCRATCH/secret")
run_hosts udp 1
