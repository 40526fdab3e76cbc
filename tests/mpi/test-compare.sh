#!/bin/bash
# `ngx compare` of saved files: two single-run files, and the LogGP
# parameter differences where the runs carry model.ranges.
source "$(dirname "$0")/common.sh"
mk() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
path, module, scale = sys.argv[1], sys.argv[2], float(sys.argv[3])
json.dump({"schema_version": 1, "module": module, "pattern": "loggp", "metric": "m",
           "results": [{"size_bytes": s, "median_us": scale * (1 + s / 1000)} for s in (1, 1024)],
           "model": {"ranges": [{"from_bytes": 1, "to_bytes": 1024, "L_us": scale, "o_us": 0.5 * scale,
                                 "g_us": 0.2, "G_us_per_byte": 0.001}]}}, open(path, "w"))
PY
}
mk "$SCRATCH/a.json" tcp 2
mk "$SCRATCH/b.json" mpi 3
"$NGX" compare "$SCRATCH/a.json" "$SCRATCH/b.json" | tee "$SCRATCH/out" || fail "ngx compare"
grep -q "L_us" "$SCRATCH/out" || fail "no LogGP parameter differences"
"$NGX" compare --json "$SCRATCH/a.json" "$SCRATCH/b.json" >"$SCRATCH/c.json" || fail "--json"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); v=c["sizes"][0]["values"][1]; assert abs(v["ratio"]-1.5)<1e-9, v; assert c["model"][0]["parameters"]["L_us"][1]["diff"]==1.0' "$SCRATCH/c.json" || fail "wrong numbers"
echo PASS
