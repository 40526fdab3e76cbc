#!/usr/bin/env bash
# Suite 'slurm' (the srun lines of the docs, proven): brings up a one-node
# Slurm cluster from Debian's packages (munged, slurmctld, slurmd, all as root
# in a private folder with a minimal slurm.conf on their own ports) and runs
# ngx under srun:
#
#   srun --mpi=pmix -n 2 ngx -m tcp,mpi -x pingpong     one pair, both modules
#   srun --mpi=pmix -n 4 ngx -m tcp -x nodecomm --nodecomm-pairs 2 --nodecomm-one-node
#                                                       two concurrent pairs (the
#                                                       README's nodecomm line on one node)
#
# Debian 12's Slurm (22.05, mpi_pmix_v4) and Open MPI (4.1, PMIx 4 via ext3x)
# share PMIx, hence --mpi=pmix. Exits 77 with the reason when the packages or
# root are missing.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
NGX=${NGX:?NGX must name the ngx binary}

"$NGX" --list-modules | grep -q "^  mpi " || skip "the mpi module is not built (Open MPI missing at configure time)"
source "$(dirname "$0")/cluster.sh"

# One pair: ngx finds its peer through MPI (the PMIx that srun gives).
cd "$dir" || fail "cd $dir"
# srun_ngx NAME RANKS MODULES SRUN_OPTION...: srun runs ngx on RANKS ranks over
# MODULES (comma-separated), and NAME.json holds one complete run per module
# with every size, under the MPI bootstrap with RANKS ranks.
srun_ngx() {
    local name=$1 ranks=$2 modules=$3
    shift 3
    timeout 120 srun --immediate=30 --mpi=pmix "$@" -n "$ranks" "$NGX" -m "$modules" -x pingpong -s 1-1Ki -c 200 \
        -o "$name.json" >"$name.out" 2>&1 ||
        fail "srun -n $ranks ngx -m $modules -x pingpong failed: $(tail -20 "$name.out")"
    python3 - "$name.json" "$ranks" ${modules//,/ } <<'PY' || fail "$name.json is not the $ranks-rank run asked for"
import json, sys
doc, ranks, modules = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3:]
assert doc["bootstrap"]["kind"] == "mpi" and doc["bootstrap"]["ranks"] == ranks, doc["bootstrap"]
runs = doc.get("runs", [doc])
assert [r["module"] for r in runs] == modules, [r["module"] for r in runs]
for run in runs:
    assert run["status"] == "complete" and len(run["results"]) == 11, (run["module"], run["status"])
PY
    echo "srun -n $ranks: runs of $modules complete"
}
srun_ngx two 2 tcp,mpi
# Four ranks, two concurrent pairs: the README's `srun -N 2 --ntasks-per-node
# 2 ngx -m tcp -x nodecomm`, here on the one node (--nodecomm-one-node).
timeout 120 srun --immediate=30 --mpi=pmix --overcommit -n 4 "$NGX" -m tcp -x nodecomm --nodecomm-pairs 1,2 \
    --nodecomm-one-node -s 1,1Ki -c 50 -o four.json >four.out 2>&1 ||
    fail "srun -n 4 ngx -m tcp -x nodecomm failed: $(tail -20 four.out)"
python3 - four.json <<'PY' || fail "four.json is not the 4-rank nodecomm run asked for"
import json, math, sys
doc = json.load(open(sys.argv[1]))
assert doc["bootstrap"]["kind"] == "mpi" and doc["bootstrap"]["ranks"] == 4, doc["bootstrap"]
run = doc.get("runs", [doc])[0]
assert run["status"] == "complete", run["status"]
table = run["model"]["nodecomm"]
assert table["pairs"] == [1, 2] and table["sizes"] == [1, 1024], table
assert all(math.isfinite(t) and t > 0 for row in table["T_us"] for t in row), table["T_us"]
PY
echo "srun -n 4: nodecomm with 1 and 2 concurrent pairs complete"
echo PASS
