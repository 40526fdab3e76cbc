#!/bin/bash
# interrupt.sh MODULE driver|group [INT|TERM]: SIGINT (default) or SIGTERM to
# the driver alone, or to its whole process group as a terminal's Ctrl-C (or a
# service manager's stop) does (driver and forked peer), mid-run: exit 130 within 2 s,
# the -o JSON is valid with status "interrupted" and the sizes finished so
# far (at least one, the same as the table rows), and the forked peer is gone.
source "$(dirname "$0")/../lib/ngx-run.sh"
module=${1:?usage: interrupt.sh MODULE driver|group [INT|TERM]} target=${2:-driver} sig=${3:-INT}
[[ $target == driver || $target == group ]] || fail "target must be driver or group"
[[ $sig == INT || $sig == TERM ]] || fail "signal must be INT or TERM"
count=20000
[[ $module == shm ]] && count=5000
# setsid: its own process group (a background job's child is no group leader,
# so setsid execs in place and $! is ngx itself)
# --passes 1 --max-rel-ci off: one size after the other, each reported when done (README, Passes)
setsid "$NGX" -m "$module" -x pingpong -s 1-1Mi -c "$count" --passes 1 --max-rel-ci off --warmup 10 --timeout 5 -o f.json -o f.csv \
    >out 2>err </dev/null &
drv=$!
IT_PIDS+=("$drv")
for ((i = 0; i < 600; i++)); do
    grep -Eq '^ +1 +1B ' out && break
    kill -0 "$drv" 2>/dev/null || fail "ngx ended before the interrupt: $(cat err)"
    sleep 0.05
done
grep -Eq '^ +1 +1B ' out || fail "no size finished within 30 s"
peer=$(pgrep -P "$drv")
IT_PEERS+=($peer)
kill -0 "$drv" 2>/dev/null || fail "ngx ended before the interrupt"
if [[ $target == group ]]; then kill "-$sig" -- "-$drv"; else kill "-$sig" "$drv"; fi
wait_pid "$drv" 10
echo "SIG$sig to the $target: exit $RC after $ELAPSED s; stderr: $(tr '\n' ' ' <err)"
[[ $RC == 130 ]] || fail "expected exit 130 after SIG$sig, got $RC"
le "$ELAPSED" 2 || fail "exit took $ELAPSED s after SIG$sig, more than 2 s"
grep -qi 'interrupt' err || fail "no message saying it was interrupted"
check_results f.json "$module" - "$count" --status interrupted --min-results 1
rows=$(awk '/^# /{t=1; next} t && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+[KMG]?i?B$/' out | wc -l)
python3 - f.json f.csv "$rows" <<'PY' || fail "interrupted results"
import csv, json, sys
d = json.load(open(sys.argv[1]))
sizes = [r["size_bytes"] for r in d["results"]]
assert sizes == [1 << i for i in range(len(sizes))], sizes
assert len(sizes) == int(sys.argv[3]), f"{len(sizes)} results in the JSON, {sys.argv[3]} table rows"
rows = list(csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith("#")))
assert [int(r["size_bytes"]) for r in rows] == sizes, f"CSV sizes {[r['size_bytes'] for r in rows]} != JSON {sizes}"
print("sizes kept:", sizes)
PY
if [[ -n $peer ]]; then
    for ((i = 0; i < 60; i++)); do kill -0 "$peer" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$peer" 2>/dev/null && fail "the forked peer $peer outlived the interrupted driver"
fi
[[ $target == group ]] && grep -qi 'peer side' err && fail "SIG$sig to the group: the peer reported an error of its own"
ok "$module: SIG$sig to the $target keeps the results"
echo PASS
