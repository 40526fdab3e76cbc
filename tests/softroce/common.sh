#!/bin/bash
# Functions shared by the SoftRoCE harnesses (softroce.sh: one guest,
# softroce-two-guests.sh: two guests on a virtual network), sourced after
# `set -euo pipefail`: the environment (NGX*, SOFTROCE_*), installing what is
# missing, the kernel and initramfs of the guest, one QEMU guest's command
# line and the verdict read from a guest's serial console.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# skip and the rest of the tests' shell library
source "$here/../lib/common.sh"
export NGX_SOURCE_ROOT=${NGX_SOURCE_ROOT:-$(cd "$here/../.." && pwd)}
export NGX_BUILD_ROOT=${NGX_BUILD_ROOT:-$NGX_SOURCE_ROOT/build}
export NGX=${NGX:-$NGX_BUILD_ROOT/ngx}
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$NGX_BUILD_ROOT/modules}
netdev=${SOFTROCE_NETDEV:-dummy0}
guest_timeout=${SOFTROCE_TIMEOUT:-900}
accel=${SOFTROCE_ACCEL:-tcg}
t_start=$(date +%s.%N)

log() { echo "softroce: $*" >&2; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# --- 1. What the run needs, installed with apt-get when missing --------------
needed_pkgs() {
    local p=()
    command -v qemu-system-x86_64 >/dev/null || p+=(qemu-system-x86)
    ls /boot/vmlinuz-* >/dev/null 2>&1 || p+=(linux-image-amd64)
    [ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || p+=(busybox-static)
    command -v rdma >/dev/null || p+=(iproute2)
    command -v ibv_rc_pingpong >/dev/null || p+=(ibverbs-utils)
    ls /usr/lib/*/libibverbs/librxe-*.so >/dev/null 2>&1 || p+=(ibverbs-providers rdma-core)
    [ -e /usr/include/infiniband/verbs.h ] || p+=(libibverbs-dev)
    command -v ib_send_lat >/dev/null || p+=(perftest)
    command -v cpio >/dev/null || p+=(cpio)
    command -v modprobe >/dev/null || p+=(kmod)
    command -v xz >/dev/null || p+=(xz-utils)
    ls /usr/lib/python3*/json/__init__.py >/dev/null 2>&1 || p+=(python3)
    echo "${p[@]}"
}

install_missing() {
    local pkgs
    pkgs=$(needed_pkgs)
    [ -n "$pkgs" ] || return 0
    if [ -n "${SOFTROCE_NO_INSTALL:-}" ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        log "missing packages ($pkgs) and no apt-get as root to install them"
        return 0
    fi
    log "installing: $pkgs"
    local t0; t0=$(date +%s.%N)
    export DEBIAN_FRONTEND=noninteractive
    # INITRD=No: the kernel package's hook skips update-initramfs (40 s or
    # more here), whose initrd the guest never boots (build_initramfs makes
    # its own). The lock timeout waits out another apt-get instead of failing.
    # shellcheck disable=SC2086
    if ! { apt-get update -q -o DPkg::Lock::Timeout=300 &&
           INITRD=No apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 $pkgs; } \
           >"${TMPDIR:-/tmp}/ngx-softroce-apt.log" 2>&1; then
        echo "softroce: FAIL: apt-get could not install $pkgs (log: ${TMPDIR:-/tmp}/ngx-softroce-apt.log):"
        tail -5 "${TMPDIR:-/tmp}/ngx-softroce-apt.log"
        exit 1
    fi
    log "install took $(elapsed "$t0") s"
}

# --- 2. A host with a real RDMA device runs the list directly -----------------
host_device() {
    command -v ibv_devices >/dev/null || return 1
    ibv_devices 2>/dev/null | awk 'NR > 2 && NF >= 1 { found = 1 } END { exit !found }'
}

# Runs LIST... directly on the host's RDMA device, no guest, in
# SOFTROCE_RUN_DIR (a fresh directory when unset); returns 1 unless every
# listed test passed.
run_lists_on_host() {
    local dev l rc=0
    dev=$(ibv_devices | awk 'NR > 2 && NF >= 1 { print $1; exit }')
    log "host has RDMA device $dev: running $* directly, no guest"
    export SOFTROCE_RUN_DIR=${SOFTROCE_RUN_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ngx-softroce.XXXXXX")}
    export RXE_DEV=$dev RXE_ADDR=${SOFTROCE_HOST_ADDR:-127.0.0.1}
    export RXE_GID=$(roce_gid "$dev")
    for l; do "$here/run-list.sh" "$l" || rc=1; done
    [ $rc = 0 ] || return 1
    (lists=("$@") && require_all_passed "$(grep -c '^pass ' "$SOFTROCE_RUN_DIR/results" || true)" \
        "$SOFTROCE_RUN_DIR/results")
}

# On RoCE, the index of port 1's first IPv4-mapped RoCE v2 GID (for tools that
# need -g / -x); empty on InfiniBand.
roce_gid() {
    local port=/sys/class/infiniband/$1/ports/1 g i
    for g in "$port"/gids/*; do
        i=${g##*/}
        grep -q '^0000:0000:0000:0000:0000:ffff:' "$g" 2>/dev/null || continue
        [ "$(cat "$port/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] && { echo "$i"; return; }
    done
}

# Sets lists to the test lists given (LIST...), else to DEFAULT; exits 1 when
# one cannot be read.
use_lists() {
    local default=$1 l
    shift
    lists=("$@")
    [ ${#lists[@]} -gt 0 ] || lists=("$default")
    for l in "${lists[@]}"; do
        [ -r "$l" ] || { echo "softroce: cannot read test list $l" >&2; exit 1; }
    done
}

# The number of tests in the lists.
listed_tests() { cat "${lists[@]}" | awk '$1 != "" && $1 !~ /^#/ { n++ } END { print n + 0 }'; }

# Fails unless PASSED equals the number of listed tests: a test that exits 77
# (skipped) would otherwise leave failed=0 with nothing checked. RESULTS is
# the "pass|fail|skip NAME" file of run-list.sh.
require_all_passed() {
    local passed=${1:-0} results=$2 expected
    expected=$(listed_tests)
    if [ "$passed" -ne "$expected" ]; then
        echo "softroce: FAIL: $expected tests listed, $passed passed; the others:"
        grep -v '^pass ' "$results" 2>/dev/null || true
        exit 1
    fi
    echo "softroce: all $expected listed tests passed"
}

# --- 3. Kernel and initramfs for the guest ------------------------------------
# Sets kver, busybox and cache; exits 77 when QEMU or a kernel with rdma_rxe
# cannot be had.
guest_prerequisites() {
    command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed and could not be installed"
    kver=
    for v in $(ls /lib/modules 2>/dev/null | sort -V -r); do
        if [ -e "/boot/vmlinuz-$v" ] && modprobe -S "$v" --show-depends rdma_rxe >/dev/null 2>&1; then kver=$v; break; fi
    done
    [ -n "$kver" ] || skip "no kernel with rdma_rxe in /boot and /lib/modules (package linux-image-amd64)"
    for c in cpio modprobe xz rdma; do command -v $c >/dev/null || skip "$c is missing"; done
    busybox=$(command -v busybox || echo /bin/busybox)
    [ -x "$busybox" ] || skip "busybox is missing (package busybox-static)"

    cache=${SOFTROCE_CACHE:-$NGX_BUILD_ROOT/softroce-cache}
    mkdir -p "$cache"
}

# The raw vmlinux inside Debian's bzImage boots (PVH) without the slow
# in-guest XZ decompression under TCG. Falls back to the bzImage.
kernel_image() {
    local vmlinuz=/boot/vmlinuz-$kver raw=$cache/vmlinux-$kver off
    if [ ! -s "$raw" ]; then
        off=$(LC_ALL=C grep -abo $'\xfd7zXZ' "$vmlinuz" 2>/dev/null | head -1 | cut -d: -f1 || true)
        if [ -n "$off" ]; then
            tail -c +$((off + 1)) "$vmlinuz" | xz -dcq > "$raw.tmp" 2>/dev/null || true
            # xz complains about trailing data after the stream; keep an ELF result.
            if [ "$(head -c 4 "$raw.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then mv "$raw.tmp" "$raw"; fi
            rm -f "$raw.tmp"
        fi
    fi
    if [ -s "$raw" ]; then echo "$raw"; else echo "$vmlinuz"; fi
}

# Kernel modules in load order: crc32_generic first (rdma_rxe needs the crc32
# shash and fails "failed to add <netdev>" without it), then what modprobe
# resolves for virtio-9p, the netdevs and rdma_rxe.
module_files() {
    local mods=(crc32_generic virtio_pci 9pnet_virtio 9p dummy veth rdma_rxe rdma_ucm)
    [ "$netdev" = eth0 ] && mods+=(virtio_net)
    for m in "${mods[@]}"; do
        modprobe -S "$kver" --show-depends "$m" || { log "modprobe cannot resolve $m for $kver"; return 1; }
    done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

build_initramfs() {
    local img=$cache/initramfs-$kver-$netdev.cpio.gz root=$cache/initramfs-root-$netdev f
    if [ -s "$img" ] && [ "$img" -nt "$here/guest-init.sh" ] && [ "$img" -nt "${BASH_SOURCE[0]}" ]; then echo "$img"; return; fi
    rm -rf "$root"
    mkdir -p "$root"/{bin,dev,proc,sys,host,modules}
    cp "$busybox" "$root/bin/busybox"
    ln -s busybox "$root/bin/sh"
    cp "$here/guest-init.sh" "$root/init"
    chmod +x "$root/init"
    module_files > "$cache/modules.list"
    while read -r f; do
        case $f in
            *.xz) xz -dc "$f" > "$root/modules/$(basename "${f%.xz}")" ;;
            *.zst) zstd -dcq "$f" > "$root/modules/$(basename "${f%.zst}")" ;;
            *) cp "$f" "$root/modules/" ;;
        esac
        basename "${f%.*z*}" | sed 's/\.ko.*$/.ko/' >> "$root/modules/order"
    done < "$cache/modules.list"
    (cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$img.tmp"
    mv "$img.tmp" "$img"
    echo "$img"
}

# --- 4. One guest run --------------------------------------------------------
# A fresh run directory (the guest's writable share), printed.
new_run_dir() {
    local d
    d=$(mktemp -d "$NGX_BUILD_ROOT/softroce-run.XXXXXX" 2>/dev/null || mktemp -d "${TMPDIR:-/tmp}/ngx-softroce.XXXXXX")
    chmod 777 "$d"
    echo "$d"
}

# Writes RUN_DIR/env.sh, which the guest sources: the NGX paths, the netdev,
# the run directory, the test lists (LISTS, space-separated) and any further
# VAR=VALUE given (exported in the guest).
write_guest_env() {
    local run=$1 lists=$2 kv
    shift 2
    {
        printf 'export NGX=%q NGX_MODULE_PATH=%q NGX_BUILD_ROOT=%q NGX_SOURCE_ROOT=%q\n' \
            "$NGX" "$NGX_MODULE_PATH" "$NGX_BUILD_ROOT" "$NGX_SOURCE_ROOT"
        printf 'export SOFTROCE_NETDEV=%q SOFTROCE_RUN_DIR=%q\n' "$netdev" "$run"
        printf 'SOFTROCE_LISTS=%q\n' "$lists"
        for kv in "$@"; do printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}"; done
    } > "$run/env.sh"
    : > "$run/serial.log"
}

# Boots one guest on RUN_DIR under `timeout SECONDS` with SMP vCPUs and the
# NIC arguments that follow; the serial console goes to stdout, QEMU's process
# id to RUN_DIR/qemu.pid. Needs kver, kernel and initramfs (kernel_image,
# build_initramfs). Returns QEMU's status (124 or 137 on the deadline).
run_guest() {
    local run=$1 secs=$2 smp=$3
    shift 3
    timeout --kill-after=10 "$secs" qemu-system-x86_64 \
        -accel "$accel" -cpu max -m 1G -smp "$smp" -nographic -no-reboot -nodefaults -serial stdio \
        -pidfile "$run/qemu.pid" -kernel "$kernel" -initrd "$initramfs" "$@" \
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
        -virtfs "local,path=$run,mount_tag=run,security_model=none,multidevs=remap" \
        -append "console=ttyS0 quiet loglevel=3 panic=-1 ${SOFTROCE_KERNEL_ARGS-idle=poll} ngx_run=$run" \
        </dev/null 2>&1
}

# --- 5. The verdict, from the serial console ---------------------------------
# Prints the per-test summary of the guest on RUN_DIR (whose QEMU exited with
# QEMU_RC; t_boot is when it started) and exits 1 unless every listed test
# passed.
guest_verdict() {
    local run_dir=$1 qemu_rc=$2 marks boot done_line
    marks=$(tr -d '\r' < "$run_dir/serial.log" | grep -ao '@@ngx-softroce .*' || true)
    boot=$(echo "$marks" | awk '$2 == "ready" { print $3 }' | head -1)
    done_line=$(echo "$marks" | grep -a '^@@ngx-softroce done ' | tail -1 || true)
    echo
    echo "softroce: summary (kernel $kver, accel $accel, netdev $netdev)"
    echo "$marks" | awk '$2 == "end" { printf "  %-28s %s %s\n", $3, $4, $5 }'
    echo "softroce: guest ready after ${boot:-?} s of guest uptime; qemu ran $(elapsed "$t_boot") s; whole run $(elapsed "$t_start") s"
    if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
        echo "softroce: FAIL: the guest did not finish within $guest_timeout s"
        exit 1
    fi
    if [ -z "$done_line" ]; then
        echo "softroce: FAIL: the guest ended (qemu exit $qemu_rc) without a result line; last console lines:"
        tail -20 "$run_dir/serial.log"
        exit 1
    fi
    echo "softroce: ${done_line#@@ngx-softroce done }"
    case $done_line in *" failed=0 "*|*" failed=0") ;; *) exit 1 ;; esac
    require_all_passed "$(echo "$done_line" | sed -n 's/.* passed=\([0-9]*\).*/\1/p')" "$run_dir/results"
}
