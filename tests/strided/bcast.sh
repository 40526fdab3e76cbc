#!/usr/bin/env bash
# The bcast pattern under mpirun (mpi module, vader BTL) with P = 2, 3 and 4
# ranks (3 and 4 oversubscribe the 2 cores: correct, the rows and a note on
# stderr say so), and the comparison of log3P's, LogGP's and LogGPS's
# broadcast predictions with them; log3P's point-to-point prediction. bcast asks the MPI bootstrap for one group (any P >= 2), so P = 3
# runs, while a pairwise pattern (pingpong) still refuses it; P = 1 and a
# module without collectives under mpirun: exit 2 with a message.
source "$(dirname "$0")/common.sh"
need_mpi
for np in 2 3 4; do
    run_np $np vader -x bcast -s 4Ki,64Ki --strides 1,64 -c 100 -o "$SCRATCH/bcast$np.json" \
        >"$SCRATCH/bcast$np.txt" 2>&1 || { cat "$SCRATCH/bcast$np.txt"; fail "bcast with P = $np failed"; }
    [[ $(py "$SCRATCH/bcast$np.json" "len(rows())") == 4 ]] || fail "P = $np: expected 4 rows"
    [[ $(py "$SCRATCH/bcast$np.json" "set(r['processes'] for r in rows())") == "{$np.0}" ]] ||
        fail "P = $np: the rows do not say P = $np"
    py "$SCRATCH/bcast$np.json" "all(r['median_us'] > 0 for r in rows())" | grep -q True || fail "P = $np: no times"
    over=$(py "$SCRATCH/bcast$np.json" "int(rows()[0]['oversubscribed'])")
    echo "P = $np: oversubscribed $over (this machine: $(nproc) CPUs)"
    [[ $np -le $(nproc) || $over == 1 ]] || fail "P = $np on $(nproc) CPUs not marked oversubscribed"
    [[ $np -le $(nproc) ]] || grep -q "oversubscribed" "$SCRATCH/bcast$np.txt" || fail "P = $np: no oversubscription note"
    # the strided broadcast of 64 KiB moves the same bytes, from a 64x wider array: slower
    contiguous=$(py "$SCRATCH/bcast$np.json" "at(65536, 1, 'median_us')")
    strided=$(py "$SCRATCH/bcast$np.json" "at(65536, 64, 'median_us')")
    echo "  64 KiB: contiguous $contiguous us, stride 64 $strided us"
    python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) > float(sys.argv[1]) else 1)" "$contiguous" "$strided" ||
        fail "P = $np: the strided broadcast is not slower"
done
expect_exit2() { # expect_exit2 "WHAT" "TEXT IN THE MESSAGE" NP [NGX_ARGS...]  (-m $MODULE, default mpi)
    local what=$1 text=$2 np=$3 out rc
    shift 3
    out=$(run_np "$np" vader "$@" 2>&1)
    rc=$?
    [[ $rc == 2 ]] || { echo "$out"; fail "$what: exit $rc, expected 2"; }
    echo "$out" | grep -q -- "$text" || { echo "$out"; fail "$what: the message does not say '$text'"; }
    echo "ok: $what"
}
expect_exit2 "bcast with P = 1" "needs P >= 2 ranks; got 1" 1 -x bcast -s 1Ki
expect_exit2 "pingpong (pairs) with P = 3" "even number of ranks" 3 -x pingpong -s 1Ki
MODULE=tcp expect_exit2 "bcast over tcp (no collectives) with P = 3" "has no collectives" 3 -x bcast -s 1Ki

run_np 2 vader -x strided -s 4Ki,64Ki --strides 1,64 -c 100 -o "$SCRATCH/strided.json" >/dev/null 2>&1 ||
    fail "strided run for the predictions failed"
# LogGP and LogGPS of the same link, for their predictions beside log3P's.
for p in loggp loggps; do
    run_np 2 vader -x $p -s 1-64Ki -c 30 -o "$SCRATCH/$p.json" >/dev/null 2>&1 || fail "$p run for the predictions failed"
done

# Point to point: at stride 1 log3P's T_0,1 = o_mw + l_mw + o_net is the
# measured T_0,1 itself (o_net is solved from it, Cameron et al. 2007, section 4.1).
"$NGX" predict --params "$SCRATCH/strided.json" -s 64Ki --stride 1 -P 4 --format csv >"$SCRATCH/p2p.csv" 2>&1 ||
    { cat "$SCRATCH/p2p.csv"; fail "predict -s 64Ki --stride 1 -P 4 failed"; }
cat "$SCRATCH/p2p.csv"
predicted=$(python3 -c 'import csv, sys
print([r["time_us"] for r in csv.DictReader(open(sys.argv[1])) if r["model"] == "log3p" and r["op"] == "pingpong"][0])' "$SCRATCH/p2p.csv")
measured=$(py "$SCRATCH/strided.json" "[p['t01_us'] for p in d['model']['strided']['points'] if p['size'] == 65536 and p['stride'] == 1][0]")
python3 -c "import sys; p, m = map(float, sys.argv[1:]); sys.exit(0 if abs(p - m) <= 1e-3 * m else 1)" "$predicted" "$measured" ||
    fail "log3P point-to-point at 64 KiB, stride 1: $predicted us predicted, $measured us measured"

"$NGX" predict --params "$SCRATCH/strided.json" --loggp "$SCRATCH/loggp.json" --loggps "$SCRATCH/loggps.json" \
    --compare-to "$SCRATCH/bcast2.json,$SCRATCH/bcast3.json,$SCRATCH/bcast4.json" \
    --format json >"$SCRATCH/compare.json" 2>&1 || { cat "$SCRATCH/compare.json"; fail "predict --compare-to failed"; }
cat "$SCRATCH/compare.json"
# 12 measured broadcasts (2 sizes x 2 strides x P = 2, 3, 4), each beside
# log3P's, LogGP's and LogGPS's tree and linear predictions.
python3 - "$SCRATCH/compare.json" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
rows = [p for p in d["predictions"] if p["time_us"] is not None and p["measured_us"] > 0]
assert len(rows) == 12 * 6 and {(p["model"], p["op"]) for p in rows} == {
    (m, op) for m in ("log3p", "loggp", "loggps") for op in ("bcast-tree", "bcast-linear")}, d["predictions"]
PY
    fail "expected 12 compared rows, each with six predictions (log3P, LogGP, LogGPS; tree and linear) and the measured time"
grep -q 'oversubscribed' "$SCRATCH/compare.json" || fail "oversubscribed rows not noted"
echo PASS
