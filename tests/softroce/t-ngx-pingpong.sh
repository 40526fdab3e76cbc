#!/bin/sh
# `ngx -x pingpong` between two processes (ngx forks its own peer) over a
# module, result checked by check_pingpong.py:
#     t-ngx-pingpong.sh ibv send|write|read      t-ngx-pingpong.sh tcp
# Exits 77 when the ngx binary or the module is not built.
module=$1
mode=$2
[ -x "${NGX:-}" ] || { echo "no ngx binary at '${NGX:-}'"; exit 77; }
"$NGX" --list-modules 2>/dev/null | grep -q "^ *$module " || { echo "ngx has no module $module"; exit 77; }
# Up to 64 KiB (64 packets at MTU 1024): ibv_modes already moves 1 MiB intact
# in every mode, and a 1 MiB round trip takes 50-100 ms under TCG.
sizes=${NGX_SOFTROCE_SIZES:-1,64,4Ki,64Ki}
out=${SOFTROCE_RUN_DIR:-.}/pingpong-$module${mode:+-$mode}.json
count=${NGX_SOFTROCE_COUNT:-20}
set -- -m "$module" -x pingpong -s "$sizes" -c "$count" --warmup 3 --timeout 30 -o "$out"
[ -n "$mode" ] && set -- "$@" --ibv-mode "$mode"
# Pinned ranks: unpinned spinning peers that the guest scheduler moves onto one
# vCPU wait for each other's time slice (milliseconds under TCG).
[ "$(nproc)" -ge 2 ] && set -- "$@" --cpus 0,1
# A pinned rank on a kernel that reads time from hpet or acpi_pm (a TCG guest:
# a system call of about 1 us a read) must time with the TSC (timer.hpp).
clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
expect=
case "$clocksource" in hpet | acpi_pm) [ "$(nproc)" -ge 2 ] && expect="--expect-timer tsc" ;; esac
echo "+ ngx $*"
"$NGX" "$@"
rc=$?
[ $rc = 0 ] || { echo "ngx exited $rc"; exit 1; }
exec python3 "$(dirname "$0")/check_pingpong.py" "$out" "$module${mode:+ $mode}" \
    --sizes "$sizes" --count "$count" --module "$module" ${mode:+--ibv-mode "$mode"} $expect
