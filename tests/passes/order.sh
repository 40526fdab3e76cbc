#!/bin/bash
# order.sh: the PRTT-based patterns (pingpong, pingping, loggp, loggps) measure their sizes round-robin in passes.
# Over shm (and tcp for one pattern), with --passes 3 and -c 30, each run's
# JSON must record measurement.passes 3 and a schedule whose first three
# passes each list all sizes in -s order; check_passes.py says what else.
# The table prints the passes line.
source "$(dirname "$0")/../lib/ngx-run.sh"

check() {  # FILE COUNT PASSES SIZES...
    python3 "$(dirname "$0")/check_passes.py" "$@" || fail "$1: passes not as planned"
}

sizes=(1 64 1024 4096)
list=$(IFS=,; echo "${sizes[*]}")
# overhead is left out: it measures one size at a time (its rooted barriers,
# and its delay calibrated from their skew).
for pattern in pingpong pingping loggp loggps; do
    ngx_run 120 -m shm -x "$pattern" -s "$list" -c 30 --warmup 3 --passes 3 -o "$IT_DIR/$pattern.json"
    [[ $RC == 0 ]] || fail "$pattern: exit $RC"
    check "$IT_DIR/$pattern.json" 30 3 "${sizes[@]}"
    grep -q '^# passes: 3' "$IT_DIR/out" || fail "$pattern: no passes line in the table: $(cat "$IT_DIR/out")"
    ok "$pattern: round-robin over 3 passes"
done

# The TCP bootstrap (the responder a separate process started with --listen).
port=$((20000 + RANDOM % 20000))
it_bg "$IT_DIR/server.log" --listen "127.0.0.1:$port" --accept-timeout 30 --timeout 10
server=$BG_PID
ngx_run 120 --connect "127.0.0.1:$port" -m tcp -x pingpong -s "$list" -c 40 --passes 4 -o "$IT_DIR/tcp.json"
client=$RC
wait_pid "$server" 20
[[ $client == 0 ]] || fail "pingpong over --listen/--connect: exit $client"
[[ $RC == 0 ]] || fail "pingpong over --listen/--connect: the server exited $RC: $(cat "$IT_DIR/server.log")"
check "$IT_DIR/tcp.json" 40 4 "${sizes[@]}"
ok "pingpong over the TCP bootstrap: round-robin over 4 passes"

# The automatic choice: -c 100 gives 4 passes of 25, -c 40 one pass.
ngx_run 120 -m shm -x pingpong -s "$list" -c 100 -o "$IT_DIR/auto.json"
[[ $RC == 0 ]] || fail "automatic passes: exit $RC"
check "$IT_DIR/auto.json" 100 4 "${sizes[@]}"
ngx_run 120 -m shm -x pingpong -s "$list" -c 40 -o "$IT_DIR/one.json"
check "$IT_DIR/one.json" 40 1 "${sizes[@]}"
ok "automatic passes: 4 for -c 100, 1 for -c 40"

# --max-rel-ci off measures no size again, not even one whose interval is
# undefined (3 samples are too few for one).
ngx_run 60 -m sim -x pingpong -s 1,64 -c 3 --warmup 0 --passes 1 --max-rel-ci off -o "$IT_DIR/off.json"
[[ $RC == 0 ]] || fail "--max-rel-ci off: exit $RC"
python3 - "$IT_DIR/off.json" <<'PY' || fail "--max-rel-ci off measured a size again"
import json, sys
m = json.load(open(sys.argv[1]))["measurement"]
assert m["extra_passes"] == 0 and m["remeasured_bytes"] == [] and m["schedule"] == [[1, 64]], m
PY
ok "--max-rel-ci off: one pass, nothing measured again"
echo PASS
