#!/bin/bash
# Two namespaces joined by a veth pair, one rank in each (mpirun with the
# nsrsh agent): `ngx -m mpi,tcp` over the link measures both, the JSON has a
# comparison, and its per-size medians agree with separate runs of each
# module within a factor of 2 (the machine is shared and noisy). Each rank
# records its network namespace before it becomes ngx: the two ranks ran in
# the two different namespaces of the pair, in every run. NGX_MPI_IFACE
# names the interface whose address the raw module (tcp) advertises: set to
# each rank's veth the run works; set to lo, each rank advertises 127.0.0.1,
# which in the other namespace is nobody, so the run must fail.
source "$(dirname "$0")/common.sh"
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
netns_require mpi
NETNS_NO_TRAP=1 netns_init
trap 'netns_cleanup; rm -rf "$SCRATCH"' EXIT
netns_veth_pair v || fail "veth pair"
export NETNS_MPI_TIMEOUT=$MPI_TIMEOUT
# Busy-polling ranks on 2 shared cores starve the veth softirq work: yield when idle.
# Each rank writes its network namespace to $NETNS_DIR/ns.RANK, then execs
# ngx; with IFACE=veth it first sets NGX_MPI_IFACE to its namespace's veth,
# with IFACE=NAME to NAME.
run() {
    rm -f "$NETNS_DIR"/ns.*
    netns_mpirun v -x NGX_MODULE_PATH -x IFACE="${IFACE:-}" --mca mpi_yield_when_idle 1 -- \
        bash -c 'readlink /proc/self/ns/net >"$0.$OMPI_COMM_WORLD_RANK" || exit 1
            case $IFACE in
            "") ;;
            veth) export NGX_MPI_IFACE=$(ip -o link show type veth | awk -F": " "{ sub(/@.*/, \"\", \$2); print \$2; exit }") ;;
            *) export NGX_MPI_IFACE=$IFACE ;;
            esac
            [[ -z $IFACE ]] || echo "rank $OMPI_COMM_WORLD_RANK: NGX_MPI_IFACE=$NGX_MPI_IFACE"
            exec "$@"' "$NETNS_DIR/ns" "$NGX" "$@"
}
ns_a=$(ip netns exec "$(netns_get v ns_a)" readlink /proc/self/ns/net)
ns_b=$(ip netns exec "$(netns_get v ns_b)" readlink /proc/self/ns/net)
[[ $ns_a != "$ns_b" ]] || fail "the pair's namespaces are one namespace ($ns_a)"
# ranks_in_both_namespaces LABEL: rank 0 and rank 1 ran in the pair's two namespaces.
ranks_in_both_namespaces() {
    local r0 r1
    r0=$(cat "$NETNS_DIR/ns.0" 2>/dev/null) r1=$(cat "$NETNS_DIR/ns.1" 2>/dev/null)
    echo "$1: rank 0 in $r0, rank 1 in $r1 (pair: $ns_a, $ns_b)"
    [[ ($r0 == "$ns_a" && $r1 == "$ns_b") || ($r0 == "$ns_b" && $r1 == "$ns_a") ]] ||
        fail "$1: the ranks did not run one in each namespace of the pair"
}
# measure: the run of both modules, then one run of each alone.
measure() {
    run -m mpi,tcp -x pingpong -s 1,4Ki -c 300 --cpus 0,1 -o "$NETNS_DIR/both.json" >"$NETNS_DIR/both.log" 2>&1 ||
        { cat "$NETNS_DIR/both.log"; fail "mpirun ngx -m mpi,tcp across the namespaces"; }
    cat "$NETNS_DIR/both.log"
    ranks_in_both_namespaces "mpi,tcp"
    for m in mpi tcp; do
        run -m $m -x pingpong -s 1,4Ki -c 300 --cpus 0,1 -o "$NETNS_DIR/$m.json" >"$NETNS_DIR/$m.log" 2>&1 ||
            { cat "$NETNS_DIR/$m.log"; fail "separate $m run"; }
        ranks_in_both_namespaces "$m"
    done
}

# consistent: the medians of the run of both agree with those alone within 2x.
consistent() {
    python3 - "$NETNS_DIR" <<'PY'
import json, sys, os
d = sys.argv[1]
both = json.load(open(os.path.join(d, "both.json")))
assert both["comparison"]["labels"] == ["mpi", "tcp"], both["comparison"]
assert both["bootstrap"]["kind"] == "mpi" and both["bootstrap"]["ranks"] == 2, both["bootstrap"]
bad = []
for row in both["comparison"]["sizes"]:
    for v in row["values"]:
        single = json.load(open(os.path.join(d, v["label"] + ".json")))
        alone = [r["median_us"] for r in single["results"] if r["size_bytes"] == row["size_bytes"]][0]
        ratio = v["median_us"] / alone
        print(f'{v["label"]} {row["size_bytes"]} B: together {v["median_us"]:.2f} us, alone {alone:.2f} us')
        if not 1 / 2 < ratio < 2:
            bad.append(f'{v["label"]} {row["size_bytes"]} B: together/alone ratio {ratio:.2f}, outside 1/2..2')
assert not bad, "inconsistent: " + "; ".join(bad)
print("consistent")
PY
}

# Spinning ranks on 2 shared cores are at the mercy of the machine's load:
# an inconsistent pair of measurements is measured once more, then fails.
measure
if ! consistent; then
    echo "inconsistent; measuring once more"
    measure
    consistent || fail "the run of both modules disagrees with the runs alone"
fi

IFACE=veth run -m tcp -x pingpong -s 1 -c 50 --timeout 5 -o "$NETNS_DIR/iface.json" >"$NETNS_DIR/iface.log" 2>&1 ||
    { cat "$NETNS_DIR/iface.log"; fail "NGX_MPI_IFACE set to each rank's veth: the tcp run failed"; }
grep "NGX_MPI_IFACE=" "$NETNS_DIR/iface.log"
[[ $(grep -c "NGX_MPI_IFACE=[a-z]" "$NETNS_DIR/iface.log") == 2 ]] || fail "the ranks did not find their veth"
ranks_in_both_namespaces "NGX_MPI_IFACE=veth"
IFACE=lo run -m tcp -x pingpong -s 1 -c 50 --timeout 3 >"$NETNS_DIR/lo.log" 2>&1 && 
    { cat "$NETNS_DIR/lo.log"; fail "NGX_MPI_IFACE=lo: the tcp run across namespaces succeeded (the variable is ignored)"; }
grep -E '^ngx( \(rank [0-9]+\))?: ' "$NETNS_DIR/lo.log" | head -3
grep -Eq '^ngx( \(rank [0-9]+\))?: .*(127\.0\.0\.1|connect|refused|peer|within)' "$NETNS_DIR/lo.log" ||
    { cat "$NETNS_DIR/lo.log"; fail "NGX_MPI_IFACE=lo: no ngx message about the unreachable peer"; }
echo "ok: NGX_MPI_IFACE: each rank's veth works, lo (127.0.0.1 across namespaces) fails"
echo PASS
