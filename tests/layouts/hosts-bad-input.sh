#!/usr/bin/env bash
# One --listen/--connect run over three hosts, when it cannot be: each ends
# the client within its deadline with the server named (host and port), and
# a server that had started its run ends it (no wait for its accept
# timeout): a server not listening, one that never answers, one holding
# another secret, one whose --allow leaves out another server, one without
# --allow, one killed in the middle of the run; and the usage errors of the
# options (exit 2).
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/hosts-common.sh"

# expect_client RC PATTERN ARGS...: the client exits RC within 20 s, PATTERN in its output.
expect_client() {
    local rc_expected=$1 pattern=$2 start rc
    shift 2
    start=$(date +%s)
    ngx_deadline 20 "$@" > "$SCRATCH/client.txt" 2>&1
    rc=$?
    [[ $rc -eq $rc_expected ]] || { cat "$SCRATCH/client.txt"; fail "'$pattern': exit $rc, expected $rc_expected"; }
    grep -qF -- "$pattern" "$SCRATCH/client.txt" || { cat "$SCRATCH/client.txt"; fail "no '$pattern' in the message"; }
    echo "ok: exit $rc after $(( $(date +%s) - start )) s: $(grep -F -- "$pattern" "$SCRATCH/client.txt" | head -n 1)"
}

# expect_run_ended NAME: server NAME started the run and ended it (exit code 1), by itself.
expect_run_ended() {
    local pid=$2
    wait_servers "$pid"
    grep -q "served (exit code 1)" "$SCRATCH/$1.txt" || { cat "$SCRATCH/$1.txt"; fail "$1 did not end its run"; }
}

# stop PID: a server left waiting for its next client (it never ran one).
stop() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

RUN=(-m tcp -x allpairs -s 8 -c 10 --timeout 2)

# Usage errors, before any connection.
expect_client 2 "pattern 'pingpong' pairs rank i with rank i + P/2" \
    --connect 127.0.0.2:1,127.0.0.3:1 -m tcp -x pingpong
expect_client 2 "give --ranks-per-host R" --connect 127.0.0.2:1,127.0.0.3:1 --pairs 2 -m tcp -x allpairs
expect_client 2 "--ranks-per-host is for --connect with two or more servers" \
    --connect 127.0.0.2:1 --ranks-per-host 2 -m tcp -x allpairs

# A server not listening: the client gives up after --timeout, naming it.
start_server s1 127.0.0.2 --allow 127.0.0.0/8
one=$SERVER one_pid=$SERVER_PID
absent=127.0.0.3:$(free_port 127.0.0.3)
expect_client 1 "the server at $absent: --connect $absent: no server within 2 s" --connect "$one,$absent" "${RUN[@]}"
stop "$one_pid"

# A server that never answers (stopped): the client's handshake with it
# ends at --timeout, naming it.
start_server s1 127.0.0.2 --allow 127.0.0.0/8
one=$SERVER one_pid=$SERVER_PID
start_server s2 127.0.0.3 --allow 127.0.0.0/8
two=$SERVER two_pid=$SERVER_PID
listener=
for _ in $(seq 1 50); do # the listener itself, a child of its timeout
    listener=$(pgrep -P "$two_pid" -x ngx) && ss -ltn | grep -qF "$two" && break
    sleep 0.1
done
[[ -n $listener ]] || fail "the second server did not start"
kill -STOP "$listener"
expect_client 1 "the server at $two: handshake: control channel receive: the peer did not answer within 2 s" \
    --connect "$one,$two" "${RUN[@]}"
kill -CONT "$listener"
stop "$one_pid"
stop "$two_pid"

# Another secret on the second server: refused at the handshake.
umask 077
head -c 32 /dev/urandom | base64 > "$SCRATCH/secret"
head -c 32 /dev/urandom | base64 > "$SCRATCH/other"
start_server s1 127.0.0.2 --allow 127.0.0.0/8 --secret-file "$SCRATCH/secret"
one=$SERVER one_pid=$SERVER_PID
start_server s2 127.0.0.3 --allow 127.0.0.0/8 --secret-file "$SCRATCH/other"
two=$SERVER two_pid=$SERVER_PID
expect_client 2 "the server at $two: the server (--listen) refused the connection: the shared secret does not match" \
    --connect "$one,$two" --secret-file "$SCRATCH/secret" "${RUN[@]}"
stop "$one_pid"
stop "$two_pid"

# second_server_refuses WHY [OPTION...]: the second server, started with
# OPTIONs, refuses the run for WHY (the end of its message; @ONE@ stands for
# the first server); the first had accepted and started its run, which ends.
second_server_refuses() {
    local why=$1
    shift
    start_server s1 127.0.0.2 --allow 127.0.0.0/8
    one=$SERVER one_pid=$SERVER_PID
    start_server s2 127.0.0.3 "$@"
    two=$SERVER two_pid=$SERVER_PID
    expect_client 2 "the server at $two: the server (--listen) refused the run: the client asks for a run of 3 hosts${why//@ONE@/$one}" \
        --connect "$one,$two" "${RUN[@]}"
    expect_run_ended s1 "$one_pid"
    stop "$two_pid"
}
# Its --allow leaves out the first server.
second_server_refuses ", and host 1 of it (@ONE@ at 127.0.0.2) is outside this server's --allow" \
    --allow 127.0.0.1/32,127.0.0.3/32
# Without --allow a server takes no run of more than two hosts.
second_server_refuses "; this server's ranks would dial the other servers, which a server does only when its operator allows their networks with --allow"

# The second server's run killed (the host gone) in round 2 of 5: sim in
# real time, 2 ms latency, so that a round lasts about half a second.
start_server s1 127.0.0.2 --allow 127.0.0.0/8
one=$SERVER one_pid=$SERVER_PID
start_server s2 127.0.0.3 --allow 127.0.0.0/8
two=$SERVER two_pid=$SERVER_PID
start=$(date +%s)
timeout -k 5 40 "$NGX" --connect "$one,$two" --ranks-per-host 2 -m sim --sim-L 2000 --sim-sleep 50 -x allpairs \
    -s 1,4Ki -c 60 --warmup 2 --allpairs-streams 1 --timeout 5 > "$SCRATCH/client.txt" 2>&1 &
client=$!
run=
for _ in $(seq 1 50); do # the server's run process: a child of its listener
    listener=$(pgrep -P "$two_pid" -x ngx)
    [[ -n $listener ]] && run=$(pgrep -P "$listener" -x ngx | head -n 1)
    [[ -n $run ]] && break
    sleep 0.1
done
[[ -n $run ]] || { kill "$client"; fail "the second server started no run"; }
sleep 1.5
kill -9 -- "-$run" # its process group: the run and its ranks
wait "$client"
rc=$?
[[ $rc -eq 1 ]] || { cat "$SCRATCH/client.txt"; fail "a server's run killed: exit $rc, expected 1"; }
grep -qF "the server at $two (ranks 4..5) left the run" "$SCRATCH/client.txt" ||
    { cat "$SCRATCH/client.txt"; fail "the client did not name the server that left"; }
echo "ok: a server's run killed: the client ended after $(( $(date +%s) - start )) s (deadline 5 s), exit 1, $two named"
expect_run_ended s1 "$one_pid"
wait_servers "$two_pid"
