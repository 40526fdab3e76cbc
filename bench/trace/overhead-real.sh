#!/usr/bin/env bash
# The tracer's overhead on a real program: HPC Challenge (Debian's `hpcc`)
# on NP ranks, RUNS runs without the tracer and RUNS with it (`ngx trace`),
# alternated so that a change of the machine's load hits both alike. Each
# run's time is mpirun's wall time (start-up and MPI_Finalize included, the
# tracer's clock alignment and its writes too). Prints both medians, the
# traced/untraced ratio of each pair with its mean and 95% interval
# (Student's t over the pairs), and the cost per traced event: the median
# difference, less the fixed cost of tracing (the same difference for
# tests/trace/ring --test-loop 1, a program of a few MPI calls: the
# launcher, the clock alignment at MPI_Init and MPI_Finalize), over the
# records of the busiest rank. Last, the cost of one traced MPI_Test
# measured by overhead.sh (a loop of 100000, where the noise of a whole
# program run averages out) times those records: the tracer's share of the
# run that the wall times cannot resolve on a loaded machine.
#
#     bench/trace/overhead-real.sh BUILD [-n N] [-r RUNS] [-b BTL] [-p NP]
#
# Exit 77 when hpcc or mpirun is missing, 2 for usage errors.
set -euo pipefail
usage() { echo "usage: overhead-real.sh BUILD [-n N] [-r RUNS] [-b BTL] [-p NP]" >&2; exit 2; }
[[ $# -ge 1 && -x $1/ngx ]] || usage
build=$(cd "$1" && pwd)
shift
n=300 runs=5 btl=vader np=4
while getopts n:r:b:p: opt; do
    case $opt in
        n) n=$OPTARG ;; r) runs=$OPTARG ;; b) btl=$OPTARG ;; p) np=$OPTARG ;; *) usage ;;
    esac
done
for v in "$n" "$runs" "$np"; do [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "overhead-real.sh: '$v' is not a positive integer" >&2; exit 2; }; done
((runs >= 2)) || { echo "overhead-real.sh: -r needs at least 2 runs for an interval" >&2; exit 2; }
command -v hpcc >/dev/null || { echo "overhead-real.sh: hpcc not installed (apt-get install hpcc)" >&2; exit 77; }
command -v mpirun >/dev/null || { echo "overhead-real.sh: mpirun not installed (openmpi-bin)" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$here/hpccinf.sh" "$n" "$np" >"$work/hpccinf.txt"
mpi=(mpirun --bind-to none --oversubscribe --mca oob_tcp_if_include lo --mca btl "self,$btl" -np "$np" hpcc)

seconds() { # COMMAND...: wall seconds of one run in $work
    local t0 t1
    t0=$(date +%s.%N)
    (cd "$work" && rm -f hpccoutf.txt && timeout 600 "$@" >/dev/null 2>&1) || { echo "overhead-real.sh: run failed: $*" >&2; exit 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}'
}
ring=$build/tests/trace/ring
[[ -x $ring ]] || { echo "overhead-real.sh: $ring not built (ninja -C BUILD tests/trace/ring)" >&2; exit 2; }
empty=("${mpi[@]:0:${#mpi[@]}-1}" "$ring" --test-loop 1)
plain=() traced=() plain0=() traced0=()
for _ in $(seq "$runs"); do
    plain+=("$(seconds "${mpi[@]}")")
    rm -rf "$work/trace"
    traced+=("$(seconds "$build/ngx" trace -o "$work/trace" -- "${mpi[@]}")")
    plain0+=("$(seconds "${empty[@]}")")
    rm -rf "$work/trace0"
    traced0+=("$(seconds "$build/ngx" trace -o "$work/trace0" -- "${empty[@]}")")
done
micro=$(bash "$here/overhead.sh" "$build/tools/trace/ngx-trace-run" "$ring" 100000 5 | awk '/^overhead per event/ {print $4}')
records=$("$build/tools/trace/ngx-trace-dump" "$work/trace" | awk '/^# rank/ {for (i = 1; i < NF; ++i) if ($i == "records" && $(i + 1) > m) m = $(i + 1)} END {print m}')
MICRO_NS=$micro python3 - "$records" "${plain[*]}" "${traced[*]}" "${plain0[*]}" "${traced0[*]}" <<'EOF'
import os, statistics, sys
records = int(sys.argv[1])
plain = [float(x) for x in sys.argv[2].split()]
traced = [float(x) for x in sys.argv[3].split()]
plain0 = [float(x) for x in sys.argv[4].split()]
traced0 = [float(x) for x in sys.argv[5].split()]
ratios = [t / p for p, t in zip(plain, traced)]
# Student's t, 97.5% quantile, by degrees of freedom (n - 1)
t975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
        10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}
df = len(ratios) - 1
t = t975[max(k for k in t975 if k <= df)]
mean = statistics.mean(ratios)
half = t * statistics.stdev(ratios) / len(ratios) ** 0.5
mp, mt = statistics.median(plain), statistics.median(traced)
print(f"untraced   {mp:8.3f} s median   (runs: {' '.join(f'{x:.3f}' for x in plain)})")
print(f"traced     {mt:8.3f} s median   (runs: {' '.join(f'{x:.3f}' for x in traced)})")
print(f"ratio traced/untraced {mean:.4f}, 95% interval [{mean - half:.4f}, {mean + half:.4f}] over {len(ratios)} pairs")
fixed = statistics.median(traced0) - statistics.median(plain0)
print(f"fixed cost of tracing {fixed:.3f} s (ring --test-loop 1: untraced {statistics.median(plain0):.3f} s, "
      f"traced {statistics.median(traced0):.3f} s, medians)")
print(f"records of the busiest rank {records}; per event {1e9 * (mt - mp - fixed) / records:.0f} ns "
      f"((median difference - fixed cost) / records)")
micro = float(os.environ["MICRO_NS"])
print(f"per event by overhead.sh {micro:.1f} ns: {records} records cost {micro * records * 1e-9:.4f} s, "
      f"{100 * micro * records * 1e-9 / mp:.2f} % of the untraced median")
EOF
