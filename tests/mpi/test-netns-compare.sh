#!/bin/bash
# Two namespaces joined by a veth pair, one rank in each (mpirun with the
# nsrsh agent): `ngx -m mpi,tcp` over the link measures both, the JSON has a
# comparison, and its per-size medians agree with separate runs of each
# module within a generous factor (the machine is shared and noisy).
source "$(dirname "$0")/common.sh"
source "$NGX_SOURCE_ROOT/tests/net/netns.sh"
netns_require mpi
NETNS_NO_TRAP=1 netns_init
trap 'netns_cleanup; rm -rf "$SCRATCH"' EXIT
netns_veth_pair v || fail "veth pair"
export NETNS_MPI_TIMEOUT=$MPI_TIMEOUT
# Busy-polling ranks on 2 shared cores starve the veth softirq work: yield when idle.
run() { netns_mpirun v -x NGX_MODULE_PATH --mca mpi_yield_when_idle 1 -- "$NGX" "$@"; }
run -m mpi,tcp -x pingpong -s 1,4Ki -c 300 -o "$NETNS_DIR/both.json" >"$NETNS_DIR/both.log" 2>&1 ||
    { cat "$NETNS_DIR/both.log"; fail "mpirun ngx -m mpi,tcp across the namespaces"; }
cat "$NETNS_DIR/both.log"
for m in mpi tcp; do
    run -m $m -x pingpong -s 1,4Ki -c 300 -o "$NETNS_DIR/$m.json" >"$NETNS_DIR/$m.log" 2>&1 ||
        { cat "$NETNS_DIR/$m.log"; fail "separate $m run"; }
done
python3 - "$NETNS_DIR" <<'PY' || exit 1
import json, sys, os
d = sys.argv[1]
both = json.load(open(os.path.join(d, "both.json")))
assert both["comparison"]["labels"] == ["mpi", "tcp"], both["comparison"]
hosts = {p.get("host") for p in both.get("placement", []) if isinstance(p, dict)}
for row in both["comparison"]["sizes"]:
    for v in row["values"]:
        single = json.load(open(os.path.join(d, v["label"] + ".json")))
        alone = [r["median_us"] for r in single["results"] if r["size_bytes"] == row["size_bytes"]][0]
        ratio = v["median_us"] / alone
        print(f'{v["label"]} {row["size_bytes"]} B: together {v["median_us"]:.2f} us, alone {alone:.2f} us')
        assert 1 / 5 < ratio < 5, f"inconsistent: ratio {ratio}"
print("consistent")
PY
echo PASS
