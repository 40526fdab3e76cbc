#!/usr/bin/env bash
# allpairs refuses what it cannot run, with exit 2 and a message naming what
# is wrong: a module without per-peer links (the fixture "corrupt") for its
# shift layout, fewer hosts than ranks, a malformed --sim-links file; and a rank killed in the
# middle of the run ends the run within its deadline with exit 1, the
# rounds done written and the missing cells null, never zero.
source "$(dirname "$0")/common.sh"

# expect_ngx_usage DESCRIPTION PATTERN ARGS...: exit 2 and PATTERN in the output.

export NGX_MODULE_PATH=$NGX_FIXTURE_MODULE_DIR:$NGX_MODULE_PATH
expect_ngx_usage "a module without per-peer links cannot run the shift layout" \
    "module corrupt cannot run pattern allpairs (rank layout shift)" -m corrupt -x allpairs --pairs 2 -c 5
expect_ngx_usage "fewer hosts than ranks" "names 2 hosts for 4 ranks" \
    -m sim --sim-clock virtual -x allpairs --pairs 2 -c 5 --host-of a,b
printf '0 1 5 0.001\n1 0 five 0.001\n' > "$SCRATCH/links.txt"
expect_ngx_usage "a malformed links file" "links.txt line 2: expected 'FROM TO L G'" \
    -m sim --sim-clock virtual --sim-links "$SCRATCH/links.txt" -x allpairs --pairs 2 -c 5
printf 'node0\nnode1\nnode2\n' > "$SCRATCH/hosts.txt"
expect_ngx_usage "a host file naming fewer hosts than ranks" "names 3 hosts for 4 ranks" \
    -m sim --sim-clock virtual -x allpairs --pairs 2 -c 5 --host-of "@$SCRATCH/hosts.txt"

# A rank killed in round 2 of 3: sim in real time, 2 ms latency, so that each
# round lasts about half a second.
OUT=$SCRATCH/killed.json
source "$NGX_SOURCE_ROOT/tests/lib/kill-mid-run.sh"
# A round lasts about half a second here: the kill lands in round 2 or 3
# (on a slower machine earlier rounds; the checks below hold for any round).
kill_mid_run last "$OUT" -m sim --sim-L 2000 --sim-sleep 50 -x allpairs --pairs 2 -s 1,4Ki -c 60 --warmup 2 \
    --allpairs-streams 1
python3 - "$OUT" <<'PY' || { cat "$SCRATCH/killed.txt"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
run = d.get("runs", [d])[0]
if run["status"] != "error":
    sys.exit("FAIL: status %s, expected error" % run["status"])
a = run["model"]["allpairs"]
done, rounds = a["rounds_done"], a["rounds"]
if not 0 <= done < rounds:  # killed after 1.5 s: in round 2 or 3 here, in round 1 on a slow machine
    sys.exit("FAIL: %s of %s rounds done, but a rank was killed" % (done, rounds))
cells = [v for r, row in enumerate(a["latency_us"]) for c, v in enumerate(row) if r != c]
measured = [v for v in cells if v is not None]
if len(measured) != 4 * done:  # 4 ranks: 4 cells per shift round
    sys.exit("FAIL: %d cells measured after %d rounds, expected %d" % (len(measured), done, 4 * done))
if any(v == 0 for v in cells):
    sys.exit("FAIL: a missing cell is written as 0")
print("ok: a rank killed: exit 1, %d of %d rounds written, %d cells null" % (done, rounds, len(cells) - len(measured)))
PY
