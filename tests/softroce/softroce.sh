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
# shellcheck source=common.sh
. "$here/common.sh"

use_lists "$here/tests.list" "$@"

# set -e: a failed run on the host's device exits 1.
run_on_host() { run_lists_on_host "${lists[@]}"; exit 0; }

if [ -z "${SOFTROCE_FORCE_QEMU:-}" ] && host_device; then run_on_host; fi
install_missing
if [ -z "${SOFTROCE_FORCE_QEMU:-}" ] && host_device; then run_on_host; fi

guest_prerequisites

# --- 4. One guest run --------------------------------------------------------
run_dir=$(new_run_dir)
cleanup() { [ -n "${SOFTROCE_KEEP:-}" ] || rm -rf "$run_dir"; }
trap cleanup EXIT
write_guest_env "$run_dir" "${lists[*]}"

kernel=$(kernel_image)
initramfs=$(build_initramfs)
nic=(-nic none)
[ "$netdev" = eth0 ] && nic=(-netdev user,id=n0,restrict=on -device virtio-net-pci,netdev=n0)
log "booting $kver ($(basename "$kernel")) under $accel, netdev $netdev, run dir $run_dir"
t_boot=$(date +%s.%N)
set +e
run_guest "$run_dir" "$guest_timeout" 2 "${nic[@]}" | tee "$run_dir/serial.log" | tr -d '\r'
qemu_rc=${PIPESTATUS[0]}
set -e

# --- 5. The verdict, from the serial console ---------------------------------
guest_verdict "$run_dir" "$qemu_rc"
