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
NGX=${NGX:?NGX must name the ngx binary}
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "the test cluster's daemons run as root"
for p in munged slurmctld slurmd srun sinfo; do
    command -v "$p" >/dev/null || skip "$p is missing (tools/test-deps.sh installs munge, slurmctld, slurmd)"
done
"$NGX" --list-modules | grep -q "^  mpi " || skip "the mpi module is not built (Open MPI missing at configure time)"
[ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so ] || ls /usr/lib/*/slurm*/mpi_pmix.so >/dev/null 2>&1 ||
    skip "this Slurm has no PMIx plugin (mpi_pmix.so)"

dir=$(mktemp -d /tmp/ngx-slurm.XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT
trap "exit 1" INT TERM # so a timed-out run still stops its daemons

# munge: a private key and socket, so the machine's own munged (if any) is untouched.
mkdir -p "$dir/munge" && chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --foreground --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" \
    >"$dir/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$dir/munge/munge.sock" ] && break; sleep 0.1; done
[ -S "$dir/munge/munge.sock" ] || fail "munged did not start: $(cat "$dir/munged.out" "$dir/munge/munged.log" 2>/dev/null)"

host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=ngxtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
MpiDefault=pmix
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$dir/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 100); do
    state=$(sinfo -h -N -o %t 2>/dev/null | head -1)
    case $state in idle*|mix*|alloc*) up=1; break ;; esac
    sleep 0.2
done
[ $up = 1 ] || fail "the one-node cluster did not come up (node state '${state:-none}'):
$(tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" "$dir/slurmctld.out" "$dir/slurmd.out" 2>/dev/null)"
srun --mpi=list 2>&1 | grep -q pmix || fail "srun --mpi=list offers no pmix: $(srun --mpi=list 2>&1)"

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
