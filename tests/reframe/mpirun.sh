#!/usr/bin/env bash
# The ReFrame library (reframe/) under the mpirun launcher (partition
# ngx-local:mpirun: scheduler local, Open MPI's mpirun as root,
# oversubscribed): baselines recorded, then every check passes against them,
# over the sim in virtual time; NgxMpiShare runs too, tcp against mpi in real
# time, so it only records (record_baseline=yes: a real transport's timings
# on a shared machine are no verdict on the library; its gate is the same
# code as the others') and its numbers are checked to be in the perflog.
source "$(dirname "$0")/common.sh"
command -v mpirun >/dev/null || skip "mpirun is missing (tools/setup.sh installs openmpi-bin)"
"$NGX" --list-modules | grep -q "^  mpi " || skip "the mpi module is not built (Open MPI missing at configure time)"
record_baselines ngx-local:mpirun -S NgxMpiShare.module_opts=
rfm ngx-local:mpirun -S NgxMpiShare.module_opts= -S NgxMpiShare.record_baseline=yes
[[ $RC == 0 ]] || { cat rfm.out; fail "the unchanged system failed a check under mpirun: exit $RC"; }
outcome | tee outcome.txt
[[ $(grep -c ' pass$' outcome.txt) == 7 ]] || fail "7 test cases expected to pass under mpirun (with NgxMpiShare)"
grep -Eq '\|raw_share_1B=[0-9.e+-]+ fraction\|mpi_adds_1B=[0-9.e+-]+ us(\||$)' \
    "$(find "$SCRATCH" -path '*perflogs/ngx-local/mpirun/NgxMpiShare.log' | head -1)" ||
    fail "the perflog lacks NgxMpiShare's numbers"
ok "the library passes under mpirun, NgxMpiShare included"
echo PASS
