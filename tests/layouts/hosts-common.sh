# hosts-common.sh: sourced by the tests of one --listen/--connect run over
# more than two hosts on this machine (after common.sh): each server listens
# on its own loopback address (127.0.0.2, 127.0.0.3, ...), the client
# connects from 127.0.0.1, so every rank dials the address of its peer's host.

# start_server NAME ADDR ARGS...: `ngx --listen ADDR:PORT ARGS...` in the
# background, its output in $SCRATCH/NAME.txt; sets SERVER (its endpoint)
# and SERVER_PID.
start_server() {
    local name=$1 addr=$2
    shift 2
    SERVER=$addr:$(free_port "$addr")
    timeout -k 5 60 "$NGX" --listen "$SERVER" "$@" > "$SCRATCH/$name.txt" 2>&1 &
    SERVER_PID=$!
}

# wait_servers PID...: each server ends by itself within 20 s.
wait_servers() {
    local pid
    for pid in "$@"; do
        timeout 20 tail --pid="$pid" -f /dev/null || fail "a server (pid $pid) did not end after its client"
        wait "$pid" 2>/dev/null || true # its exit code: the caller checks its log
    done
}
