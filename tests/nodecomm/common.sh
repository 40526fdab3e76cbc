# common.sh: sourced by the tests of suite 'nodecomm'. mpirun as root on
# loopback (the flags of tests/mpi/common.sh), serialised with the other
# helpers' network and MPI runs through /tmp/ngx-net.lock:
#     nc_mpirun NP [MPIRUN_OPTION...] -- ngx ARG...
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
need_ngx
MPI_TIMEOUT=${MPI_TIMEOUT:-240}
make_scratch

nc_mpirun() {
    local np=$1
    shift
    local -a extra=()
    while [[ $# -gt 0 && $1 != -- ]]; do extra+=("$1"); shift; done
    shift
    flock /tmp/ngx-net.lock timeout -k 5 "$MPI_TIMEOUT" "${MPIRUN_LOCAL[@]}" --mca btl_tcp_if_include lo --mca btl self,vader,tcp \
        --mca mpi_yield_when_idle 1 -x NGX_MODULE_PATH -x NGX_PATTERN_PATH -np "$np" "${extra[@]}" "$@"
}

# Python on a saved run: nc_py FILE 'code using d (document), run (its first run), ctx (context), m (model)'.
nc_py() {
    python3 - "$1" "$2" <<'PY'
import json, math, os, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0] if "runs" in d else d
ctx = d.get("context", d)
m = run.get("model")
exec(sys.argv[2])
PY
}

# nc_two_nodes NEED: two network namespaces ("nodes") joined by the veth pair
# "v" with MTU 9000 (headers under 1% of a frame), holding the helpers'
# network lock, cleaned up at exit; NEED as netns_require takes it (mpi, tbf).
nc_two_nodes() {
    source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
    netns_require "$1"
    NETNS_NO_TRAP=1 netns_init
    trap 'netns_cleanup; rm -rf "$SCRATCH"' EXIT
    exec 9>/tmp/ngx-net.lock
    flock 9
    netns_veth_pair v || fail "veth pair"
    netns_mtu v 9000 || fail "MTU 9000"
}

# Shaping a link of R_N shared by the pairs and R_C per pair with htb, one
# class per pair chosen by the port pair i's listener (rank i, node A)
# binds, PORT + i (--tcp-port PORT --tcp-port-per-rank yes). Rates in
# Mbit/s. Every class made is listed in NC_HTB_CLASSES ("NS DEV CLASSID").
declare -ga NC_HTB_CLASSES=()

# _nc_htb_root NS DEV: htb at the root of DEV, everything unclassified (the
# bootstrap) in a class of 1 Gbit/s of its own; exits 77 if htb is missing.
# Also no slow start after idle (a ping-pong idles each direction) and one
# MTU per skb: htb meters whole skbs, and a GSO skb of up to 64 KB leaves at
# once with its tokens paid after it, so a message ended up to one such skb
# (13 ms at 40 Mbit/s) early and every rate read ~5% high (R_N 12.9-13.0,
# R_C 5.1-5.2 MB/s for 12.5 and 5; one segment per skb: 12.43 and 4.92;
# ethtool is not always there).
_nc_htb_root() {
    local ns=$1 dev=$2
    tc -n "$ns" qdisc add dev "$dev" root handle 1: htb default 99 r2q 100 2>"$SCRATCH/tc.err" &&
        tc -n "$ns" class add dev "$dev" parent 1: classid 1:99 htb rate 1gbit 2>>"$SCRATCH/tc.err" || {
        echo "SKIP: htb shaping failed here: $(cat "$SCRATCH/tc.err")"
        exit 77
    }
    ip netns exec "$ns" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0 || fail "sysctl in $ns"
    ip -n "$ns" link set dev "$dev" gso_max_segs 1 gso_max_size 9000 || fail "limiting GSO in $ns"
}

# _nc_htb_tree NS DEV TREE MATCH PAIRS RN RC PORT: under the root, class
# 1:TREE of R_N and under it class 1:TREE*10+i per pair, guaranteed R_N /
# PAIRS (the children's rates must not exceed the parent's) and borrowing
# up to R_C, chosen by a u32 filter on `ip MATCH` (sport or dport) PORT + i.
_nc_htb_tree() {
    local ns=$1 dev=$2 tree=$3 match=$4 pairs=$5 rn=$6 rc=$7 port=$8 i id
    tc -n "$ns" class add dev "$dev" parent 1: classid 1:$tree htb rate ${rn}mbit ceil ${rn}mbit \
        burst 9200 cburst 9200 || fail "htb class of the shared rate in $ns"
    for ((i = 0; i < pairs; i++)); do
        id=1:$((tree * 10 + i))
        tc -n "$ns" class add dev "$dev" parent 1:$tree classid $id htb rate $((rn * 1000 / pairs))kbit \
            ceil ${rc}mbit burst 9200 cburst 9200 &&
            tc -n "$ns" filter add dev "$dev" parent 1: protocol ip prio 1 u32 match ip "$match" $((port + i)) 0xffff \
                flowid $id || fail "htb class of pair $i in $ns"
        NC_HTB_CLASSES+=("$ns $dev $id")
    done
}

# nc_htb_pairs PAIRS RN RC PORT: after nc_two_nodes, each direction of "v"
# shaped on its way out: the source port leaving node A, the destination
# port leaving node B.
nc_htb_pairs() {
    local side ns dev match
    for side in a b; do
        ns=$(netns_get v ns_$side) dev=$(netns_get v dev_$side) match=sport
        [[ $side == b ]] && match=dport
        _nc_htb_root "$ns" "$dev"
        _nc_htb_tree "$ns" "$dev" 1 $match "$@"
    done
}

# nc_htb_loopback NS PAIRS RN RC PORT: the same link on the loopback of NS,
# for ranks forked on one host: every packet leaves through lo, so lo gets
# both directions, each its own tree (A to B: source port, B to A:
# destination port) under the root, as two nodes' devices would; MTU 9000.
nc_htb_loopback() {
    local ns=$1
    shift
    ip -n "$ns" link set dev lo mtu 9000 || fail "MTU 9000 on lo in $ns"
    _nc_htb_root "$ns" lo
    _nc_htb_tree "$ns" lo 1 sport "$@"
    _nc_htb_tree "$ns" lo 2 dport "$@"
}

# nc_htb_carried MIN_BYTES: every pair's class sent at least MIN_BYTES, so
# each pair's flow was classified by its port in each direction and none
# ran past the shaper through the default class.
nc_htb_carried() {
    local c ns dev id sent
    for c in "${NC_HTB_CLASSES[@]}"; do
        read -r ns dev id <<<"$c"
        sent=$(tc -n "$ns" -s class show dev "$dev" classid "$id" | awk '$1 == "Sent" { print $2 }')
        ((${sent:-0} >= $1)) || fail "htb class $id on $dev in $ns sent ${sent:-no} bytes (< $1): not classified by its port?"
    done
}

# nc_check_maxrate FILE RC RN (Mbit/s): the three-parameter max-rate fit of
# the run's first regime has R_C and R_N within a factor of 2 of the
# configured rates (a real-time bound, tests/lib/bounds.py; payload rates:
# MTU 9000 keeps the headers the shaper also counts under 1%) and R_N at
# least R_C (the shared link carries at least one pair's rate); prints the
# fitted values. False when one misses. How close they come is measured by
# bench/nodecomm/htb.sh.
nc_check_maxrate() {
    NC_LIB=$NGX_SOURCE_ROOT/tests/lib nc_py "$1" '
sys.path.insert(0, os.environ["NC_LIB"])
import bounds
r = m["ranges"][0]["models"]["maxrate3"]
alpha, rc, rn, ks = (r["alpha_us"]["value"], r["R_C_Bps"]["value"], r["R_N_Bps"]["value"] or math.inf,
                     r["k_star"] or math.inf)
print(f"fitted alpha {alpha:.0f} us, k* {ks:.2f}")
good = [bounds.within_factor("R_C (MB/s)", rc / 1e6, '"$2"' / 8, 2),
        bounds.within_factor("R_N (MB/s)", rn / 1e6, '"$3"' / 8, 2),
        bounds.at_least("R_N over R_C (MB/s)", rn / 1e6, rc / 1e6)]
sys.exit(0 if all(good) else 1)
'
}

# nc_htb_verdict RC RN (Mbit/s): the verdict of a test over nc_htb_pairs
# or nc_htb_loopback. It calls the test's `measure JSON` (one nodecomm run
# written to JSON; it fails the test itself when the run does) and checks
# that every pair's class carried its flow and that the fit meets the
# rates (nc_check_maxrate): PASS and exit 0.
nc_htb_verdict() {
    local json=$SCRATCH/run.json
    measure "$json"
    nc_htb_carried 1000000
    nc_check_maxrate "$json" "$1" "$2" || fail "the max-rate fit missed the htb rates by more than a factor of 2"
    echo PASS
    exit 0
}

# nc_complete FILE WHAT: a short run (k = 1, 2 over the sizes 1 B and 1 KiB)
# of rank 0's FILE finished (status complete) with every T(k, n) > 0.
nc_complete() {
    nc_py "$1" "
assert run['status'] == 'complete', run['status']
nc = m['nodecomm']
assert nc['pairs'] == [1, 2] and nc['sizes'] == [1, 1024], nc
assert all(t is not None and t > 0 for row in nc['T_us'] for t in row), nc['T_us']
print('$2: complete, T(k, n) > 0:', nc['T_us'])
" || fail "the JSON of nodecomm over $2"
}
