#!/bin/bash
# The overhead pattern over every send mode in one run (paper 003, Table 3:
# mode x size -> o_s, o_r): every mode gives positive o_s and o_r; on the tcp
# BTL the synchronous o_s at 1 byte exceeds the standard one (it waits for
# the receiver's handshake).
source "$(dirname "$0")/common.sh"
modes=(standard synchronous ready buffered isend issend irsend ibsend)
out=$SCRATCH/modes.json
ngx_mpirun tcp -np 2 -- "$NGX" -m mpi --mpi-mode "$(IFS=,; echo "${modes[*]}")" -x overhead -s 1,4Ki -c 300 \
    -o "$out" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "mpirun failed"; }
for i in "${!modes[@]}"; do
    os=$(field_of "$out" 1 o_s_us "$i") or=$(field_of "$out" 1 o_r_us "$i")
    echo "${modes[$i]} 1 B: o_s $os us, o_r $or us"
    gt "$os" 0 && gt "$or" 0 || fail "${modes[$i]}: o_s/o_r not positive"
done
grep -q "^# comparison: overhead" "$SCRATCH/log" || fail "no mode-by-mode comparison table"
ngx_mpirun tcp -np 2 -- "$NGX" -m mpi --mpi-mode isend -x overhead --overhead-call nonblocking -s 1 -c 300 \
    >/dev/null 2>&1 || fail "--overhead-call nonblocking"
os_std=$(field_of "$out" 1 o_s_us 0)
os_syn=$(field_of "$out" 1 o_s_us 1)
gt "$os_syn" "$os_std" || fail "synchronous o_s $os_syn is not above standard $os_std"
echo PASS
