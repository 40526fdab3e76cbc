#!/bin/bash
# A traced run killed with SIGKILL after its buffers were flushed (4 records
# per flush) leaves files ngx-trace-dump reads up to the last flush (exit 0,
# a warning per rank that never reached MPI_Finalize); MPI_Abort writes the
# aborting rank's buffer first. Then bad traces and
# bad usage: a truncated file, a missing rank, a foreign file, no directory,
# an unknown option all exit 2 with a message, never a crash.
source "$(dirname "$0")/common.sh"
t=$SCRATCH/t ready=$SCRATCH/ready
mkdir -p "$ready"
trace_mpirun "$t" 4 -b 4 -- "$RING" --hang "$ready" >"$SCRATCH/out" 2>&1 &
job=$!
for _ in $(seq 600); do
    [[ $(ls "$ready" | wc -l) == 4 ]] && break
    kill -0 $job 2>/dev/null || break
    sleep 0.1
done
[[ $(ls "$ready" | wc -l) == 4 ]] || { kill $job; fail "the ranks never got ready: $(tail -5 "$SCRATCH/out")"; }
kill -9 $(cat "$ready"/ready.*)
wait $job && fail "mpirun exited 0 although its ranks were killed"

"$TRACE_DUMP" --json "$t" >"$SCRATCH/json" 2>"$SCRATCH/err" || fail "dump of the killed run: exit $?: $(cat "$SCRATCH/err")"
cat "$SCRATCH/err"
[[ $(grep -c "never reached MPI_Finalize" "$SCRATCH/err") == 4 ]] || fail "no warning per rank about the missing MPI_Finalize"
python3 - "$SCRATCH/json" <<'PY' || fail "the killed run's records"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
for rank in range(4):
    recs = [r for r in lines if r["type"] == "record" and r["rank"] == rank]
    head = [h for h in lines if h["type"] == "header" and h["rank"] == rank][0]
    assert not head["finalized"], head
    assert len(recs) >= 8 and len(recs) % 4 == 0, (rank, len(recs))  # whole buffers of 4 (a flush record opens each next one)
    assert recs[0]["kind"] in ("send", "recv") and recs[0]["tag"] == 10, recs[0]
    assert any(r["kind"] == "flush" for r in recs), rank
    print(f"rank {rank}: {len(recs)} records up to the last flush")
PY

# MPI_Abort on rank 0 (default buffer, nothing flushed before): rank 0 writes all it has before aborting; the
# other ranks are killed by mpirun and keep only their headers.
trace_mpirun "$SCRATCH/abort" 4 -- "$RING" --abort >"$SCRATCH/out" 2>&1 && fail "ring --abort: mpirun exited 0"
"$TRACE_DUMP" --json "$SCRATCH/abort" >"$SCRATCH/json" 2>"$SCRATCH/err" || fail "dump after MPI_Abort: $(cat "$SCRATCH/err")"
python3 - "$SCRATCH/json" <<'PY' || fail "rank 0's records after MPI_Abort"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
kinds = [r["kind"] for r in lines if r["type"] == "record" and r["rank"] == 0]
assert len(kinds) > 4000 and kinds[-1] == "barrier" and "flush" not in kinds, (len(kinds), kinds[-3:])
print(f"MPI_Abort: rank 0 wrote its {len(kinds)} records, up to the Barrier before the abort")
PY

expect_2() { # WHAT PATTERN ARGS...: the dump exits 2 and says PATTERN
    local what=$1 pattern=$2
    shift 2
    "$TRACE_DUMP" "$@" >"$SCRATCH/out2" 2>&1
    local rc=$?
    [[ $rc == 2 ]] || fail "$what: exit $rc, expected 2: $(head -3 "$SCRATCH/out2")"
    grep -q "$pattern" "$SCRATCH/out2" || fail "$what: no message '$pattern': $(head -3 "$SCRATCH/out2")"
    echo "$what: $(head -1 "$SCRATCH/out2")"
}
cp -r "$t" "$SCRATCH/cut" && truncate -s -10 "$SCRATCH/cut/rank-00001.ngxt"
expect_2 "truncated file" "rank-00001.ngxt: truncated" "$SCRATCH/cut"
cp -r "$t" "$SCRATCH/gone" && rm "$SCRATCH/gone/rank-00002.ngxt"
expect_2 "missing rank" "rank-00002.ngxt: missing rank file" "$SCRATCH/gone"
cp -r "$t" "$SCRATCH/junk" && head -c 300 /dev/urandom >"$SCRATCH/junk/rank-00003.ngxt"
expect_2 "foreign file" "not an ngx trace file" "$SCRATCH/junk"
cp -r "$t" "$SCRATCH/short" && head -c 100 "$t/rank-00000.ngxt" >"$SCRATCH/short/rank-00000.ngxt"
expect_2 "header cut" "shorter than the 256-byte header" "$SCRATCH/short"
expect_2 "no directory" "usage" 
expect_2 "not a directory" "not a directory" "$SCRATCH/none"
expect_2 "unknown option" "unknown option" --bogus "$t"
bash "$TRACE_RUN" -o "$SCRATCH/x" >/dev/null 2>&1
[[ $? == 2 ]] || fail "ngx-trace-run without a command: exit not 2"
echo "PASS: killed run readable up to its last flush; bad traces and usage exit 2"
