#!/bin/bash
# Bad input ends with exit 2 and a message naming the cause: --nodecomm-pairs 0, a bad
# --nodecomm-pairs list, bad --nodecomm-regimes, a bad --nodecomm-sync, more pairs than the launch
# gives, --pairs 0, a bad --pairs list (0,2; 2,x), a list for a pattern
# that takes one count (pingpong), a list together with --nodecomm-pairs,
# and under mpirun an odd rank count, --pairs (a count or a list) disagreeing
# with the rank count and more pairs than the ranks allow. (--listen /
# --connect: listen-connect.sh.)
source "$(dirname "$0")/common.sh"
expect_usage -E "--nodecomm-pairs 0" "--nodecomm-pairs '0': .*at least 1 pair" "$NGX" -m tcp -x nodecomm --nodecomm-pairs 0 -s 1
expect_usage -E "--nodecomm-pairs 1,x" "--nodecomm-pairs '1,x'" "$NGX" -m tcp -x nodecomm --nodecomm-pairs 1,x -s 1
expect_usage -E "--nodecomm-sync always" "--nodecomm-sync 'always': expected repetition or series" \
    "$NGX" -m tcp -x nodecomm --nodecomm-sync always -s 1
expect_usage -E "regimes 64Ki-1Ki" "--nodecomm-regimes '64Ki-1Ki'" "$NGX" -m tcp -x nodecomm --nodecomm-regimes 64Ki-1Ki -s 1
expect_usage -E "local --nodecomm-pairs 2" "2 pairs need 4 ranks, this run has 2 .*--pairs 2" "$NGX" -m tcp -x nodecomm --nodecomm-pairs 2 -s 1 -c 5
expect_usage -E "--pairs 0" "--pairs '0'" "$NGX" -m tcp -x nodecomm --pairs 0 -s 1
expect_usage -E "--pairs 0,2" "--pairs '0,2': .*'0' is not one" "$NGX" -m tcp -x nodecomm --pairs 0,2 -s 1
expect_usage -E "--pairs 2,x" "--pairs '2,x': .*'x' is not one" "$NGX" -m tcp -x nodecomm --pairs 2,x -s 1
expect_usage -E "--pairs 1,2 -x pingpong" "--pairs '1,2': pattern 'pingpong' takes one pair count \(--pairs 2\)" \
    "$NGX" -m tcp -x pingpong --pairs 1,2 -s 1
expect_usage -E "--pairs 1,2 --nodecomm-pairs 1" "--pairs '1,2' and --nodecomm-pairs both choose the pair counts" \
    "$NGX" -m tcp -x nodecomm --pairs 1,2 --nodecomm-pairs 1 -s 1
expect_usage -E "--pairs 2 --nodecomm-pairs 3" "3 pairs need 6 ranks, this run has 4" \
    "$NGX" -m tcp -x nodecomm --pairs 2 --nodecomm-pairs 3 -s 1 -c 5
if command -v mpirun >/dev/null; then
    expect_usage -E "mpirun -np 3" "even number of ranks" nc_mpirun 3 -- "$NGX" -m tcp -x nodecomm -s 1 -c 5
    expect_usage -E "mpirun -np 4 --pairs 3" "--pairs 3 needs 6 ranks; the launcher started 4" \
        nc_mpirun 4 -- "$NGX" -m tcp -x nodecomm --pairs 3 -s 1 -c 5
    expect_usage -E "mpirun -np 4 --pairs 1,3" "--pairs 1,3 needs 6 ranks; the launcher started 4" \
        nc_mpirun 4 -- "$NGX" -m tcp -x nodecomm --pairs 1,3 -s 1 -c 5
    expect_usage -E "mpirun -np 4 --nodecomm-pairs 3" "3 pairs need 6 ranks, this run has 4" \
        nc_mpirun 4 -- "$NGX" -m tcp -x nodecomm --nodecomm-one-node --nodecomm-pairs 3 -s 1 -c 5
else
    echo "note: mpirun not found; the rank-count cases were not run"
fi
echo PASS
