#!/bin/bash
# Two namespaces, one rank in each (mpirun with the nsrsh agent). The ranks
# measure over veth pair `v`; mpirun's own control traffic (OOB) runs over a
# second veth pair, as a cluster's management network would. Once the first
# size is reported, `v` goes down on both sides: for -m mpi (default
# --mpi-progress block) and -m tcp the job must end with exit 1 within
# --timeout + 1 s + launcher slack (see fault-common.sh), naming the step, the
# size and the side, and rank 0's -o JSON must hold the sizes done with
# status "error".
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/fault-common.sh"
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
netns_require mpi
NETNS_NO_TRAP=1 netns_init
trap 'netns_cleanup; rm -rf "$SCRATCH"' EXIT
netns_veth_pair v || fail "veth pair"
a=$(netns_get v ns_a) b=$(netns_get v ns_b) subnet=$(netns_get v subnet)
# The management link, created after `v` so that `v` stays the first
# interface each rank sees (the address the tcp module uses).
ip link add ngxmg0 netns "$a" type veth peer name ngxmg1 netns "$b" || fail "management veth"
ip -n "$a" addr add 10.79.0.1/24 dev ngxmg0 && ip -n "$b" addr add 10.79.0.2/24 dev ngxmg1 &&
    ip -n "$a" link set ngxmg0 up && ip -n "$b" link set ngxmg1 up || fail "management addresses"
mapfile -t args < <(netns_mpirun_args v)
for i in "${!args[@]}"; do # OOB over the management link
    [[ ${args[$i]} == oob_tcp_if_include ]] && args[i + 1]=10.79.0.0/24
done
timeout_s=3
LAUNCHER_SLACK_MS=4500 # mpirun's teardown with an unreachable rank (see fault-common.sh)
for module in mpi tcp; do
    out=$SCRATCH/$module.out err=$SCRATCH/$module.err json=$NETNS_DIR/$module.json
    netns_link_up v both
    ip netns exec "$a" timeout -k 5 "$MPI_TIMEOUT" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$a" \
        mpirun "${args[@]}" -x NGX_MODULE_PATH --mca mpi_yield_when_idle 1 \
        "$NGX" -m "$module" -x pingpong -s 1-1Ki -c 20000 --passes 1 --max-rel-ci off --warmup 10 --timeout "$timeout_s" -o "$json" \
        >"$out" 2>"$err" </dev/null &
    job=$!
    wait_first_size "$out" "$job" || fail "$module: no size reported before the fault: $(tail -5 "$err")"
    FAULT_RANK_PIDS="$(rank_pid 0) $(rank_pid 1)"
    start=$(date +%s%N)
    netns_link_down v both || fail "link down"
    wait "$job"
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    echo "$module, link down: exit $rc after $ms ms; stderr:"
    grep -v '^$' "$err" | head -8
    check_fault_outcome "$module" "$rc" "$ms" "$timeout_s" "$err" "$json" "$start"
done
echo PASS
