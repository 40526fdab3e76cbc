#!/usr/bin/env bash
# allpairs in real time over a module with per-peer links (ABI 1.5: tcp, udp, mpi): every
# ordered pair measured in shift rounds (check_cells.py says what holds). Odd P and the mpi module
# run under mpirun, even P with tcp as local pairs (the forked bootstrap);
# with mpi also --mpi-mode ready, which pre-posts its receive from one peer,
# refused with exit 2 naming the mode.
#     allpairs-real.sh MODULE P
source "$(dirname "$0")/common.sh"
MODULE=$1
P=$2
OUT=$SCRATCH/allpairs.json
ARGS=(-m "$MODULE" -x allpairs -s 8,16Ki -c 20 -o "$OUT")
if [[ $MODULE == mpi ]] || (( P % 2 == 1 )); then
    need_mpirun
    if [[ $MODULE == mpi ]]; then
        [[ -e $NGX_MODULE_PATH/mpi/ngx_mpi.so || -e $NGX_MODULE_PATH/ngx_mpi.so ]] ||
            skip "the mpi module was not built (MPI not found at configure time)"
    fi
    layouts_mpirun "$P" "$NGX" "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "the run failed"; }
else
    ngx_deadline 60 --pairs $((P / 2)) "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 ||
        { cat "$SCRATCH/out.txt"; fail "the run failed"; }
fi
python3 "$(dirname "$0")/check_cells.py" "$OUT" "$P" "$MODULE" || exit 1
[[ $MODULE == mpi ]] || exit 0
layouts_mpirun 3 "$NGX" -m mpi --mpi-mode ready -x allpairs -c 5 > "$SCRATCH/ready.txt" 2>&1
rc=$?
[[ $rc -eq 2 ]] || { cat "$SCRATCH/ready.txt"; fail "--mpi-mode ready with allpairs: exit $rc, expected 2"; }
grep -q "mpi-mode ready and irsend pre-post a receive from one peer" "$SCRATCH/ready.txt" ||
    { cat "$SCRATCH/ready.txt"; fail "the refusal of ready mode does not say why"; }
echo "ok: --mpi-mode ready refused with exit 2"
