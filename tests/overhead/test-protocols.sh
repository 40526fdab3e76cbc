#!/bin/bash
# The protocol decomposition (Al-Tawil and Moritz 1998, section 3.2, eqs. 1-7; `ngx fit RUN.json`)
# under mpirun, where the protocol switch is a fact of the MPI library, not
# a timing accuracy (the sim's rendezvous in virtual time, with the
# predictions checked: test-protocols-sim.sh):
#  1. under mpirun on the vader BTL, standard mode: the inferred protocol
#     turns from a pushed one (T or TA: the data move before the receiver
#     answers) to a handshake (RTA or RAT) where Open MPI's eager limit
#     (btl_vader_eager_limit, ompi_info) says, with one measured size of
#     slack; sizes up to half the limit are pushed; the smallest is T;
#  2. the same for the tcp BTL (btl_tcp_eager_limit) with one rank in each
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
source "$(dirname "$0")/common.sh"


have_mpi || { echo "SKIP: mpirun, ompi_info or the mpi module missing"; exit 77; }

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
