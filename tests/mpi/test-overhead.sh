#!/bin/bash
# The overhead pattern: every mode gives positive o_s and o_r; on the tcp
# BTL the synchronous o_s at 1 byte exceeds the standard one (it waits for
# the receiver's handshake).
source "$(dirname "$0")/common.sh"
for mode in standard synchronous ready buffered isend issend irsend ibsend; do
    out=$SCRATCH/$mode.json
    ngx_mpirun tcp -np 2 -- "$NGX" -m mpi --mpi-mode "$mode" -x overhead -s 1,4Ki -c 300 -o "$out" \
        >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "$mode: mpirun failed"; }
    os=$(field_of "$out" 1 o_s_us) or=$(field_of "$out" 1 o_r_us)
    echo "$mode 1 B: o_s $os us, o_r $or us"
    gt "$os" 0 && gt "$or" 0 || fail "$mode: o_s/o_r not positive"
done
ngx_mpirun tcp -np 2 -- "$NGX" -m mpi --mpi-mode isend -x overhead --overhead-call nonblocking -s 1 -c 300 \
    >/dev/null 2>&1 || fail "--overhead-call nonblocking"
os_std=$(field_of "$SCRATCH/standard.json" 1 o_s_us)
os_syn=$(field_of "$SCRATCH/synchronous.json" 1 o_s_us)
gt "$os_syn" "$os_std" || fail "synchronous o_s $os_syn is not above standard $os_std"
echo PASS
