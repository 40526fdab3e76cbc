# The private one-node Slurm cluster of suite 'slurm', sourced by its tests
# (srun.sh, the ReFrame library's reframe-slurm.sh): munged, slurmctld and
# slurmd from Debian's packages, all as root in a private folder ($dir) with a
# minimal slurm.conf on their own ports (partition "test", MpiDefault=pmix).
# After it: SLURM_CONF is exported, the node is up, and an EXIT trap stops the
# daemons and removes $dir (KEEP=1 keeps it). Needs fail() and skip() (exit
# 77 with the reason when the packages or root are missing).
need_root "the test cluster's daemons run as root"
for p in munged slurmctld slurmd srun sinfo; do
    command -v "$p" >/dev/null || skip "$p is missing (tools/test-deps.sh installs munge, slurmctld, slurmd)"
done
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

