#!/bin/sh
# Runs inside the SoftRoCE guest, chrooted into the host's root: brings up lo
# and a netdev, adds the rxe0 device on it, waits for its port to be ACTIVE,
# then runs the test lists with run-list.sh. Markers go to the console.
#
#     guest-main.sh RUN_DIR        (RUN_DIR/env.sh says what to run)
run=$1
. "$run/env.sh"
here=$NGX_SOURCE_ROOT/tests/softroce
say() { echo "@@ngx-softroce $*"; }
die() { say "setup-error $*"; say "done passed=0 failed=1 skipped=0"; exit 1; }

addr=10.0.2.15
# mpirun needs a host name that resolves (the guest's is "(none)").
hostname localhost
ip link set lo up || die "ip link set lo up failed"
case $SOFTROCE_NETDEV in
    lo) addr=127.0.0.1 ;;
    dummy*) ip link show "$SOFTROCE_NETDEV" >/dev/null 2>&1 ||
                ip link add "$SOFTROCE_NETDEV" type dummy || die "cannot create $SOFTROCE_NETDEV" ;;
esac
if [ "$SOFTROCE_NETDEV" != lo ]; then
    ip link set "$SOFTROCE_NETDEV" up || die "cannot bring up $SOFTROCE_NETDEV"
    ip addr add "$addr/24" dev "$SOFTROCE_NETDEV" || die "cannot address $SOFTROCE_NETDEV"
fi
rdma link add rxe0 type rxe netdev "$SOFTROCE_NETDEV" || die "rdma link add rxe0 on $SOFTROCE_NETDEV failed"

state=/sys/class/infiniband/rxe0/ports/1/state
i=0
while ! grep -q ACTIVE "$state" 2>/dev/null; do
    i=$((i + 1))
    [ $i -le 100 ] || die "rxe0 port 1 not ACTIVE after 10 s: $(cat $state 2>/dev/null)"
    sleep 0.1
done

# The GID index whose value is the IPv4-mapped netdev address (RoCE v2), for
# tools that need -g; the ibv module finds it on its own.
hex=$(printf '%02x%02x:%02x%02x' $(echo $addr | tr . ' '))
gid=$(grep -l "0000:0000:0000:0000:0000:ffff:$hex" /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null | head -1)
export RXE_DEV=rxe0 RXE_ADDR=$addr RXE_GID=${gid##*/}
say "ready $(cut -d' ' -f1 /proc/uptime) rxe0 on $SOFTROCE_NETDEV $addr gid $RXE_GID"
rdma link show

cd "$run" || die "cannot enter $run"
for l in $SOFTROCE_LISTS; do
    "$here/run-list.sh" "$l"
done
say "uptime $(cut -d' ' -f1 /proc/uptime)"
awk '$1 == "pass" { p++ } $1 == "fail" { f++ } $1 == "skip" { s++ }
     END { printf "@@ngx-softroce done passed=%d failed=%d skipped=%d\n", p, f, s }' "$run/results"
