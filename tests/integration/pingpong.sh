#!/bin/bash
# pingpong.sh MODULE: `ngx -m MODULE -x pingpong -s 1-1Mi` exits 0 and writes a
# JSON file with every field a result carries (check_json.py), every power of
# two from 1 B to 1 MiB, the asked count per size, positive medians and a
# size-monotone-ish curve (see
# check_json.py --monotone for the noise tolerance).
source "$(dirname "$0")/../lib/ngx-run.sh"
module=${1:?usage: pingpong.sh MODULE}
ngx_run 120 -m "$module" -x pingpong -s 1-1Mi -c 200 --warmup 20 -o pp.json
[[ $RC == 0 ]] || fail "ngx -m $module -x pingpong exited $RC, expected 0"
check_results pp.json "$module" pow2:1-1048576 200 --monotone
grep -q "# $module pingpong" out || fail "no table for $module on stdout"
python3 - pp.json <<'PY' || fail "medians"
import json, sys
d = json.load(open(sys.argv[1]))
print("medians (us):", " ".join(f"{r['size_bytes']}:{r['median_us']:.2f}" for r in d["results"]))
PY
ok "$module ping-pong 1 B..1 MiB"
echo PASS
