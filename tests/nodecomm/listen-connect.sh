#!/bin/bash
# The launch without MPI on loopback: `ngx --listen` and `ngx --connect
# --pairs 3` start 3 processes each, the pairs meet through the one
# rendezvous port, and the client writes T(k, n) for k = 1..3 with a tcp
# bootstrap of 6 ranks; with --pairs 1,3 on both sides, k = 1 and 3. Both
# sides on one node: without --nodecomm-one-node both refuse (exit 2)
# naming it. Bad input: --pairs 0
# on either side exits 2; --pairs that differ between the sides exit 2 on
# the client, both name the two counts, and the server (which outlives a bad
# client) goes on to
# serve a client that agrees. A server rank killed mid-run ends
# both sides within the deadline (--timeout 5) + 5 s with exit 1, and the
# client's JSON holds the points done.
source "$(dirname "$0")/common.sh"
# serve PORT [SERVER_OPTION...]: a server in the background, its output in $SCRATCH/server.
serve() {
    local port=$1
    shift
    timeout -k 5 120 "$NGX" --listen "127.0.0.1:$port" --accept-timeout 60 "$@" >"$SCRATCH/server" 2>&1 &
    server=$!
}
client() { # PORT OPTION...: the client in the foreground, its stderr in $SCRATCH/client
    local port=$1
    shift
    ngx_deadline 120 --connect "127.0.0.1:$port" -m tcp -x nodecomm "$@" 2>"$SCRATCH/client"
}

# both SERVER_OPTION... -- CLIENT_OPTION...: a server and its client on a fresh port; sets rc and src.
both() {
    local -a server_options=()
    while [[ $1 != -- ]]; do
        server_options+=("$1")
        shift
    done
    shift
    port=$(free_port)
    serve "$port" "${server_options[@]}"
    client "$port" "$@" >"$SCRATCH/out"
    rc=$?
    wait "$server"
    src=$?
}

json=$SCRATCH/lc.json
both -- --pairs 3 --nodecomm-one-node --timeout 10 -s 1,1Ki,64Ki -c 30 --warmup 3 -o "$json"
sed -n '/^# T(k/,/^# aggregate/p' "$SCRATCH/out"
[[ $rc == 0 && $src == 0 ]] || { cat "$SCRATCH/client" "$SCRATCH/server"; fail "client exit $rc, server exit $src"; }
grep -q 'run on one node' "$SCRATCH/client" || fail "no note that both sides share a node: $(cat "$SCRATCH/client")"
nc_py "$json" '
b = ctx["bootstrap"]
assert b == {"kind": "tcp", "ranks": 6}, b
T = m["nodecomm"]["T_us"]
assert m["nodecomm"]["pairs"] == [1, 2, 3], m["nodecomm"]["pairs"]
assert all(t > 0 for row in T for t in row), T
print(f"json: tcp bootstrap of 6 ranks, T(3, 64 KiB) = {T[2][2]:.1f} us")
' || fail "the JSON of the listen/connect run"

# --pairs LIST on both sides (the server checks K = 3 only): 3 processes
# each, k = 1 and 3 measured.
both --pairs 1,3 -- --pairs 1,3 --nodecomm-one-node --timeout 10 -s 1,1Ki -c 10 --warmup 2 -o "$json"
[[ $rc == 0 && $src == 0 ]] || { cat "$SCRATCH/client" "$SCRATCH/server"; fail "--pairs 1,3: client exit $rc, server exit $src"; }
nc_py "$json" '
assert ctx["bootstrap"] == {"kind": "tcp", "ranks": 6}, ctx["bootstrap"]
assert m["nodecomm"]["pairs"] == [1, 3], m["nodecomm"]["pairs"]
print("--pairs 1,3 over --listen/--connect: 6 ranks, k = [1, 3]")
' || fail "the JSON of the --pairs 1,3 listen/connect run"

# One node without --nodecomm-one-node: both sides refuse, naming it.
both -- --pairs 2 --timeout 10 -s 1 -c 5
[[ $rc == 2 && $src == 2 ]] || fail "one node without --nodecomm-one-node: client exit $rc, server exit $src (want 2, 2)"
for side in client server; do
    grep -q 'both sides of --listen / --connect run on this node' "$SCRATCH/$side" ||
        fail "the $side does not say both sides share a node: $(cat "$SCRATCH/$side")"
done

# --pairs 0 on either side.
"$NGX" --connect "127.0.0.1:$port" -m tcp -x nodecomm --pairs 0 2>"$SCRATCH/err"
rc=$?
[[ $rc == 2 ]] && grep -q -- "--pairs '0'" "$SCRATCH/err" || fail "--connect --pairs 0: exit $rc, $(cat "$SCRATCH/err")"
"$NGX" --listen "127.0.0.1:$port" --pairs 0 2>"$SCRATCH/err"
rc=$?
[[ $rc == 2 ]] && grep -q -- "--pairs '0'" "$SCRATCH/err" || fail "--listen --pairs 0: exit $rc, $(cat "$SCRATCH/err")"

# --pairs differs between the sides: the client is refused (exit 2), both
# name the two counts, and the server goes on to serve a client that agrees.
port=$(free_port)
serve "$port" --pairs 3
client "$port" --pairs 2 --nodecomm-one-node --timeout 10 -s 1 -c 5 >/dev/null
rc=$?
[[ $rc == 2 ]] || fail "mismatched --pairs: client exit $rc (want 2)"
for side in client server; do
    grep -q 'started with --pairs 3, the client (--connect) asks for --pairs 2' "$SCRATCH/$side" ||
        fail "the $side does not name the mismatch: $(cat "$SCRATCH/$side")"
done
kill -0 "$server" 2>/dev/null || fail "the server ended after refusing a client: $(cat "$SCRATCH/server")"
client "$port" --pairs 3 --nodecomm-one-node --timeout 10 -s 1 -c 5 >/dev/null
rc=$?
wait "$server"
src=$?
[[ $rc == 0 && $src == 0 ]] || fail "the client that agrees after a refused one: client exit $rc, server exit $src"

# A server rank dies mid-run: both sides end with exit 1 (a run-time error)
# within the deadline plus 5 s, and the points done are written. The dead
# rank's closed sockets are seen at once; a silent peer would cost the
# deadline (--timeout 5) before the error.
port=$(free_port)
serve "$port"
json=$SCRATCH/dead.json
client "$port" --pairs 2 --nodecomm-one-node -s 1,4,16,64 -c 300 --warmup 5 --nodecomm-passes 50 --timeout 5 \
    -o "$json" >/dev/null &
job=$!
victim=
for _ in $(seq 100); do # the server's forked rank: a child of the server process
    sleep 0.1
    victim=$(pgrep -P "$(pgrep -P "$server" -x ngx)" -x ngx | head -1)
    [[ -n $victim ]] && break
done
[[ -n $victim ]] || { kill "$job" "$server"; fail "the server's forked rank not found: $(cat "$SCRATCH/client" "$SCRATCH/server")"; }
sleep 2 # a few points done
start=$(date +%s%N)
kill -9 "$victim"
wait "$job"
rc=$?
wait "$server"
src=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "dead server rank: client exit $rc, server exit $src, ${ms} ms after the kill: $(tail -1 "$SCRATCH/client")"
[[ $rc == 1 && $src == 1 ]] || fail "client exit $rc, server exit $src after a dead rank (want 1, 1: a run-time error)"
((ms <= 10000)) || fail "took ${ms} ms (deadline 5 s + at most 5 s)"
nc_py "$json" '
assert run["status"] == "error", run["status"]
done = len(run["results"])
assert done >= 1, "no point written"
why = run["error"]
print(f"json: status error, {done} points written: {why}")
' || fail "the JSON of the dead run"
echo PASS
