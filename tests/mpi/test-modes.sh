#!/bin/bash
# Every send mode of the mpi module runs a ping-pong with vader and with the
# tcp BTL and gives positive, sane (< 10 ms) 1-byte and 4 KiB medians.
source "$(dirname "$0")/common.sh"
for btl in vader tcp; do
    for mode in standard synchronous ready buffered isend issend irsend ibsend; do
        out=$SCRATCH/$btl-$mode.json
        ngx_mpirun "$btl" -np 2 -- "$NGX" -m mpi --mpi-mode "$mode" -x pingpong -s 1,4Ki -c 200 -o "$out" \
            >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "$btl $mode: mpirun failed"; }
        for size in 1 4096; do
            m=$(median_of "$out" $size)
            echo "$btl $mode $size B: median $m us"
            gt "$m" 0 && gt 10000 "$m" || fail "$btl $mode $size B: median $m is not sane"
        done
    done
done
# The deadline-safe polling path works too.
ngx_mpirun vader -np 2 -- "$NGX" -m mpi --mpi-progress poll -x pingpong -s 1 -c 200 >/dev/null 2>&1 ||
    fail "--mpi-progress poll"
echo PASS
