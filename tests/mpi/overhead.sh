#!/bin/bash
# The overhead pattern (Al-Tawil and Moritz 1998, Table 3: mode x size -> o_s, o_r):
#  1. ground truth: over the sim module in virtual time (o_s = 2.5 us,
#     o_r = 1.5 us known), the pattern's o_s and o_r at 1 B and 1 KiB are
#     the sim's (0.1%);
#  2. every send mode of the mpi module in one run gives positive, finite
#     o_s and o_r, o_r below the wait the pattern used (delay_us, calibrated
#     from the barrier: the receive overhead is not the wait), the
#     responder's timers and the paper's L estimate recorded, and a
#     comparison table;
#  3. --overhead-call nonblocking over every mode: recorded as such, finite
#     positive values; for mode isend, whose blocking send is an isend plus
#     wait too, the non-blocking post plus its timed-apart wait
#     (o_s_us + o_s_wait_us; timer12_us + o_r_wait_us: the driver's delayed
#     receive, as the blocking o_r, while the non-blocking o_r_us is the
#     responder's post, timer21) agrees with the blocking o_s and o_r within
#     2x + 1 us;
#  4. on the tcp BTL the synchronous o_s at 1 byte exceeds the standard one
#     (it waits for the receiver's handshake).
# Each mpirun gets 240 s: 8 modes x 2 sizes of ping-pongs between two
# polling ranks take a minute when another process keeps a CPU busy.
MPI_TIMEOUT=240
source "$(dirname "$0")/common.sh"
sim_os=2.5 sim_or=1.5
"$NGX" -m sim --sim-clock virtual --sim-os $sim_os --sim-or $sim_or -x overhead -s 1,1Ki -c 300 --warmup 20 --cpus 0,1 \
    -o "$SCRATCH/sim.json" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "overhead over sim failed"; }
python3 - "$SCRATCH/sim.json" $sim_os $sim_or <<'PY' || fail "overhead over sim is not the sim's o_s, o_r"
import json, sys
doc, truth = json.load(open(sys.argv[1])), {"o_s_us": float(sys.argv[2]), "o_r_us": float(sys.argv[3])}
for r in doc["results"]:
    for key, want in truth.items():
        print(f'sim {r["size_bytes"]} B: {key} {r[key]:.3f} us, truth {want} us')
        assert abs(r[key] - want) <= 0.001 * want, f'{r["size_bytes"]} B: {key} {r[key]:.3f}, truth {want}'
PY

modes=(standard synchronous ready buffered isend issend irsend ibsend)
check_modes() {  # FILE CALL: every run: the mode, the call, finite positive o_s/o_r, o_r below the delay
    python3 - "$1" "$2" "${modes[@]}" <<'PY'
import json, math, sys
doc, call, modes = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3:]
assert [r["variant"] for r in doc["runs"]] == ["mpi-mode=" + m for m in modes], [r["variant"] for r in doc["runs"]]
for run in doc["runs"]:
    assert run["options"]["pattern_options"]["call"] == call, run["options"]["pattern_options"]
    for r in run["results"]:
        print(f'{call} {run["variant"]} {r["size_bytes"]} B: o_s {r["o_s_us"]:.2f} us, o_r {r["o_r_us"]:.2f} us,'
              f' delay {r["delay_us"]:.1f} us')
        for key in ("o_s_us", "o_r_us", "timer21_us", "timer22_us"):
            assert math.isfinite(r[key]) and r[key] > 0, (run["variant"], r["size_bytes"], key, r)
        assert r["o_r_us"] < r["delay_us"] and math.isfinite(r["L_us"]), (run["variant"], r["size_bytes"], r)
PY
}
out=$SCRATCH/modes.json nb=$SCRATCH/nonblocking.json isend=4
# blocking_agrees: both runs, then isend's blocking o_s/o_r against the
# non-blocking post + wait of the other run, within 2x + 1 us. The two runs
# are minutes apart on shared cores (CI measured 6.7 against 22.2 us once),
# so the comparison gets three attempts; the checks of each run do not.
blocking_agrees() {
    ngx_mpirun tcp -np 2 -- "$NGX" -m mpi --mpi-mode "$(IFS=,; echo "${modes[*]}")" -x overhead -s 1,4Ki -c 100 \
        --warmup 10 -o "$out" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; fail "mpirun failed"; }
    check_modes "$out" blocking || fail "blocking overheads"
    grep -q "^# comparison: overhead" "$SCRATCH/log" || fail "no mode-by-mode comparison table"
    ngx_mpirun tcp -np 2 -- "$NGX" -m mpi --mpi-mode "$(IFS=,; echo "${modes[*]}")" -x overhead \
        --overhead-call nonblocking -s 1,4Ki -c 100 --warmup 10 -o "$nb" >"$SCRATCH/log" 2>&1 ||
        { cat "$SCRATCH/log"; fail "--overhead-call nonblocking"; }
    check_modes "$nb" nonblocking || fail "non-blocking overheads"
    local size key b n post
    for size in 1 4096; do
        for key in o_s_us o_r_us; do
            b=$(field_of "$out" $size $key $isend)
            post=$key
            [[ $key == o_r_us ]] && post=timer12_us
            n=$(python3 -c "print($(field_of "$nb" $size $post $isend) + $(field_of "$nb" $size ${key%_us}_wait_us $isend))")
            echo "isend $size B $key: blocking $b us, nonblocking $n us"
            gt "$(python3 -c "print(2 * $b + 1)")" "$n" && gt "$(python3 -c "print(2 * $n + 1)")" "$b" || {
                echo "isend $size B: $key blocking $b us and nonblocking $n us differ by more than 2x + 1 us"
                return 1
            }
        done
    done
}
blocking_agrees || blocking_agrees || blocking_agrees ||
    fail "isend: blocking and non-blocking overheads differ by more than 2x + 1 us, three times"
os_std=$(field_of "$out" 1 o_s_us 0)
os_syn=$(field_of "$out" 1 o_s_us 1)
gt "$os_syn" "$os_std" || fail "synchronous o_s $os_syn is not above standard $os_std"
echo PASS
