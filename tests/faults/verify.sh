#!/bin/bash
# verify.sh pass|detect: --verify (every payload byte checked on receipt; a
# mismatch names module, size, iteration and offset, exit 1).
#   pass:   ping-pong with --verify over tcp, shm, udp and sim (and a PRTT
#           with n = 4 over tcp; and with --buffer-offset 3) completes,
#           exit 0, every size reported.
#   detect: the fixture module "corrupt" (tests/faults/fixtures/corrupt.cpp,
#           found through NGX_MODULE_PATH) flips the middle byte of every 7th
#           message it sends. Without --verify the run completes (nothing is
#           checked); with --verify ngx exits 1 within the deadline, naming
#           the module, the size, the repetition (6: the 7th message of either
#           side) and the first bad offset (32 of 64) with both bytes.
source "$(dirname "$0")/../lib/ngx-run.sh"
mode=${1:?usage: verify.sh pass|detect}

if [[ $mode == pass ]]; then
    have=$("$NGX" --list-modules 2>/dev/null)
    for m in tcp shm udp sim; do
        grep -q "^  $m " <<<"$have" || fail "module $m not found by ngx --list-modules"
    done
    ngx_run 240 -m tcp,shm,udp,sim -x pingpong -s 1-64Ki --verify -c 200 --warmup 5 --timeout 10 -o v.json
    [[ $RC == 0 ]] || fail "--verify over tcp,shm,udp,sim: exit $RC"
    python3 - v.json <<'PY' || fail "v.json"
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert [r["module"] for r in runs] == ["tcp", "shm", "udp", "sim"], [r["module"] for r in runs]
for r in runs:
    assert r["status"] == "complete", (r["module"], r["status"])
    assert r["options"]["verify"] is True, r["options"]
    assert len(r["results"]) == 17, (r["module"], len(r["results"]))
    assert all(x["count"] >= 200 for x in r["results"]), r["module"]  # more when measured again (docs/output.md, Passes)
print("verified sizes per module:", {r["module"]: len(r["results"]) for r in runs})
PY
    ngx_run 120 -m tcp -x pingping --pingping-n 4 -s 1-4Ki --verify -c 100 --warmup 2 -o p.json
    [[ $RC == 0 ]] || fail "--verify with pingping n=4 over tcp: exit $RC"
    # Buffers 3 bytes into a page (--buffer-offset): every payload still intact.
    ngx_run 240 -m tcp,shm,udp,sim -x pingpong -s 1-64Ki --verify --buffer-offset 3 -c 50 --warmup 2 -o b.json
    [[ $RC == 0 ]] || fail "--verify --buffer-offset 3 over tcp,shm,udp,sim: exit $RC"
    python3 - b.json <<'PY' || fail "b.json"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert [r["status"] for r in runs] == ["complete"] * 4, [(r["module"], r["status"]) for r in runs]
assert all(r["options"]["buffer_offset"] == 3 for r in runs), [r["options"].get("buffer_offset") for r in runs]
PY
    ok "--verify passes over tcp, shm, udp, sim (also with --buffer-offset 3), and a PRTT with n = 4"
    echo PASS
    exit 0
fi

[[ $mode == detect ]] || fail "mode must be pass or detect"
: "${NGX_FIXTURE_MODULE_DIR:?meson sets NGX_FIXTURE_MODULE_DIR to the directory of the fixture module}"
export NGX_MODULE_PATH="$NGX_FIXTURE_MODULE_DIR:${NGX_MODULE_PATH:-}"
"$NGX" --list-modules | grep -q '^  corrupt ' || fail "the corrupt fixture module is not found"

ngx_run 60 -m corrupt -x pingpong -s 64 -c 50 --warmup 0 --corrupt-every 7 --timeout 10
[[ $RC == 0 ]] || fail "without --verify a corrupting module must go unnoticed (nothing checked); exit $RC"
ok "without --verify: exit 0 (payloads are not checked)"

t0=$(date +%s.%N)
ngx_run 60 -m corrupt -x pingpong -s 64 -c 50 --warmup 0 --corrupt-every 7 --timeout 3 --verify -o c.json
elapsed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
echo "with --verify: exit $RC after $elapsed s; stderr: $(tr '\n' ' ' <err)"
[[ $RC == 1 ]] || fail "with --verify: exit $RC, expected 1"
le "$elapsed" 4 || fail "with --verify: $elapsed s, more than the deadline (3 s) + 1 s"
grep -Eq 'verify: module corrupt, size 64 B, repetition 6: the payload from the (driver|responder) differs first at offset 32: byte 0x[0-9a-f]{2}, expected 0x[0-9a-f]{2}' err ||
    fail "the message does not name module corrupt, size 64 B, repetition 6, offset 32 and the bytes"
python3 - c.json <<'PY' || fail "c.json after a verify failure"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "error", d["status"]
assert "verify" in d["error"] or "peer" in d["error"], d["error"]
PY
ok "--verify catches the corrupted byte"
echo PASS
