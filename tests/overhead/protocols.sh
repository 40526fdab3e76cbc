#!/bin/bash
# The protocol decomposition (Al-Tawil and Moritz 1998, section 3.2, eqs. 1-7; `ngx fit RUN.json`)
# under mpirun (the sim's rendezvous in virtual time, with the protocols and
# the predictions checked exactly: protocols-sim.sh), standard mode:
#  1. on the vader BTL: `ngx fit` infers a protocol for every measured size
#     (1 B .. 32 KiB around btl_vader_eager_limit), each one of T, TA, RTA,
#     RAT, the smallest T;
#  2. the same for the tcp BTL (1 B, 8 KiB .. 128 KiB around btl_tcp_eager_limit)
#     with one rank in each of two network namespaces joined by a veth pair
#     (mpirun with the nsrsh agent, tests/net/netns.sh).
# Each prints where the inference turns to a handshake (RTA or RAT) against
# the eager limit ompi_info gives. That is decided from measured times, so
# it is an accuracy figure (bench/overhead/protocols.sh): on a quiet machine
# vader turns at the limit (one size of slack) and stays; across the veth
# pair tcp's rendezvous sends the first btl_tcp_rndv_eager_limit bytes with
# the request, so above the limit the delayed receive waits one round trip
# more (seen: 1 us at 48 KiB, 53 us at 64 KiB), while further above the
# decision's bound grows with (k-1)G and sizes may be inferred pushed again.
# Both get up to three attempts (a rank that loses the CPUs spoils a run).
source "$(dirname "$0")/common.sh"


have_mpi || skip "mpirun, ompi_info or the mpi module missing"

eager_limit() {  # BTL
    ompi_info --param btl "$1" --level 9 --parsable | sed -n "s/^mca:btl:$1:param:btl_$1_eager_limit:value://p"
}

# One decomposition under mpirun: `ngx fit` of the run infers a protocol for
# every measured size, in order, each one of T, TA, RTA, RAT, and the
# smallest size (1 B) is T (a one-byte message is pushed by every MPI).
# Where the inference turns to a handshake against the BTL's eager limit
# is printed ("inferred ..."): it is decided by comparing measured times
# with the model, so on a loaded machine sizes flip, and how often it lands
# on the limit is measured by bench/overhead/protocols.sh.
decomposition_check() {  # BTL SIZES RUNNER
    local btl=$1 sizes=$2 runner=$3 limit
    limit=$(eager_limit "$btl")
    [[ $limit =~ ^[0-9]+$ ]] || { echo "ompi_info gives no btl_${btl}_eager_limit"; return 1; }
    "$runner" "$btl" "$NGX" -m mpi --mpi-mode standard -x overhead -s "$sizes" -c 400 --warmup 40 \
        -o "$SCRATCH/$btl.json" >"$SCRATCH/log" 2>&1 || { cat "$SCRATCH/log"; return 1; }
    "$NGX" fit "$SCRATCH/$btl.json" -o "$SCRATCH/$btl-protocols.json" || return 1
    python3 - "$SCRATCH/$btl-protocols.json" "$limit" "$btl" "$sizes" <<'PY'
import json, sys
rows, limit, btl = json.load(open(sys.argv[1]))["rows"], int(sys.argv[2]), sys.argv[3]
print(f'{btl}: eager limit {limit} B (ompi_info); inferred ' +
      ", ".join(f'{r["size_bytes"]}:{r["protocol"]}' for r in rows))
want = [int(s[:-2]) * 1024 if s.endswith("Ki") else int(s) for s in sys.argv[4].split(",")]
assert [r["size_bytes"] for r in rows] == want, f'rows for {[r["size_bytes"] for r in rows]}, sizes {want}'
assert all(r["protocol"] in ("T", "TA", "RTA", "RAT") for r in rows), "a protocol outside T, TA, RTA, RAT"
assert rows[0]["protocol"] == "T", "the smallest size is not T"
PY
}
thrice decomposition_check vader 1,512,1Ki,2Ki,3Ki,4Ki,6Ki,8Ki,16Ki,32Ki ngx_mpirun ||
    fail "vader: the decomposition under mpirun"

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
thrice decomposition_check tcp 1,8Ki,16Ki,24Ki,32Ki,48Ki,64Ki,96Ki,128Ki across_namespaces ||
    fail "tcp across two namespaces: the decomposition under mpirun"
flock -u 9
echo PASS
