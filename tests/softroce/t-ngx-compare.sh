#!/bin/sh
# The comparison that motivates the ibv module: raw verbs next to TCP in one
# invocation (`ngx -m ibv,tcp`), on the same guest, with the comparison of
# the MPI issue: per size each module's median and tcp's difference and
# ratio to ibv. Exits 77 when the ngx binary or the ibv module is missing.
[ -x "${NGX:-}" ] || { echo "no ngx binary at '${NGX:-}'"; exit 77; }
"$NGX" --list-modules 2>/dev/null | grep -q "^ *ibv " || { echo "ngx has no module ibv"; exit 77; }
out=${SOFTROCE_RUN_DIR:-.}/compare-ibv-tcp.json
set -- -m ibv,tcp -x pingpong -s 1,4Ki,64Ki -c "${NGX_SOFTROCE_COUNT:-20}" --warmup 3 --timeout 30 -o "$out"
[ "$(nproc)" -ge 2 ] && set -- "$@" --cpus 0,1
echo "+ ngx $*"
"$NGX" "$@" || { echo "ngx exited $?"; exit 1; }
exec python3 - "$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
runs = doc.get("runs", [])
assert [r["module"] for r in runs] == ["ibv", "tcp"], [r.get("module") for r in runs]
cmp = doc.get("comparison")
assert cmp and cmp["labels"] == ["ibv", "tcp"], cmp and cmp.get("labels")
for row in cmp["sizes"]:
    ibv, tcp = row["values"]
    assert ibv["median_us"] > 0 and tcp["median_us"] > 0, row
    assert abs(tcp["diff_us"] - (tcp["median_us"] - ibv["median_us"])) < 1e-6, row
    print(f'{row["size_bytes"]:>8} B  ibv {ibv["median_us"]:10.2f} us  tcp {tcp["median_us"]:10.2f} us  '
          f'tcp/ibv {tcp["ratio"]:.2f}')
print("PASS: ibv and tcp compared")
PY
