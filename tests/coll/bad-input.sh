#!/usr/bin/env bash
# Bad input to the coll pattern: each refused with exit 2 and a message
# naming what is wrong, before anything is measured: an operation ngx has no
# model of, an algorithm unknown for the operation, P < 2 (mpirun -np 1),
# a model file that is not one, and parameters without the range a size needs;
# and the contention term's input: --coll-contention without --coll-switches
# or --coll-params, a file that is no congestion run, a switch list that
# does not name the P ranks 0 or 1 on both switches, an algorithm whose
# schedule has no rounds.
source "$(dirname "$0")/common.sh"
cat >"$SCRATCH/small.json" <<'JSON'
{"pattern": "loggp", "model": {"kind": "loggp", "ranges": [
  {"from_bytes": 1, "to_bytes": 1024, "L_us": 5, "o_us": 1, "g_us": 2, "G_us_per_byte": 0.001}]}}
JSON
echo '{"not": "a model"}' >"$SCRATCH/nomodel.json"
cat >"$SCRATCH/uplink.json" <<'JSON'
{"pattern": "congestion", "model": {"kind": "congestion", "congestion": {"maxrate": {
  "alpha_us": 5, "R_N_MBps": 100, "R_C_MBps": 80}}}}
JSON
SIM=(-m sim --sim-clock virtual -x coll -c 2 --timeout 20)

# refused NP WANT_TEXT ARGS...: exit 2 and WANT_TEXT in the output.
refused() {
    local np=$1 want=$2
    shift 2
    coll_run "$np" "$SCRATCH/out.txt" "$@"
    local rc=$?
    [[ $rc == 2 ]] || { cat "$SCRATCH/out.txt"; fail "$* (P = $np): exit $rc, expected 2"; }
    grep -qF -- "$want" "$SCRATCH/out.txt" || { cat "$SCRATCH/out.txt"; fail "$*: no '$want' in the message"; }
    echo "ok: refused with exit 2: $want"
}
refused 4 "--coll-op scan: not a collective" "${SIM[@]}" --coll-op scan -s 8
refused 4 "--coll-algorithm ring: bcast has linear, binomial, pipeline, scatter_allgather" \
    "${SIM[@]}" --coll-op bcast --coll-algorithm ring -s 8
refused 4 "--coll-algorithm bruck: allreduce has" "${SIM[@]}" --coll-op allreduce --coll-algorithm bruck -s 8
refused 4 "alltoall linear posts every receive before any send" "${SIM[@]}" --coll-op alltoall --coll-algorithm linear -s 8
refused 4 "beyond the largest size the parameters cover (1 KiB)" \
    "${SIM[@]}" --coll-op allreduce --coll-algorithm ring --coll-params "$SCRATCH/small.json" -s 8,64Ki
refused 4 "--coll-params $SCRATCH/nomodel.json" "${SIM[@]}" --coll-params "$SCRATCH/nomodel.json" -s 8
A2A=("${SIM[@]}" --coll-op alltoall --coll-algorithm pairwise -s 1Ki --coll-params "$SCRATCH/small.json")
refused 4 "--coll-contention and --coll-switches go together" "${A2A[@]}" --coll-switches 0,0,1,1
refused 4 "give --coll-params too" "${SIM[@]}" --coll-op alltoall -s 8 --coll-contention "$SCRATCH/uplink.json" \
    --coll-switches 0,0,1,1
refused 4 "a congestion run's model is needed" "${A2A[@]}" --coll-contention "$SCRATCH/small.json" --coll-switches 0,0,1,1
refused 4 "3 switches listed for 4 ranks" "${A2A[@]}" --coll-contention "$SCRATCH/uplink.json" --coll-switches 0,0,1
refused 4 "switch '2' of rank 2" "${A2A[@]}" --coll-contention "$SCRATCH/uplink.json" --coll-switches 0,0,2,1
refused 4 "every rank on one switch" "${A2A[@]}" --coll-contention "$SCRATCH/uplink.json" --coll-switches 1,1,1,1
refused 4 "bcast binomial: invalid input: the schedule has no rounds" "${SIM[@]}" --coll-op bcast \
    --coll-algorithm binomial -s 8 --coll-params "$SCRATCH/small.json" --coll-contention "$SCRATCH/uplink.json" \
    --coll-switches 0,0,1,1
if command -v mpirun >/dev/null; then
    refused 1 "needs P >= 2 ranks; got 1" "${SIM[@]}" -s 8
else
    echo "note: no mpirun: P = 1 not tried (ngx --pairs always starts an even P >= 2)"
fi
