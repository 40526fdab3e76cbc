#!/bin/bash
# predict-save-model.sh: `ngx predict --params RUN --save-model FILE` writes
# the model of a saved run alone, for every built-in model kind (loggp,
# loggps, log3p, maxrate, loghssp), and predicting from that file gives the
# very predictions of the run it came from (JSON compared byte for byte).
# The runs are of the sim module in virtual time (exact, a fraction of a
# second each). A file that cannot be written is exit 2 naming the option.
source "$(dirname "$0")/../lib/ngx-run.sh"
sim=(-m sim --sim-clock virtual --sim-O 0.0005 -c 10)

# same_predictions KIND RUN ARGS...: the run and its saved model predict alike.
same_predictions() {
    local kind=$1 run=$2
    shift 2
    ngx_run 30 predict --params "$run" --save-model "$run.model" || true
    [[ $RC == 0 && ! -s out ]] || fail "$kind: --save-model without --op: exit $RC, stdout '$(cat out)'"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['model'] and d['pattern'], d" \
        "$run.model" || fail "$kind: $run.model is not {pattern, model}"
    ngx_run 30 predict --params "$run" --format json "$@"
    [[ $RC == 0 ]] || fail "$kind: predict from the run $*: exit $RC"
    mv out from-run
    ngx_run 30 predict --params "$run.model" --format json "$@"
    [[ $RC == 0 ]] || fail "$kind: predict from the saved model $*: exit $RC"
    cmp -s out from-run || fail "$kind: the saved model predicts otherwise: $(diff from-run out | head -6)"
    grep -q '"time_us": [0-9]' out || fail "$kind: no prediction in $(cat out)"
    ok "$kind: the saved model predicts as the run ($*)"
}

run() { # OUT ARGS...: a sim run in virtual time
    local out=$1
    shift
    ngx_run 60 "${sim[@]}" -o "$out" "$@"
    [[ $RC == 0 ]] || fail "ngx ${sim[*]} $* -o $out: exit $RC"
}
run loggp.json -x loggp -s 1-16Ki
run loggps.json -x loggps
run strided.json -x strided -s 1Ki-16Ki --strided-strides 1,4,16
run nodecomm.json -x nodecomm --pairs 2 -s 1Ki-64Ki
run loghssp.json -x loghssp --pairs 2 --host-of a,a,b,b

same_predictions loggp loggp.json --op pingpong -s 3000
same_predictions loggp loggp.json --op allreduce -s 1Ki-8Ki -P 5 --algorithm all
same_predictions loggps loggps.json --op prtt -s 1000 -n 8 -d 5
same_predictions log3p strided.json --op bcast-tree -s 4Ki --stride 4 -P 8
same_predictions maxrate nodecomm.json --op nodecomm -k 2 -s 1000
same_predictions loghssp loghssp.json --tier inter -s 1000

ngx_run 30 predict --params loggp.json --save-model "$IT_DIR/no/such/dir/m.json"
[[ $RC == 2 ]] && grep -q -- "--save-model .*cannot write there" err ||
    fail "an unwritable --save-model: exit $RC, $(cat err)"
ok "an unwritable --save-model: exit 2, $(head -1 err)"
echo PASS
