#!/bin/sh
# rdma-core's ibv_rc_pingpong between two processes on the rxe device: proves
# the device, the GID choice and the RC path before ngx gets involved.
: "${RXE_DEV:?}" "${RXE_ADDR:?}"
gid=${RXE_GID:+-g $RXE_GID}
ibv_rc_pingpong -d "$RXE_DEV" $gid -n 50 -s 4096 &
server=$!
sleep 2
ibv_rc_pingpong -d "$RXE_DEV" $gid -n 50 -s 4096 "$RXE_ADDR"
client=$?
wait $server
server_rc=$?
echo "ibv_rc_pingpong: client rc=$client server rc=$server_rc"
[ $client = 0 ] && [ $server_rc = 0 ]
