#!/bin/bash
# peer-fault.sh MODULE KILL|STOP: a local ping-pong (forked peer) with
# --timeout 2; once the first size is reported, the forked peer (rank 1) gets
# SIGKILL (dead) or SIGSTOP (alive but silent). The driver must exit 1 within
# the deadline plus one second, with a message about the peer (and, for STOP,
# the deadline), and leave a valid JSON file with status "error" holding
# exactly the sizes finished so far (those of the table on stdout). The
# message names the step: the module and pattern, the size being measured
# (the one after the last size reported), the repetition, and the side that
# noticed (a send or a receive, of the module or of the control channel).
source "$(dirname "$0")/../lib/ngx-run.sh"
module=${1:?usage: peer-fault.sh MODULE KILL|STOP} sig=${2:?usage: peer-fault.sh MODULE KILL|STOP}
timeout_s=2
limit=$((timeout_s + 1))
# enough samples that the run is still going once the first size is reported,
# few enough that the first size is reported soon on a loaded 2-core machine
# (a spinning shm peer shares the cores with everything else)
count=20000
[[ $module == shm ]] && count=5000

# --passes 1 --max-rel-ci off: one size after the other, each reported when done (in passes
# the first rows appear in the last pass; README, Passes)
"$NGX" -m "$module" -x pingpong -s 1-1Mi -c "$count" --passes 1 --max-rel-ci off --warmup 10 --timeout "$timeout_s" -o f.json \
    >out 2>err </dev/null &
drv=$!
IT_PIDS+=("$drv")
for ((i = 0; i < 600; i++)); do  # up to 30 s for the first size (a loaded machine)
    grep -Eq '^ +1 +1B ' out && break
    kill -0 "$drv" 2>/dev/null || fail "ngx ended before the fault: $(cat err)"
    sleep 0.05
done
grep -Eq '^ +1 +1B ' out || fail "no size finished within 30 s"
peer=$(pgrep -P "$drv")
IT_PEERS+=($peer)
[[ -n $peer && $peer =~ ^[0-9]+$ ]] || fail "no single forked peer under pid $drv: '$peer'"
kill -0 "$drv" 2>/dev/null || fail "ngx ended before the fault"

t0=$(date +%s.%N)
kill "-$sig" "$peer" || fail "kill -$sig $peer"
wait_pid "$drv" 20
elapsed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
# clean up a stopped peer at once (the trap would too)
kill -CONT "$peer" 2>/dev/null; kill -KILL "$peer" 2>/dev/null
echo "SIG$sig to the $module peer: exit $RC after $elapsed s; stderr: $(tr '\n' ' ' <err)"

[[ $RC == 1 ]] || fail "expected exit 1 after SIG$sig of the peer, got $RC"
le "$elapsed" "$limit" || fail "exit took $elapsed s, more than the deadline ($timeout_s s) + 1 s"
grep -qi 'peer' err || fail "the message does not name the peer"
if [[ $sig == STOP ]]; then
    grep -Eqi 'within|deadline|timed out|timeout' err || fail "the message does not mention the deadline"
else
    grep -Eqi 'exited|closed|gone|reset|lost' err || fail "the message does not say the peer is gone"
fi
rows=$(awk '/^# /{t=1; next} t && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+[KMG]?i?B$/ {print $1}' out | wc -l)
# the size in progress: the one after the $rows sizes reported (1, 2, 4, ... B)
next=$((1 << rows))
if ((next >= 1 << 20)); then next_text="$((next >> 20)) MiB"
elif ((next >= 1 << 10)); then next_text="$((next >> 10)) KiB"
else next_text="$next B"; fi
grep -Eq "^ngx: $module pingpong: size $next_text, repetition [0-9]+" err ||
    fail "the message does not name the step '$module pingpong: size $next_text, repetition N'"
grep -Eq "(($module|control channel) (send|recv|receive))" err ||
    fail "the message does not name the side (a $module or control-channel send or receive)"
check_results f.json "$module" - "$count" --status error --min-results 1
python3 - f.json "$rows" <<'PY' || fail "f.json does not hold the sizes reported before the fault"
import json, sys
d = json.load(open(sys.argv[1]))
sizes = [r["size_bytes"] for r in d["results"]]
want = [1 << i for i in range(len(sizes))]
assert sizes == want, f"sizes done so far should be {want}, got {sizes}"
assert len(sizes) == int(sys.argv[2]), f"{len(sizes)} results in the file, {sys.argv[2]} rows on stdout"
print("sizes done before the fault:", sizes)
PY
ok "$module: SIG$sig of the peer"
echo PASS
