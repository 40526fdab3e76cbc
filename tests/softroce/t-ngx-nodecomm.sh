#!/bin/sh
# `ngx --pairs 2 -m ibv -x nodecomm`: the local launch forks 4 ranks, each
# pair connects its own RC queue pairs on the RDMA device, and the pairs
# ping-pong at the same time (every pairwise module works under nodecomm,
# ibv included). Asserts exit 0, status complete, k = 1 and 2 over the sizes, and
# every T(k, n) > 0. Few samples: 4 spinning ranks on the guest's vCPUs wait
# for each other's time slices. Exits 77 when ngx or its ibv module is missing.
[ -x "${NGX:-}" ] || { echo "no ngx binary at '${NGX:-}'"; exit 77; }
"$NGX" --list-modules 2>/dev/null | grep -q "^ *ibv " || { echo "ngx has no module ibv"; exit 77; }
out=${SOFTROCE_RUN_DIR:-.}/nodecomm-ibv.json
set -- --pairs 2 -m ibv -x nodecomm -s 1,1Ki -c 10 --warmup 2 --timeout 30 -o "$out"
echo "+ ngx $*"
"$NGX" "$@"
rc=$?
[ $rc = 0 ] || { echo "FAIL: ngx exited $rc"; exit 1; }
exec python3 - "$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
run = (doc.get("runs") or [doc])[0]
nc = run["model"]["nodecomm"]
problems = []
if run["status"] != "complete":
    problems.append("status %r" % run["status"])
if nc["pairs"] != [1, 2] or nc["sizes"] != [1, 1024]:
    problems.append("pairs %r, sizes %r: expected [1, 2] and [1, 1024]" % (nc["pairs"], nc["sizes"]))
if not all(t is not None and t > 0 for row in nc["T_us"] for t in row):
    problems.append("T(k, n) not all > 0: %r" % nc["T_us"])
for p in problems:
    print("FAIL: nodecomm over ibv: " + p)
if not problems:
    print("PASS: nodecomm over ibv, 2 pairs at once: T(k, n) = %r us" % nc["T_us"])
sys.exit(1 if problems else 0)
PY
