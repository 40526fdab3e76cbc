#!/bin/bash
# The protocol decomposition (Al-Tawil and Moritz 1998, section 3.2, eqs. 1-7; `ngx fit RUN.json`):
#  1. sim with a rendezvous threshold (--sim-S 2048), standard mode (the base
#     run: o_s, o_r, L, G) and synchronous mode: T at every size <= S in
#     standard mode; above S the sim asks (zero-byte request), waits for the
#     acknowledgement and pushes the data. Al-Tawil and Moritz 1998 (section 3.2, Figure 1)
#     calls the push model RAT (Request, Acknowledge, Transfer; RTA pulls the
#     data and acknowledges after it), and RAT is inferred at every size > S
#     in both modes. The T sizes' predicted T_s-r (eq. 2) within 5% of the
#     measured. The paper's RAT also ends with an acknowledgement of the
#     pushed data (eq. 7: T_s-r = 4 o_s + 4L + 3 o_r + (k-1)G, the ACK's L
#     and o_r included); the sim's rendezvous is LogGPS's (Ino et al. 2001,
#     Table 3), without it: half its ping-pong is 3 o_s + 3L + 3 o_r + (k-1)G,
#     eq. (7) less that ACK's o_s + L, which the RAT rows must match within
#     5%. Synchronous mode below S: the send waits for the receiver's match
#     (the sim's acknowledgement arrives L after the data), the data went
#     first: TA (eq. 3 nearer the measured send than eq. 1 when 2L > o_s +
#     2 o_r: L = 10 us here, o_s 2, o_r 4);
#  2. under mpirun on the vader BTL, standard mode: the inferred protocol
#     turns from a pushed one (T or TA: the data move before the receiver
#     answers) to a handshake (RTA or RAT) where Open MPI's eager limit
#     (btl_vader_eager_limit, ompi_info) says, with one measured size of
#     slack; sizes up to half the limit are pushed; the smallest is T;
#  3. the same for the tcp BTL (btl_tcp_eager_limit) with one rank in each
#     of two network namespaces joined by a veth pair (mpirun with the
#     nsrsh agent, tests/net/netns.sh): its rendezvous sends the first
#     btl_tcp_rndv_eager_limit bytes (= the eager limit) with the request,
#     so above the limit the delayed receive waits one round trip more
#     (seen: 1 us at 48 KiB, 53 us at 64 KiB). Across the veth pair that
#     step stands out; on loopback, with both ranks' wake-ups on two shared
#     cores, it did not (T at every size in one run, RTA from 48 KiB in
#     the next), so loopback is no longer used for it. Further above the
#     limit the wait stays one round trip while the decision's bound grows
#     with (k-1)G, so tcp's sizes there may be inferred pushed again: the
#     check is the switch, the flips are printed. Both BTL checks get
#     up to three attempts (about one run in three has a spoiled size);
#  4. `-o` writes the decomposition as JSON (rows mode x size).
source "$(dirname "$0")/common.sh"

sim_check() {
    "$NGX" -m sim --sim-mode standard,synchronous --sim-os 2 --sim-or 4 --sim-L 10 --sim-S 2048 -x overhead \
        -s 1,256,1Ki,2Ki,4Ki,8Ki,16Ki -c 200 --warmup 20 --cpus 0,1 -o "$SCRATCH/sim.json" >"$SCRATCH/log" 2>&1 ||
        { cat "$SCRATCH/log"; return 1; }
    "$NGX" fit "$SCRATCH/sim.json" -o "$SCRATCH/sim-protocols.json" || return 1
    python3 - "$SCRATCH/sim-protocols.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["kind"] == "protocols" and doc["rows"], doc
p = doc["params"]
ok = True
for row in doc["rows"]:
    s, sync = row["size_bytes"], row["run"].endswith("synchronous")
    want = ("TA" if sync else "T") if s <= 2048 else "RAT"
    good = row["protocol"] == want
    measured = row["measured_end_to_end_us"]
    if want == "T":  # eq. (2)
        err = row["relative_error"]
    elif want == "RAT":  # eq. (7) less the closing ACK the sim does not send
        err = (row["predicted_end_to_end_us"] - p["o_s_us"] - p["L_us"] - measured) / measured
    else:
        err = None  # TA: half a ping-pong of synchronous sends is not eq. (3)'s two deliveries
    good &= err is None or abs(err) <= 0.05
    ok &= good
    shown = "" if err is None else f", error {100 * err:+.1f}%"
    print(f'{row["run"]} {s} B: {row["protocol"]} (sim: {want}), measured {measured:.2f} us{shown}'
          f'{"" if good else "  <-- FAILS"}')
sys.exit(0 if ok else 1)
PY
}
twice sim_check || fail "protocols over sim"

have_mpi || { echo "SKIP (after the sim part passed): mpirun, ompi_info or the mpi module missing"; exit 77; }

eager_limit() {  # BTL
    ompi_info --param btl "$1" --level 9 --parsable | sed -n "s/^mca:btl:$1:param:btl_$1_eager_limit:value://p"
}

# The first size inferred RTA or RAT must be the first size >= the limit, or
# the next one (slack); every size from there on stays RTA or RAT (above the
# limit every send waits for the receiver: no flip back to a pushed
# protocol; tcp's flips are reported only, see below); every size <= limit/2 must be T or TA, the smallest T.
switch_check() {  # BTL SIZES RUNNER
    local btl=$1 sizes=$2 runner=$3 limit
    limit=$(eager_limit "$btl")
    [[ $limit =~ ^[0-9]+$ ]] || { echo "ompi_info gives no btl_${btl}_eager_limit"; return 1; }
    # 400 samples: the decision uses minima, which at vader's sub-microsecond
    # eager costs need many repetitions to settle
    "$runner" "$btl" "$NGX" -m mpi --mpi-mode standard -x overhead -s "$sizes" -c 400 --warmup 40 \
        -o "$SCRATCH/$btl.json" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; return 1; }
    "$NGX" fit "$SCRATCH/$btl.json" -o "$SCRATCH/$btl-protocols.json" || return 1
    python3 - "$SCRATCH/$btl-protocols.json" "$limit" "$btl" <<'PY'
import json, sys
rows, limit, btl = json.load(open(sys.argv[1]))["rows"], int(sys.argv[2]), sys.argv[3]
sizes = [r["size_bytes"] for r in rows]
expected = next(i for i, s in enumerate(sizes) if s >= limit)
first = next((i for i, r in enumerate(rows) if r["protocol"] in ("RTA", "RAT")), None)
print(f'{btl}: eager limit {limit} B (ompi_info); inferred ' +
      ", ".join(f'{r["size_bytes"]}:{r["protocol"]}' for r in rows))
assert rows[0]["protocol"] == "T", "the smallest size is not T"
assert all(r["protocol"] in ("T", "TA") for r in rows if r["size_bytes"] <= limit // 2), "pushed data expected"
assert first is not None and expected <= first <= expected + 1, \
    f'first RTA/RAT size {sizes[first] if first is not None else None}, expected {sizes[expected]} (or the next)'
flips = [r["size_bytes"] for r in rows[first:] if r["protocol"] not in ("RTA", "RAT")]
if btl == "tcp":
    # tcp's rendezvous carries btl_tcp_rndv_eager_limit (= the eager limit) bytes
    # with its request: above the limit the delayed receive waits one round trip
    # plus the rest only, while the decision's bound grows with (k-1)G, so past
    # the limit the wait can drop under it (seen on CI's machine: 96 KiB and
    # 128 KiB inferred TA in three runs out of three). Reported, not asserted.
    if flips:
        print(f'note: inferred pushed again above {sizes[first]}: {flips} (partly eager rendezvous)')
else:
    assert not flips, f'pushed again above the first RTA/RAT size {sizes[first]}: {flips}'
PY
}
thrice switch_check vader 1,512,1Ki,2Ki,3Ki,4Ki,6Ki,8Ki,16Ki,32Ki ngx_mpirun ||
    fail "vader: the switch is not at the eager limit"

NETNS_NO_TRAP=1
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
netns_require mpi
trap 'netns_cleanup; rm -rf "$SCRATCH"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
exec 9>/tmp/ngx-net.lock
flock -w 300 9 || fail "/tmp/ngx-net.lock stayed busy for 300 s"
netns_init
netns_veth_pair v || fail "veth pair"
across_namespaces() {  # tcp PROGRAM [ARG...]: one rank in each namespace of the pair
    shift
    NETNS_MPI_TIMEOUT=${MPI_TIMEOUT:-240} netns_mpirun v -x NGX_MODULE_PATH -x NGX_PATTERN_PATH \
        --mca mpi_yield_when_idle 1 -- "$@"
}
thrice switch_check tcp 1,8Ki,16Ki,24Ki,32Ki,48Ki,64Ki,96Ki,128Ki across_namespaces ||
    fail "tcp across two namespaces: the switch is not at the eager limit"
flock -u 9
echo PASS
