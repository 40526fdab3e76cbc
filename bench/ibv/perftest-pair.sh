#!/bin/sh
# Runs a perftest tool (ib_send_lat, ib_write_bw, ib_read_bw, ...) between two
# processes on the RDMA device, server pinned to CPU 0 and client to CPU 1 as
# ngx's ranks are with --cpus 0,1; prints the client's report. The client is
# retried while the server is not listening yet.
#     perftest-pair.sh ib_send_lat -s 1 -n 2000
#     perftest-pair.sh ib_write_bw -s 65536 -n 1000 -t 64
tool=$1
shift
: "${RXE_DEV:?}" "${RXE_ADDR:?}"
gid=${RXE_GID:+-x $RXE_GID}
pin0= pin1=
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then pin0="taskset -c 0" pin1="taskset -c 1"; fi
$pin0 "$tool" -d "$RXE_DEV" $gid "$@" >/dev/null 2>&1 &
server=$!
for attempt in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    sleep 0.5
    out=$($pin1 "$tool" -d "$RXE_DEV" $gid "$@" "$RXE_ADDR" 2>&1) && break
    echo "$out" | grep -q "Couldn't connect" || break
done
wait $server
echo "$out"
# A report's header and the row of numbers under it (a client that ends
# after the header, as ib_read_bw sometimes does under TCG, has no result).
echo "$out" | grep -A1 -e 't_typical' -e 'BW average' | tail -n 1 | grep -q '^ *[0-9]' || exit 1
