#!/usr/bin/env bash
# The ReFrame library (reframe/) under Slurm: the private one-node cluster of
# suite 'slurm' (tests/slurm/cluster.sh), ReFrame's partition ngx-slurm:srun
# (scheduler squeue: this Slurm keeps no accounting for sacct; launcher
# srun, PMIx). Over the sim in virtual time: baselines recorded through
# sbatch and srun, then every check passes against them (NgxMpiShare
# included, tcp against mpi in real time, recording only, as in mpirun.sh),
# and ReFrame's perflog holds ngx's numbers. The planted regression and bad
# configuration are local.sh's: the library's logic does not depend on the
# scheduler.
source "$(dirname "$0")/common.sh"
"$NGX" --list-modules | grep -q "^  mpi " || skip "the mpi module is not built (Open MPI missing at configure time)"
source "$NGX_SOURCE_ROOT/tests/slurm/cluster.sh"
trap 'cleanup; cleanup_scratch' EXIT
cd "$SCRATCH" || fail "cd $SCRATCH"

record_baselines ngx-slurm:srun -S NgxMpiShare.module_opts=
ls "$SCRATCH/baselines/ngx-slurm/srun"
rfm ngx-slurm:srun -S NgxMpiShare.module_opts= -S NgxMpiShare.record_baseline=yes
[[ $RC == 0 ]] || { cat rfm.out; fail "the unchanged system failed a check under Slurm: exit $RC"; }
outcome | tee outcome.txt
[[ $(grep -c ' pass$' outcome.txt) == 7 && $(wc -l <outcome.txt) == 7 ]] ||
    fail "7 test cases expected to pass under srun (latency, bandwidth, loggp, mpi share, allpairs, 2 collectives)"
python3 - "$SCRATCH/report.json" <<'PY' || fail "the jobs did not go through Slurm"
import json, sys
cases = json.load(open(sys.argv[1]))["runs"][-1]["testcases"]
assert all(c["scheduler"] == "squeue" for c in cases), [(c["display_name"], c.get("scheduler")) for c in cases]
PY
grep -q '^srun ' "$(find "$SCRATCH/rfm" -path '*NgxLatency*/rfm_job.sh' | head -1)" ||
    fail "NgxLatency's job script does not run ngx under srun"
perflog=$(find "$SCRATCH" -path '*perflogs/ngx-slurm/srun/NgxLatency.log' | head -1)
[[ -n $perflog ]] && tail -1 "$perflog" | grep -Eq '\|latency_1B=12\.0 us(\||$)' ||
    fail "the perflog under Slurm lacks latency_1B=12.0 us"
ok "the library passes under Slurm (sbatch, srun) on the unchanged sim; the perflog holds its numbers"
echo PASS
