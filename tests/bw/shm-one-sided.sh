#!/bin/bash
# shm-one-sided.sh: one-sided puts and gets over shm (memcpy into and out of
# the peer's shared window) with --verify: every payload of every window
# arrives intact (the responder checks the driver's puts, the driver its
# gets); functional checks and a wide physical bound only: each window moved
# its bytes in a positive time, and no faster than 1 TB/s, above any single
# node's memory bandwidth (a put that copied nothing would beat it), and the
# run names the one-sided calls.
source "$(dirname "$0")/common.sh"
"$NGX" --list-modules 2>/dev/null | grep -q "^  shm " || skip "module shm not built"
for op in put get; do
    bw_run "$SCRATCH/$op.txt" -m shm -x bw --bw-op "$op" -s 1,4Ki,256Ki -c 6 --warmup 1 --bw-window 8 --verify \
        --timeout 20 -o "$SCRATCH/$op.json" || { cat "$SCRATCH/$op.txt"; fail "bw --bw-op $op over shm: exit $?"; }
done
python3 - "$SCRATCH" <<'PY' || fail "the rows"
import json, sys
scratch = sys.argv[1]
for op in ("put", "get"):
    run = json.load(open(f"{scratch}/{op}.json"))
    assert run["status"] == "complete", (op, run["status"])
    options = run["options"]["pattern_options"]
    assert options["op"] == op and options["calls"].startswith("one-sided"), options
    rows = run["results"]
    assert [r["size_bytes"] for r in rows] == [1, 4096, 256 << 10], [r["size_bytes"] for r in rows]
    for r in rows:
        assert r["count"] >= 6 and r["median_us"] > 0, r
        assert 0 < r["bandwidth_MBps"] < 1e6, (op, r["size_bytes"], r["bandwidth_MBps"])
    print(op, [(r["size_bytes"], round(r["bandwidth_MBps"], 1)) for r in rows])
PY
echo PASS
