#!/bin/bash
# The overhead pattern over the sim module's eight send modes (--sim-mode,
# the mpi module's table, Al-Tawil and Moritz 1998, Table 1), against the configured
# o_s(s) = o_s + (s-1) O_s and o_r(s) = o_r + (s-1) O_r (buffered: + s C for
# the copy), with a rendezvous threshold S = 4 KiB:
#  - blocking calls (standard, synchronous, ready, buffered) and
#    non-blocking posts (isend, issend, irsend, ibsend; --overhead-call
#    nonblocking) within 5% at 1 B, 1 KiB and 2 KiB;
#  - at 8 KiB (> S): ready and buffered stay eager (o_s(s), o_r(s) within
#    5%); the non-blocking posts of standard and synchronous send only the
#    zero-byte request (o_s within 5%, o_r(s) within 5%);
#  - non-blocking modes: o_r is the post of P2's receive, timer21
#    (Al-Tawil and Moritz 1998, section 3.1), within 5% of o_r(s); the
#    delayed post (timer12) too;
#  - non-local calls between their model's cost with a waiting peer (the
#    lower bound, less 5%) and that cost plus the barrier's skew (the upper
#    bound, plus 5%; the median of a call cannot exceed it unless the model
#    or the delay is wrong). The skew (how much later P2 leaves the barrier) is
#    bounded by the calibration's median arrival after the barrier, which
#    holds it plus P2's send, L and P1's receive. The costs, by the sim's
#    rules (docs/sim.md):
#      blocking synchronous send (<= S): o_s(s) + 2L (the receiver's match
#      acknowledgement arrives L after the data);
#      blocking rendezvous send (> S): request o_s + L, the receiver's o_r,
#      its ack o_s + L, the sender's o_r, then the data's o_s(s):
#      2 o_s + 2 o_r + 2L + o_s(s);
#      blocking rendezvous receive (> S), delayed past the request: o_r, the
#      ack o_s + L, the sender's o_r and o_s(s), the data L + (s-1)G and
#      o_r(s): 2 o_r + o_r(s) + o_s + o_s(s) + 2L + (s-1)G. No skew in it
#      (the request is there), but a round trip that needs the sender's
#      process running: at load 7 on 2 cores its median was 1.1-2.8x the
#      model (the sim reports its late calls; the minimum stays the model,
#      64.78 us for 64.76), so it gets the same slack as the sends: the
#      barrier's arrival, the same scheduler's delays;
#  - synchronous mode, 1 B, L = 200 us, o_s = 1 us: the paper's L estimate
#    (timer21 - timer12, mean over the two barrier roots) within 5% of L.
#    By the sim's rules timer21 - timer12 = skew + o_s + L when P2 waits
#    for the message; swapping the root cancels the skew to first order,
#    and L = 200 us keeps P2 waiting under either root (a late P2 leaves
#    the barrier tens of microseconds after P1). o_s (0.5% of L) and the
#    two roots' unequal skews are what the 5% must hold; in real time the
#    same allowance for this machine's scheduler as every check above
#    (twice the reference run's error; at load 12 one root's median
#    timer21 was 6.3 ms). In virtual time it is exact.
source "$(dirname "$0")/sim-common.sh"

TOL=0.05
sim_clock "$@"
OS=5 OR=4 OSB=0.002 ORB=0.001 L=5 S=4096 COPY=0.001 G=0.001
sim_fidelity --sim-os $OS --sim-or $OR --sim-L $L --sim-G $G

check_mode() {  # MODE blocking|nonblocking
    local mode=$1 call=$2
    "$NGX" -m sim "${SIM_CLOCK[@]}" --sim-mode "$mode" --sim-os $OS --sim-or $OR --sim-O $OSB --sim-Or $ORB --sim-L $L --sim-S $S \
        --sim-G $G --sim-copy $COPY -x overhead --overhead-call "$call" -s 1,1Ki,2Ki,8Ki -c 200 --warmup 20 --cpus 0,1 \
        -o "$SCRATCH/$mode.json" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; return 1; }
    python3 - "$SCRATCH/$mode.json" "$mode" "$call" $OS $OR $OSB $ORB $L $S $COPY $G "$TOL" "$FIDELITY_US" <<'PY'
import json, sys
doc, mode, call = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
os_, or_, Os, Or, L, S, C, G, tol, fidelity = map(float, sys.argv[4:14])
base = {"isend": "standard", "issend": "synchronous", "irsend": "ready", "ibsend": "buffered"}.get(mode, mode)
blocking = call == "blocking"
ok = True
for r in doc["results"]:
    s = r["size_bytes"]
    rendezvous = base in ("standard", "synchronous") and s > S
    want_s = os_ + max(s - 1, 0) * Os + (s * C if base == "buffered" else 0)
    want_r = or_ + max(s - 1, 0) * Or
    skew = r["arrival_median_us"]
    checks = []
    if blocking and rendezvous:
        send = 2 * os_ + 2 * or_ + 2 * L + want_s
        recv = 2 * or_ + want_r + os_ + want_s + 2 * L + (s - 1) * G
        checks += [("o_s", "between", (send, send + skew)), ("o_r", "between", (recv, recv + skew))]
    elif blocking and base == "synchronous":
        checks += [("o_s", "between", (want_s + 2 * L, want_s + 2 * L + skew)), ("o_r", "~", want_r)]
    else:
        checks += [("o_s", "~", os_ if rendezvous else want_s), ("o_r", "~", want_r)]
    if not blocking:  # the paper's non-blocking o_r: timer21; the delayed post as well
        checks += [("timer21", "~", want_r), ("timer12", "~", want_r)]
    for key, rule, want in checks:
        got = r[key + "_us"]
        if rule == "~":
            good, shown = abs(got - want) <= tol * want + 2 * fidelity, f"within {100 * tol:g}% + {2 * fidelity:.3f} us of {want:.3f}"
        else:  # the lower bound is met exactly with a waiting peer: the same 5%
            good, shown = (1 - tol) * want[0] - 2 * fidelity <= got <= (1 + tol) * want[1] + 2 * fidelity, f"in [{want[0]:.3f}, {want[1]:.3f}] +-{100 * tol:g}% +-{2 * fidelity:.3f} us"
        ok &= good
        print(f'{mode} ({call}) {s} B: {key} {got:.3f} us, {shown} us{"" if good else "  <-- FAILS"}')
sys.exit(0 if ok else 1)
PY
}

for mode in standard synchronous ready buffered; do
    $ATTEMPT check_mode $mode blocking || fail "sim --sim-mode $mode: o_s/o_r of the blocking calls"
done
for mode in isend issend irsend ibsend; do
    $ATTEMPT check_mode $mode nonblocking || fail "sim --sim-mode $mode: o_s/o_r of the non-blocking posts"
done

check_sync_latency() {
    local L=200 os=1
    "$NGX" -m sim "${SIM_CLOCK[@]}" --sim-mode synchronous --sim-os $os --sim-or 2 --sim-L $L -x overhead -s 1 -c 200 --warmup 20 \
        --cpus 0,1 -o "$SCRATCH/sync-L.json" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; return 1; }
    python3 - "$SCRATCH/sync-L.json" $L $os "$TOL" "$FIDELITY_US" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
L, os_, tol, fidelity = map(float, sys.argv[2:6])
# o_s: what the two roots leave of timer21 - timer12; in real time, the
# scheduler's delays this machine showed at the start (as every check here)
allowed = max(tol * L, os_) + 2 * fidelity
good = abs(r["L_us"] - L) <= allowed
print(f'synchronous 1 B: L estimate (timer21 - timer12) {r["L_us"]:.2f} us, sim L {L:.0f} us (o_s {os_:.0f}, '
      f'allowed +-{allowed:.2f} us); per root timer21 {r["timer21_root_driver_us"]:.2f} / '
      f'{r["timer21_root_responder_us"]:.2f} us, timer12 {r["timer12_us"]:.2f} us{"" if good else "  <-- beyond the tolerance"}')
sys.exit(0 if good else 1)
PY
}
$ATTEMPT check_sync_latency || fail "synchronous mode: the paper's L estimate is not within 5% of the sim's L"
echo PASS
