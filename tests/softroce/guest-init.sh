#!/bin/sh
# /init of the SoftRoCE guest's initramfs (busybox sh). Loads the kernel
# modules in the order the host resolved, mounts the host's root (read-only)
# and the run directory (writable) over virtio-9p, then chroots into the host
# root to run guest-main.sh. Always powers off, so QEMU exits.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

say() { echo "@@ngx-softroce $*"; }
die() { say "init-error $*"; say "done passed=0 failed=1 skipped=0"; poweroff -f; }

for m in $(cat /modules/order); do
    insmod "/modules/$m" 2>/dev/null || die "insmod $m failed"
done

run=
for a in $(cat /proc/cmdline); do
    case $a in ngx_run=*) run=${a#ngx_run=} ;; esac
done
[ -n "$run" ] || die "no ngx_run= on the kernel command line"

opts=trans=virtio,version=9p2000.L,msize=512000
# cache=loose: the host root is read-only and stays as it is during the run,
# so the guest keeps what it read in its page cache. Without it every exec
# (ngx, python3, mpirun and their libraries) reads its files over 9p again:
# ibv_devinfo took 20 s instead of 3 s, a 4-size ngx ping-pong 107 s instead
# of 43 s in a guest on a busy host. The run directory stays uncached.
mount -t 9p -o "$opts,ro,cache=loose" hostroot /host || die "cannot mount the host root over 9p"
mount -t devtmpfs devtmpfs /host/dev
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t tmpfs -o size=256m tmpfs /host/run
mkdir -p /host/dev/shm && mount -t tmpfs tmpfs /host/dev/shm
mount -t 9p -o "$opts,rw" run "/host$run" || die "cannot mount the run directory $run over 9p"
. "/host$run/env.sh"

chroot /host /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/run TMPDIR=/run /bin/sh "$NGX_SOURCE_ROOT/tests/softroce/guest-main.sh" "$run"
sync
poweroff -f
