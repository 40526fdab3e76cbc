#!/usr/bin/env bash
# The all-pairs verdict on stdout: over sim in virtual time, six nodes, one
# slow cable (node0 <-> node1: L and G three times the others'), the table
# ends with "# allpairs verdict: ..." naming that link both ways with its
# numbers, as tokens a script reads (awk '$1 == "slow_link"'), the typical
# pair's numbers, and no empty parameter heading.
source "$(dirname "$0")/common.sh"
LINKS=$SCRATCH/links.txt
{
    echo "# FROM TO L(us) G(us/byte): the cable between node0 and node1 three times slower"
    for i in 0 1 2 3 4 5; do
        for j in 0 1 2 3 4 5; do
            (( i == j )) && continue
            if (( i + j == 1 )); then echo "$i $j 15 0.003"; else echo "$i $j 5 0.001"; fi
        done
    done
} > "$LINKS"
ngx_deadline 60 --pairs 3 -m sim --sim-clock virtual --sim-links "$LINKS" -x allpairs -s 1,64Ki -c 10 \
    --warmup 2 --host-of node0,node1,node2,node3,node4,node5 > "$SCRATCH/out.txt" 2> "$SCRATCH/err.txt" ||
    { cat "$SCRATCH/out.txt" "$SCRATCH/err.txt"; fail "the run failed"; }
cat "$SCRATCH/out.txt"
out=$SCRATCH/out.txt
grep -q '^# allpairs verdict: 0 slow node(s), 2 slow link(s) between the other nodes, of 6 nodes' "$out" ||
    fail "no verdict line naming 0 slow nodes and 2 slow links"
# A 1-byte half round trip o_s + o_r + (L_ij + L_ji) / 2 = 2 + 15 = 17 us; a stream of 64 KiB
# messages 65536 / (g + 65535 G) = 65536 / (2 + 65535 x 0.003) = 330.0 MB/s (sim's o and g defaults).
for link in "node0 node1" "node1 node0"; do
    set -- $link
    awk -v a="$1" -v b="$2" '$1 == "slow_link" && $2 == a && $3 == b && $4 == "latency_us" && $5 == 17 &&
        $6 == "bandwidth_MBps" && $7 == 330 { found = 1 } END { exit !found }' "$out" ||
        fail "no row 'slow_link $1 $2 latency_us 17 bandwidth_MBps 330'"
done
[[ $(awk '$1 == "slow_link"' "$out" | wc -l) == 2 ]] || fail "other links named slow"
awk '$1 == "typical" && $3 == 7 && $5 == 970.4 { found = 1 } END { exit !found }' "$out" ||
    fail "no row 'typical latency_us 7 bandwidth_MBps 970.4'"
grep -q '^# allpairs parameters' "$out" && fail "an empty '# allpairs parameters' heading"
echo "ok: the verdict on stdout names the slow cable node0 <-> node1 (17 us, 330 MB/s; typical 7 us, 970.4 MB/s)"
