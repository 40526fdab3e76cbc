#!/bin/bash
# bad-input.sh: --passes and --max-rel-ci reject what makes no sense before
# anything is measured: exit 2 and a message naming the option and the value.
source "$(dirname "$0")/../lib/ngx-run.sh"

# passes_usage TEXT ARG...: a ping-pong with ARG... exits 2 and says TEXT on stderr
passes_usage() { expect_ngx_usage "ngx ${*:2}" "$1" -m shm -x pingpong -s 1,64 "${@:2}"; }

passes_usage "passes" --passes 0
passes_usage "passes" --passes -3
passes_usage "passes" --passes many
passes_usage "more passes than samples per size" -c 10 --passes 11
passes_usage "max-rel-ci" --max-rel-ci 0
passes_usage "max-rel-ci" --max-rel-ci -5
passes_usage "max-rel-ci" --max-rel-ci 0%
passes_usage "max-rel-ci" --max-rel-ci wide
ngx_run 60 -m shm -x pingpong -s 1,64 -c 10 --passes 10 --max-rel-ci 50%
[[ $RC == 0 ]] || fail "--passes equal to -c and --max-rel-ci 50% must be accepted (exit $RC)"
ok "--passes 10 with -c 10 and --max-rel-ci 50% accepted"
ngx_run 60 -m shm -x pingpong -s 1,64 -c 40 --passes 1 --max-rel-ci off -o "$IT_DIR/off.json"
[[ $RC == 0 ]] || fail "--max-rel-ci off must be accepted (exit $RC)"
python3 - "$IT_DIR/off.json" <<'PY' || fail "--max-rel-ci off: sizes measured again, or not recorded as off"
import json, sys
m = json.load(open(sys.argv[1]))["measurement"]
assert m["max_rel_ci_percent"] == 1e6 and m["extra_passes"] == 0 and m["remeasured_bytes"] == [], m
PY
ok "--max-rel-ci off: never measured again"
echo PASS
