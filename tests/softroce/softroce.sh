#!/bin/bash
# SoftRoCE harness: runs a list of verbs tests against a real RDMA device when
# the host has one, otherwise inside a QEMU guest that boots Debian's kernel,
# loads rdma_rxe and creates an rxe device on a netdev.
#
#     tests/softroce/softroce.sh [LIST...]     (default: tests/softroce/tests.list)
#
# The guest shares the host's root read-only over virtio-9p and chroots into
# it, so it runs the very binaries of the build tree. A per-run directory is
# shared writable; the guest writes its outputs there and reports every test on
# the serial console as "@@ngx-softroce ..." marker lines (see run-list.sh).
#
# Exit: 0 every test of the lists ran and passed (the guest reports as many
# passes as the lists have tests), 1 a test failed or skipped, the guest did
# not finish, or installing a missing package failed; 77 only when nothing was
# to be installed (SOFTROCE_NO_INSTALL, not root, no apt-get) and QEMU or the
# kernel package is missing.
# Environment (optional): NGX NGX_MODULE_PATH NGX_BUILD_ROOT NGX_SOURCE_ROOT
# (set by meson's test_env), SOFTROCE_NETDEV=dummy0|eth0|lo, SOFTROCE_TIMEOUT
# (seconds for the whole guest, default 900), SOFTROCE_ACCEL=tcg|kvm,
# SOFTROCE_FORCE_QEMU=1 (use the guest even when the host has a device),
# SOFTROCE_NO_INSTALL=1 (never call apt-get), SOFTROCE_KEEP=1 (keep run dir).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export NGX_SOURCE_ROOT=${NGX_SOURCE_ROOT:-$(cd "$here/../.." && pwd)}
export NGX_BUILD_ROOT=${NGX_BUILD_ROOT:-$NGX_SOURCE_ROOT/build}
export NGX=${NGX:-$NGX_BUILD_ROOT/ngx}
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$NGX_BUILD_ROOT/modules}
netdev=${SOFTROCE_NETDEV:-dummy0}
guest_timeout=${SOFTROCE_TIMEOUT:-900}
t_start=$(date +%s.%N)

lists=("$@")
[ ${#lists[@]} -gt 0 ] || lists=("$here/tests.list")
for l in "${lists[@]}"; do
    [ -r "$l" ] || { echo "softroce: cannot read test list $l" >&2; exit 1; }
done

log() { echo "softroce: $*" >&2; }
skip() { echo "softroce: SKIP: $*"; exit 77; }
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
    # shellcheck disable=SC2086
    if ! { apt-get update -q && apt-get install -y -q --no-install-recommends $pkgs; } >"${TMPDIR:-/tmp}/ngx-softroce-apt.log" 2>&1; then
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

run_on_host() {
    local dev
    dev=$(ibv_devices | awk 'NR > 2 && NF >= 1 { print $1; exit }')
    log "host has RDMA device $dev: running the tests directly, no guest"
    export SOFTROCE_RUN_DIR=${SOFTROCE_RUN_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ngx-softroce.XXXXXX")}
    export RXE_DEV=$dev RXE_ADDR=${SOFTROCE_HOST_ADDR:-127.0.0.1}
    export RXE_GID=$(roce_gid "$dev")
    local rc=0
    for l in "${lists[@]}"; do "$here/run-list.sh" "$l" || rc=1; done
    [ $rc = 0 ] || exit 1
    require_all_passed "$(grep -c '^pass ' "$SOFTROCE_RUN_DIR/results" || true)" "$SOFTROCE_RUN_DIR/results"
    exit 0
}

if [ -z "${SOFTROCE_FORCE_QEMU:-}" ] && host_device; then run_on_host; fi
install_missing
if [ -z "${SOFTROCE_FORCE_QEMU:-}" ] && host_device; then run_on_host; fi

# --- 3. Kernel and initramfs for the guest ------------------------------------
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
    local img=$cache/initramfs-$kver-$netdev.cpio.gz root=$cache/initramfs-root f
    if [ -s "$img" ] && [ "$img" -nt "$here/guest-init.sh" ] && [ "$img" -nt "$0" ]; then echo "$img"; return; fi
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
run_dir=$(mktemp -d "$NGX_BUILD_ROOT/softroce-run.XXXXXX" 2>/dev/null || mktemp -d "${TMPDIR:-/tmp}/ngx-softroce.XXXXXX")
chmod 777 "$run_dir"
cleanup() { [ -n "${SOFTROCE_KEEP:-}" ] || rm -rf "$run_dir"; }
trap cleanup EXIT

{
    printf 'export NGX=%q NGX_MODULE_PATH=%q NGX_BUILD_ROOT=%q NGX_SOURCE_ROOT=%q\n' \
        "$NGX" "$NGX_MODULE_PATH" "$NGX_BUILD_ROOT" "$NGX_SOURCE_ROOT"
    printf 'export SOFTROCE_NETDEV=%q SOFTROCE_RUN_DIR=%q\n' "$netdev" "$run_dir"
    printf 'SOFTROCE_LISTS=%q\n' "${lists[*]}"
} > "$run_dir/env.sh"
: > "$run_dir/serial.log"

kernel=$(kernel_image)
initramfs=$(build_initramfs)
nic=(-nic none)
[ "$netdev" = eth0 ] && nic=(-netdev user,id=n0,restrict=on -device virtio-net-pci,netdev=n0)
accel=${SOFTROCE_ACCEL:-tcg}
log "booting $kver ($(basename "$kernel")) under $accel, netdev $netdev, run dir $run_dir"
t_boot=$(date +%s.%N)
set +e
timeout --kill-after=10 "$guest_timeout" qemu-system-x86_64 \
    -accel "$accel" -cpu max -m 1G -smp 2 -nographic -no-reboot -nodefaults -serial stdio \
    -kernel "$kernel" -initrd "$initramfs" "${nic[@]}" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$run_dir,mount_tag=run,security_model=none,multidevs=remap" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1 ${SOFTROCE_KERNEL_ARGS-idle=poll} ngx_run=$run_dir" \
    </dev/null 2>&1 | tee "$run_dir/serial.log" | tr -d '\r'
qemu_rc=${PIPESTATUS[0]}
set -e

# --- 5. The verdict, from the serial console ---------------------------------
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
