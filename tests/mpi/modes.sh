#!/bin/bash
# The send modes of the mpi module, told apart where they differ, and the
# module's other options doing what they name:
#  1. every mode runs a ping-pong with vader and with the tcp BTL (one mpirun
#     per BTL, --mpi-mode takes the list); each run is labelled with its mode
#     and gives positive, sane (< 10 ms) 1-byte and 4 KiB medians;
#  2. tcp BTL, 1 byte: a synchronous send waits for the receiver's match
#     (a handshake), so synchronous and issend are not faster than standard
#     and isend (minimums; an ordering, tests/lib/bounds.sh);
#  3. 4 KiB, vader BTL: at the eager limit (btl_vader_eager_limit 4096,
#     header included) standard and isend take the rendezvous, while
#     buffered and ibsend, sending a copy from the attached buffer, came out
#     far faster (minimums 0.56 against 2.06 us, medians 0.60-0.65 against
#     2.08-2.17 us; 2.18 against 3.5 us in a CI run at load 10): isend must
#     not be faster than buffered and ibsend (an ordering: how far apart
#     they are depends on the machine);
#     Not claimed at 1 MiB: which is faster there differed between machines
#     (buffered 36 us against isend's 67 us on one, the reverse on another,
#     and over tcp the copy overlaps the pipelined transfer);
#  4. --mpi-progress block,poll: two labelled runs whose minimums agree within
#     2x + 1 us (polling measures the same transfer);
#  5. --mpi-vector-stride 64 --mpi-vector-block 8 (a derived datatype): runs
#     at 64 B and 4 KiB (the buffer spans the strided layout: this crashed
#     before), its 4 KiB minimum at least half the contiguous one (it packs:
#     not faster; a real-time bound with a factor of 2), and a size
#     that is not a multiple of the block exits 2 naming the block. (--verify
#     checks contiguous payloads; a strided layout leaves gaps, so it is not
#     used here: the strided pattern will check its own layout.)
# The orderings (2-4) are measured once more before they fail, claim 5's
# three times (the host moves the two vCPUs: a cache line between them costs
# 0.1 or 0.5 us, and the two runs compared can land on either). How far
# apart the modes are is an accuracy figure, not asserted.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/../lib/bounds.sh"
modes=(standard synchronous ready buffered isend issend irsend ibsend)

# min_of FILE SIZE RUN: the minimum (us) of SIZE bytes of run RUN.
min_of() { field_of "$1" "$2" min_us "$3"; }
# index_of MODE: the run number of MODE.
index_of() { local i; for i in "${!modes[@]}"; do [[ ${modes[$i]} == "$1" ]] && echo "$i"; done; }
# not_faster FILE SIZE A B: min(A) >= min(B), printed (an ordering).
not_faster() {
    assert_at_least "$2 B: $3 min against $4 min (us)" "$(min_of "$1" "$2" "$(index_of "$3")")" \
        "$(min_of "$1" "$2" "$(index_of "$4")")"
}

run_modes() {  # BTL: every mode, 1 B .. 1 MiB
    ngx_mpirun "$1" -np 2 -- "$NGX" -m mpi --mpi-mode "$(IFS=,; echo "${modes[*]}")" -x pingpong -s 1,4Ki \
        -c 200 --cpus 0,1 -o "$SCRATCH/$1.json" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "$1: mpirun failed"; }
}
modes_differ() {  # BTL
    local out=$SCRATCH/$1.json ok=0
    if [[ $1 == tcp ]]; then
        not_faster "$out" 1 synchronous standard || ok=1
        not_faster "$out" 1 issend isend || ok=1
    fi
    if [[ $1 == vader ]]; then
        not_faster "$out" 4096 isend buffered || ok=1
        not_faster "$out" 4096 isend ibsend || ok=1
    fi
    return $ok
}
for btl in vader tcp; do
    run_modes "$btl"
    out=$SCRATCH/$btl.json
    for i in "${!modes[@]}"; do
        variant=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][int(sys.argv[2])]["variant"])' "$out" "$i")
        [[ $variant == "mpi-mode=${modes[$i]}" ]] || fail "$btl: run $i is '$variant', expected mpi-mode=${modes[$i]}"
        for size in 1 4096; do
            m=$(median_of "$out" $size "$i")
            echo "$btl ${modes[$i]} $size B: median $m us"
            gt "$m" 0 && gt 10000 "$m" || fail "$btl ${modes[$i]} $size B: median $m is not sane"
        done
    done
    echo "$btl: modes told apart"
    if ! modes_differ "$btl"; then
        echo "$btl: measuring once more"
        run_modes "$btl"
        modes_differ "$btl" || fail "$btl: the modes are not told apart where they differ"
    fi
done

progress() {
    ngx_mpirun vader -np 2 -- "$NGX" -m mpi --mpi-progress block,poll -x pingpong -s 1,4Ki -c 300 --cpus 0,1 \
        -o "$SCRATCH/progress.json" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "--mpi-progress block,poll"; }
    python3 - "$SCRATCH/progress.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert [r["variant"] for r in runs] == ["mpi-progress=block", "mpi-progress=poll"], [r["variant"] for r in runs]
assert runs[1]["options"]["module_options"]["mpi-progress"] == "poll", runs[1]["options"]["module_options"]
for block, poll in zip(runs[0]["results"], runs[1]["results"]):
    b, p = block["min_us"], poll["min_us"]
    print(f'{block["size_bytes"]} B: block min {b:.2f} us, poll min {p:.2f} us')
    assert p < 2 * b + 1 and b < 2 * p + 1, "block and poll disagree by more than 2x + 1 us"
PY
}
progress || { echo "measuring once more"; progress || fail "--mpi-progress poll does not measure what block does"; }

vector=(--mpi-vector-stride 64 --mpi-vector-block 8)
strided_not_faster() {  # the two runs back to back; the host may move the vCPUs between them
    ngx_mpirun vader -np 2 -- "$NGX" -m mpi "${vector[@]}" -x pingpong -s 64,4Ki -c 200 --cpus 0,1 \
        -o "$SCRATCH/vector.json" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "--mpi-vector-stride 64: the run failed"; }
    ngx_mpirun vader -np 2 -- "$NGX" -m mpi -x pingpong -s 64,4Ki -c 200 --cpus 0,1 \
        -o "$SCRATCH/contiguous.json" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "contiguous run failed"; }
    v=$(min_of "$SCRATCH/vector.json" 4096 0) c=$(min_of "$SCRATCH/contiguous.json" 4096 0)
    assert_at_least "4 KiB: strided min against half the contiguous min (us)" "$v" "$(python3 -c "print($c / 2)")"
}
strided_not_faster || strided_not_faster || strided_not_faster ||
    fail "a strided 4 KiB ($v us) is faster than half a contiguous one ($c us), three times"
ngx_mpirun vader -np 2 -- "$NGX" -m mpi "${vector[@]}" -x pingpong -s 60 -c 10 >"$SCRATCH/log" 2>&1
rc=$?
[[ $rc == 2 ]] || { cat "$SCRATCH/log"; fail "60 B with --mpi-vector-block 8: exit $rc, expected 2"; }
grep -q "not a multiple of --mpi-vector-block=8" "$SCRATCH/log" || fail "60 B with --mpi-vector-block 8: no message naming the block"
echo PASS
