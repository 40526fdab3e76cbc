#!/usr/bin/env bash
# allpairs under the TCP rendezvous bootstrap: a --listen server and a
# --connect client with --pairs 2 (two ranks on each side, four in all),
# over tcp's per-peer connections: every ordered pair measured, all rounds
# done (check_cells.py: a bandwidth cell may be unresolved only on a run the
# CPUs set), the map written by the client's rank 0.
source "$(dirname "$0")/common.sh"
PORT=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
OUT=$SCRATCH/allpairs.json
timeout -k 5 60 "$NGX" --listen "127.0.0.1:$PORT" > "$SCRATCH/server.txt" 2>&1 &
server=$!
ngx_deadline 60 --connect "127.0.0.1:$PORT" --pairs 2 -m tcp -x allpairs -s 8,16Ki -c 20 -o "$OUT" \
    > "$SCRATCH/client.txt" 2>&1 || { cat "$SCRATCH/client.txt" "$SCRATCH/server.txt"; fail "the client failed"; }
wait "$server" || { cat "$SCRATCH/server.txt"; fail "the server failed"; }
python3 "$(dirname "$0")/check_cells.py" "$OUT" 4 "--listen/--connect over tcp" || exit 1
