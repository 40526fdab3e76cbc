#!/bin/sh
# rdma-core's ibv_rc_pingpong between two processes on the rxe device: proves
# the device, the GID choice and the RC path before ngx gets involved. The
# client is retried (once a second, 40 times at most) while the server is not
# listening yet: on a busy host the guest's server took more than 2 s to
# start.
: "${RXE_DEV:?}" "${RXE_ADDR:?}"
gid=${RXE_GID:+-g $RXE_GID}
ibv_rc_pingpong -d "$RXE_DEV" $gid -n 50 -s 4096 &
server=$!
attempt=0
while :; do
    sleep 1
    attempt=$((attempt + 1))
    out=$(ibv_rc_pingpong -d "$RXE_DEV" $gid -n 50 -s 4096 "$RXE_ADDR" 2>&1)
    client=$?
    echo "$out" | grep -q "Couldn't connect" && [ $attempt -lt 40 ] || break
done
echo "$out"
if [ $client != 0 ] && kill -0 $server 2>/dev/null; then
    echo "client failed after $attempt attempts: ending the server"
    kill $server
fi
wait $server
server_rc=$?
echo "ibv_rc_pingpong: client rc=$client server rc=$server_rc (attempts: $attempt)"
[ $client = 0 ] && [ $server_rc = 0 ]
