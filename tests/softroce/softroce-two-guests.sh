#!/bin/bash
# Two SoftRoCE guests as two cluster nodes: ibv and MPI between two kernels,
# after the lists that need one guest only, in the same boot of guest A.
#
#     tests/softroce/softroce-two-guests.sh [--alone LIST]... [LIST...]
#         (default: two-guests.list; `meson test --suite softroce` runs
#          --alone tests.list two-guests.list)
#
# Boots guest A like softroce.sh's (Debian's kernel under TCG, the host root
# read-only over virtio-9p, a writable run directory) with rxe0 on its eth0.
# A runs the --alone lists first with two vCPUs; then it takes its second
# vCPU offline (with idle=poll every online vCPU spins, and the two guests
# share the host's two cores), prints "@@ngx-softroce peer-wanted", and the
# host boots guest B (one vCPU, its own run directory) while A's next list
# waits for B (its `peer` entry). Without --alone lists both guests boot at
# once with one vCPU each. The guests are joined by a virtual network between
# them only: QEMU's socket netdev in its UDP unicast form, each QEMU bound to
# its own port on 127.0.0.1 and sending to the other's, so no packet leaves
# the host's loopback. (The TCP form, listen= and connect=, held every small
# message about 20 ms, 1 B medians of 22-27 ms, most likely Nagle's algorithm
# against delayed ACKs on that stream; UDP gives 0.18 ms. virtio-net without
# its option ROM: iPXE would add seconds of boot under TCG.) A is ngx-a
# 10.0.2.15, B is ngx-b 10.0.2.16 (addresses and names that exist only in the
# guests). B runs guest-rsh.py's command server; A's mpirun starts its daemon
# on B through guest-rsh.py (plm_rsh_agent) and puts one rank in each guest.
# The verdict comes from A's console, as in softroce.sh: one line per test of
# every list.
#
# Exit: 0 every listed test passed; 1 otherwise or on a deadline; 77 as
# softroce.sh (nothing may be installed and QEMU or the kernel is missing). A
# host with its own RDMA device runs the --alone lists on it directly and
# still boots the guests for the others: they are about two kernels.
# Environment: as softroce.sh (SOFTROCE_TIMEOUT bounds guest A, default 600 s
# plus 600 s with --alone lists; B gets 60 s more than what is left of it and
# is killed once A is done), SOFTROCE_KEEP=1 keeps both run directories
# (serial.log, the JSON files).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
alone=()
while [ $# -gt 0 ]; do
    case $1 in
        --alone) [ $# -ge 2 ] || { echo "softroce: --alone needs a test list" >&2; exit 2; }
                 alone+=("$2"); shift 2 ;;
        --alone=*) alone+=("${1#--alone=}"); shift ;;
        *) break ;;
    esac
done
export SOFTROCE_NETDEV=eth0 SOFTROCE_TIMEOUT=${SOFTROCE_TIMEOUT:-$((${#alone[@]} > 0 ? 1200 : 600))}
# shellcheck source=common.sh
. "$here/common.sh"
use_lists "$here/two-guests.list" "$@"
peer_lists=("${lists[@]}")
if [ ${#alone[@]} -gt 0 ]; then use_lists "" "${alone[@]}"; fi

install_missing
on_host= on_host_lists=
if [ ${#alone[@]} -gt 0 ] && [ -z "${SOFTROCE_FORCE_QEMU:-}" ] && host_device; then
    # The device's own lists first, the guests for the rest.
    on_host=$(mktemp -d "${TMPDIR:-/tmp}/ngx-softroce.XXXXXX")
    SOFTROCE_RUN_DIR=$on_host run_lists_on_host "${alone[@]}"
    on_host_lists="${alone[*]}"
    alone=()
fi
guest_prerequisites
command -v ss >/dev/null || skip "ss is missing (package iproute2)"

run_a=$(new_run_dir)
run_b=$(new_run_dir)
# Both QEMU processes go, whatever ends this script (by the pid each wrote,
# if that process is still a QEMU).
cleanup() {
    local r q
    for r in "$run_a" "$run_b"; do
        q=$(cat "$r/qemu.pid" 2>/dev/null) || continue
        case $(cat "/proc/$q/comm" 2>/dev/null) in qemu-system*) kill "$q" ;; esac
    done
    wait 2>/dev/null
    [ -n "${SOFTROCE_KEEP:-}" ] || rm -rf "$run_a" "$run_b" ${on_host:+"$on_host"}
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The verdict counts the tests of every list guest A runs.
lists=("${alone[@]}" "${peer_lists[@]}")
hosts="10.0.2.15 ngx-a,10.0.2.16 ngx-b"
write_guest_env "$run_a" "${lists[*]}" SOFTROCE_ADDR=10.0.2.15 SOFTROCE_HOSTNAME=ngx-a SOFTROCE_HOSTS="$hosts" SOFTROCE_RANKS_HERE=1 \
    SOFTROCE_ALONE_LISTS="${alone[*]}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    SOFTROCE_MPIRUN_ARGS="--host ngx-a:1,ngx-b:1 --mca plm_rsh_agent $here/guest-rsh.py --mca oob_tcp_if_include 10.0.2.0/24 --bind-to none"

kernel=$(kernel_image)
initramfs=$(build_initramfs)

# Two free loopback UDP ports, one for each guest's socket netdev.
free_udp_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 20000))
        [ "$p" != "${1:-}" ] && [ -z "$(ss -Htuan "sport = :$p")" ] && { echo "$p"; return; }
    done
    echo "softroce: FAIL: no free loopback port found" >&2
    exit 1
}
port_a=$(free_udp_port)
port_b=$(free_udp_port "$port_a")

# Boots guest B for the seconds A has left plus 60; its server ends with them.
boot_b() {
    local left
    left=$(awk -v t="$guest_timeout" -v a="$t_boot" -v b="$(date +%s.%N)" 'BEGIN { l = t - (b - a); printf "%d", (l > 30 ? l : 30) }')
    write_guest_env "$run_b" "" SOFTROCE_ADDR=10.0.2.16 SOFTROCE_HOSTNAME=ngx-b SOFTROCE_HOSTS="$hosts" \
        SOFTROCE_SERVE=10.0.2.15 SOFTROCE_SERVE_SECONDS="$left" SOFTROCE_PEER_RUN_DIR="$run_a"
    log "booting guest B (ngx-b), $left s for its server"
    run_guest "$run_b" $((left + 60)) 1 -netdev "socket,id=n0,udp=127.0.0.1:$port_a,localaddr=127.0.0.1:$port_b" \
        -device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:0b,romfile= > "$run_b/serial.log" &
    pid_b=$!
}

# With --alone lists A has two vCPUs until it asks for B; otherwise one vCPU
# each from the start.
smp_a=1
[ ${#alone[@]} -gt 0 ] && smp_a=2
log "booting guest A ($kver under $accel, $smp_a vCPUs), UDP socket netdevs 127.0.0.1:$port_a <-> 127.0.0.1:$port_b, run dirs $run_a $run_b"
t_boot=$(date +%s.%N)
run_guest "$run_a" "$guest_timeout" "$smp_a" -netdev "socket,id=n0,udp=127.0.0.1:$port_b,localaddr=127.0.0.1:$port_a" \
    -device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:0a,romfile= > "$run_a/serial.log" &
pid_a=$!
tail -n +1 -f --pid=$pid_a "$run_a/serial.log" | tr -d '\r' &

pid_b=
if [ ${#alone[@]} -eq 0 ]; then
    boot_b
else
    # B boots when A's console asks for it; never, if A ends before.
    while kill -0 $pid_a 2>/dev/null; do
        if grep -aq '^@@ngx-softroce peer-wanted' "$run_a/serial.log"; then boot_b; break; fi
        sleep 1
    done
fi

set +e
wait $pid_a
rc_a=$?
set -e
if [ -n "$pid_b" ]; then
    # B powers off once A's list stopped its server; otherwise the trap kills it.
    for _ in $(seq 30); do kill -0 $pid_b 2>/dev/null || break; sleep 1; done
    echo "softroce: guest B (ngx-b): $(tr -d '\r' < "$run_b/serial.log" | grep -ao '@@ngx-softroce .*' | tr '\n' ' ')"
    kill -0 $pid_b 2>/dev/null && { echo "softroce: guest B still running, killed; its last lines:"; tr -d '\r' < "$run_b/serial.log" | tail -5; }
fi
[ -z "$on_host" ] || echo "softroce: the host's device passed every test of $on_host_lists"
guest_verdict "$run_a" "$rc_a"
