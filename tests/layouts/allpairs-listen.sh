#!/usr/bin/env bash
# allpairs under the TCP rendezvous bootstrap: a --listen server and a
# --connect client with --pairs 2 (two ranks on each side, four in all),
# over tcp's per-peer connections: every ordered pair measured, all rounds
# done, the map written by the client's rank 0.
source "$(dirname "$0")/common.sh"
PORT=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
OUT=$SCRATCH/allpairs.json
timeout -k 5 60 "$NGX" --listen "127.0.0.1:$PORT" > "$SCRATCH/server.txt" 2>&1 &
server=$!
timeout -k 5 60 "$NGX" --connect "127.0.0.1:$PORT" --pairs 2 -m tcp -x allpairs -s 8,16Ki -c 20 -o "$OUT" \
    > "$SCRATCH/client.txt" 2>&1 || { cat "$SCRATCH/client.txt" "$SCRATCH/server.txt"; fail "the client failed"; }
wait "$server" || { cat "$SCRATCH/server.txt"; fail "the server failed"; }
python3 - "$OUT" <<'PY' || exit 1
import json, math, sys
d = json.load(open(sys.argv[1]))
run = d.get("runs", [d])[0]
if run["status"] != "complete":
    sys.exit("FAIL: status %s: %s" % (run["status"], run.get("error")))
a = run["model"]["allpairs"]
cells = [a[m][i][j] for m in ("latency_us", "bandwidth_MBps") for i in range(4) for j in range(4) if i != j]
if len(cells) != 24 or any(v is None or not math.isfinite(v) or v <= 0 for v in cells):
    sys.exit("FAIL: missing or non-positive cells: %s" % a)
if a["rounds_done"] != 3:
    sys.exit("FAIL: %s of 3 rounds done" % a["rounds_done"])
print("ok: --listen/--connect, 4 ranks over tcp: 12 ordered pairs measured in 3 shift rounds")
PY
