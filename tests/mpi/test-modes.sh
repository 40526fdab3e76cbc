#!/bin/bash
# Every send mode of the mpi module runs a ping-pong with vader and with the
# tcp BTL and gives positive, sane (< 10 ms) 1-byte and 4 KiB medians. One
# mpirun per BTL: --mpi-mode takes the list of modes, one run per mode.
source "$(dirname "$0")/common.sh"
modes=(standard synchronous ready buffered isend issend irsend ibsend)
for btl in vader tcp; do
    out=$SCRATCH/$btl.json
    ngx_mpirun "$btl" -np 2 -- "$NGX" -m mpi --mpi-mode "$(IFS=,; echo "${modes[*]}")" -x pingpong -s 1,4Ki \
        -c 200 -o "$out" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "$btl: mpirun failed"; }
    for i in "${!modes[@]}"; do
        variant=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][int(sys.argv[2])]["variant"])' "$out" "$i")
        [[ $variant == "mpi-mode=${modes[$i]}" ]] || fail "$btl: run $i is '$variant', expected mpi-mode=${modes[$i]}"
        for size in 1 4096; do
            m=$(median_of "$out" $size "$i")
            echo "$btl ${modes[$i]} $size B: median $m us"
            gt "$m" 0 && gt 10000 "$m" || fail "$btl ${modes[$i]} $size B: median $m is not sane"
        done
    done
done
# The deadline-safe polling path works too.
ngx_mpirun vader -np 2 -- "$NGX" -m mpi --mpi-progress poll -x pingpong -s 1 -c 200 >/dev/null 2>&1 ||
    fail "--mpi-progress poll"
echo PASS
