#!/usr/bin/env bash
# pingpong_batch.sh: `--pingpong-timing batch` (the timer read once per batch
# of round trips, so that it does not distort sub-microsecond paths) on shm.
# Checks that the JSON records the timing, the batch and that the statistics
# are over batch means; that the round trips really are batch x samples
# (messages counted by ngx); that the loops still carry intact payloads
# (--verify); and that a bad value of either option is a usage error (exit 2)
# naming the option. No timing is asserted.
source "$(dirname "$0")/../lib/common.sh"
ngx=${NGX:?NGX is set by meson}
make_scratch
work=$SCRATCH
failures=0
# every check runs; the test fails at the end if any did not hold
check_failed() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$ngx" -m shm -x pingpong -s 1,100 -c 50 --warmup 5 --passes 1 --max-rel-ci off --verify \
    --pingpong-timing batch --pingpong-batch 16 --format json -o "$work/batch.json" >/dev/null 2>"$work/err" ||
    check_failed "batch run failed: $(cat "$work/err")"
python3 - "$work/batch.json" <<'PY' || check_failed "batch JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["options"]["pattern_options"]
assert p["timing"] == "batch", p
assert p["batch"] == 16, p
assert "batch means" in p["statistics"], p
sizes = [r["size_bytes"] for r in d["results"]]
assert sizes == [1, 100], sizes
assert all(r["median_us"] > 0 for r in d["results"]), d["results"]
# 2 sizes x (5 + 50) batches x 16 round trips x 2 messages
assert d["messages"] == 2 * 55 * 16 * 2, d["messages"]
PY

"$ngx" -m shm -x pingpong -s 1 -c 50 --warmup 5 --passes 1 --max-rel-ci off --format json -o "$work/sample.json" >/dev/null 2>&1 ||
    check_failed "per-sample run failed"
python3 - "$work/sample.json" <<'PY' || check_failed "per-sample JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["options"]["pattern_options"] == {"timing": "per-sample"}, d["options"]["pattern_options"]
assert d["messages"] == 55 * 2, d["messages"]
PY

for bad in "--pingpong-timing=bogus" "--pingpong-batch=0" "--pingpong-batch=lots"; do
    "$ngx" -m shm -x pingpong -s 1 -c 10 "$bad" >"$work/out" 2>&1
    rc=$?
    [ "$rc" -eq 2 ] || check_failed "$bad: exit $rc, expected 2"
    grep -q -- "${bad%%=*}" "$work/out" || check_failed "$bad: the message does not name the option: $(cat "$work/out")"
done

[ "$failures" -eq 0 ] && echo "pingpong timing: all checks passed"
exit $((failures > 0))
