#!/bin/bash
# Four ranks under mpirun (k = 2 pairs: rank 0 with rank 2, rank 1 with
# rank 3; oversubscribed on 2 cores) for -m tcp and -m mpi: the job exits 0,
# the driver of each pair (ranks 0 and 1, told apart by --tag-output) shows a
# table row for every size, rank 0's JSON holds every size with the asked
# count and records 4 ranks in 4 placements.
source "$(dirname "$0")/common.sh"
for module in tcp mpi; do
    out=$SCRATCH/$module.out json=$SCRATCH/$module.json
    ngx_mpirun tcp -np 4 --tag-output --mca mpi_yield_when_idle 1 -- "$NGX" -m "$module" -x pingpong \
        -s 1,1Ki -c 200 --warmup 10 --timeout 20 -o "$json" >"$out" 2>"$SCRATCH/$module.err" </dev/null
    rc=$?
    cat "$out"
    [[ $rc == 0 ]] || fail "$module: mpirun -np 4 exit $rc: $(tail -5 "$SCRATCH/$module.err")"
    for rank in 0 1; do
        for size in '1 +1B' '1024 +1KiB'; do
            grep -Eq "^\[[0-9]+,$rank\]<stdout>: +$size " "$out" ||
                fail "$module: no table row of $size from rank $rank (the driver of pair $rank <-> $((rank + 2)))"
        done
    done
    grep -Eq '^\[[0-9]+,[23]\]<stdout>: +1 +1B ' "$out" && fail "$module: a responder (rank 2 or 3) printed results"
    python3 - "$json" <<'PY' || fail "$module: rank 0's JSON"
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0] if "runs" in d else d
assert run["status"] == "complete", run["status"]
assert [r["size_bytes"] for r in run["results"]] == [1, 1024], run["results"]
assert all(r["count"] >= 200 and r["median_us"] > 0 for r in run["results"]), run["results"]  # more when measured again
ctx = d.get("context", d)
assert ctx["bootstrap"] == {"kind": "mpi", "ranks": 4}, ctx["bootstrap"]
assert len(ctx["placement"]) == 4, ctx["placement"]
print("json: complete, sizes 1 and 1024 B, 4 ranks placed")
PY
    echo "ok: $module with 4 ranks, both pairs measured"
done
echo PASS
