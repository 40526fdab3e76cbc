#!/bin/sh
# Runs inside the SoftRoCE guest, chrooted into the host's root: brings up lo
# and a netdev, adds the rxe0 device on it, waits for its port to be ACTIVE,
# then runs the test lists with run-list.sh. Markers go to the console.
#
#     guest-main.sh RUN_DIR        (RUN_DIR/env.sh says what to run)
#
# One of two guests (softroce-two-guests.sh) sets in env.sh: SOFTROCE_ADDR
# (the netdev's address, default 10.0.2.15), SOFTROCE_HOSTNAME (default
# localhost), SOFTROCE_HOSTS ("ADDR NAME,..." lines for a private /etc/hosts)
# and, in the guest that only serves mpirun's launches, SOFTROCE_SERVE (the
# peer's address: run guest-rsh.py's command server instead of the lists)
# and SOFTROCE_PEER_RUN_DIR (the other guest's run directory); in the guest
# that runs the lists, SOFTROCE_ALONE_LISTS (the lists to run before the
# other guest boots).
run=$1
. "$run/env.sh"
here=$NGX_SOURCE_ROOT/tests/softroce
say() { echo "@@ngx-softroce $*"; }
die() { say "setup-error $*"; say "done passed=0 failed=1 skipped=0"; exit 1; }

addr=${SOFTROCE_ADDR:-10.0.2.15}
# mpirun needs a host name that resolves (the guest's is "(none)").
hostname "${SOFTROCE_HOSTNAME:-localhost}"
if [ -n "${SOFTROCE_HOSTS:-}" ]; then
    # The host root is read-only: a private /etc/hosts from /run (a tmpfs).
    { echo "127.0.0.1 localhost"; echo "$SOFTROCE_HOSTS" | tr , '\n'; } > /run/hosts
    mount --bind /run/hosts /etc/hosts || die "cannot bind a private /etc/hosts"
fi
# The other guest's run directory, writable here too (a tmpfs): mpirun starts
# the ranks in its working directory and every rank checks that -o can write.
if [ -n "${SOFTROCE_PEER_RUN_DIR:-}" ]; then
    mount -t tmpfs -o size=64m tmpfs "$SOFTROCE_PEER_RUN_DIR" || die "cannot mount a tmpfs on $SOFTROCE_PEER_RUN_DIR"
fi
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
if [ -n "${SOFTROCE_SERVE:-}" ]; then
    python3 "$here/guest-rsh.py" --serve "$addr" --peer "$SOFTROCE_SERVE" --seconds "${SOFTROCE_SERVE_SECONDS:-900}"
    say "served rc=$? uptime $(cut -d' ' -f1 /proc/uptime)"
    exit 0
fi
# Guest A of two runs SOFTROCE_ALONE_LISTS first, alone with every vCPU;
# before the first other list it takes all vCPUs but cpu0 offline (idle=poll
# spins an online vCPU, and guest B needs a host core) and asks the host for B.
asked=
for l in $SOFTROCE_LISTS; do
    case " ${SOFTROCE_ALONE_LISTS:-} " in
        *" $l "*)
            # Alone: mpirun keeps both ranks here, and this device carries both.
            (unset SOFTROCE_MPIRUN_ARGS SOFTROCE_RANKS_HERE; "$here/run-list.sh" "$l")
            continue ;;
    esac
    if [ -n "${SOFTROCE_ALONE_LISTS:-}" ] && [ -z "$asked" ]; then
        for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
            [ -e "$c" ] && { echo 0 > "$c" || echo "cannot take ${c%/online} offline"; }
        done
        say "peer-wanted (online CPUs: $(cat /sys/devices/system/cpu/online))"
        asked=1
    fi
    "$here/run-list.sh" "$l"
done
say "uptime $(cut -d' ' -f1 /proc/uptime)"
awk '$1 == "pass" { p++ } $1 == "fail" { f++ } $1 == "skip" { s++ }
     END { printf "@@ngx-softroce done passed=%d failed=%d skipped=%d\n", p, f, s }' "$run/results"
