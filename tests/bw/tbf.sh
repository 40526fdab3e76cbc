#!/bin/bash
# tbf.sh: over a link of known rate the bw pattern's streaming bandwidth at
# large sizes is physical: two namespaces joined by a veth pair, tbf at
# NGX_TEST_TBF_MBIT (default 200) Mbit/s both ways; `ngx --listen` in one,
# `ngx --connect -m tcp -x bw` in the other, 256 KiB and 1 MiB in windows
# of 16; then both ways at once over the mpi module under mpirun. The
# bandwidth must not exceed the rate by more than 10% (tbf's bucket and its
# count of the headers) and must reach at least half of it (a functional
# bound: how close it comes, within 1-3%, is bench/bw/tbf.sh's question,
# results in bench/results/netpipe.md).
source "$NGX_SOURCE_ROOT/tests/lib/ngx-run-netns.sh"
need_tool python3
netns_require tbf
"$NGX" --list-modules 2>/dev/null | grep -q '^  tcp ' || skip "module tcp not built"
netns_init
rate=${NGX_TEST_TBF_MBIT:-200}
netns_veth_pair v || fail "veth pair"
netns_tbf v "${rate}mbit" 4kb 50ms || fail "tbf"
a=$(netns_get v ns_a) b=$(netns_get v ns_b) ip=$(netns_get v ip_a)
port=7431
netns_bg "$a" "$IT_DIR/server.log" "$NGX" --listen "$ip:$port" --accept-timeout 30 --timeout 20
srv=$NETNS_BG_PID
ip netns exec "$b" timeout -k 5 120 "$NGX" --connect "$ip:$port" --timeout 20 -m tcp -x bw -s 256Ki,1Mi \
    --bw-window 16 -c 8 --warmup 1 -o "$IT_DIR/tbf.json" >"$IT_DIR/out" 2>"$IT_DIR/err" </dev/null
rc=$?
netns_wait_bg "$srv" 20 || echo "server: $(tr '\n' ' ' <"$IT_DIR/server.log")"
[[ $rc == 0 ]] || fail "client exit $rc: $(tail -3 "$IT_DIR/err")"
python3 - "$IT_DIR/tbf.json" "$rate" <<'PY' || fail "bandwidth outside the link's physical bounds"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
rate_MBps = float(sys.argv[2]) / 8  # Mbit/s to 10^6 bytes per second
assert [r["size_bytes"] for r in rows] == [262144, 1048576], [r["size_bytes"] for r in rows]
for r in rows:
    bw = r["bandwidth_MBps"]
    print(f"{r['size_bytes']} B: {bw:.2f} MB/s over a {rate_MBps:.2f} MB/s link ({100 * bw / rate_MBps:.1f}%)")
    assert 0.5 * rate_MBps <= bw <= 1.1 * rate_MBps, (r["size_bytes"], bw, rate_MBps)
PY
ok "bandwidth over tbf ${rate} Mbit/s within the link's physical bounds"

# Both ways at once (--bw-direction bi needs non-blocking calls: the mpi
# module under mpirun across the two namespaces, the tcp BTL without its
# put flag, with which two large messages crossing on one connection take
# turns). Each direction has its own tbf, so each may reach the rate but not
# pass it; bandwidth_MBps counts both directions, as osu_bibw does. Where
# the run says the CPUs set its time, only the upper bound holds.
if [[ -n ${NGX_TEST_SANITIZED:-} ]]; then
    echo "both ways: not run in the sanitized build (Open MPI is not instrumented)"
elif ! command -v mpirun >/dev/null || ! "$NGX" --list-modules 2>/dev/null | grep -q '^  mpi '; then
    echo "both ways: not run (no mpirun or no mpi module)"
else
    NETNS_MPI_TIMEOUT=120 netns_mpirun v -x NGX_MODULE_PATH -x NGX_PATTERN_PATH \
        --mca btl_tcp_flags send,inplace,need-ack,need-csum -- \
        "$NGX" -m mpi --cpus 0,1 -x bw --bw-direction bi -s 1Mi --bw-window 8 -c 4 --warmup 1 --timeout 30 \
        -o "$IT_DIR/bi.json" >"$IT_DIR/bi.out" 2>"$IT_DIR/bi.err" || FAIL_STDERR=$IT_DIR/bi.err fail "both ways under mpirun"
    python3 - "$IT_DIR/bi.json" "$rate" <<'PY' || fail "both ways: bandwidth outside the link's physical bounds"
import json, sys
run = json.load(open(sys.argv[1]))
rate_MBps = float(sys.argv[2]) / 8
assert run["options"]["pattern_options"]["direction"] == "bi", run["options"]["pattern_options"]
cpu_bound = run["cpu_use"]["cpu_bound"]
for r in run["results"]:
    per_direction = r["bandwidth_MBps"] / 2
    print(f"{r['size_bytes']} B both ways: {per_direction:.2f} MB/s per direction over a {rate_MBps:.2f} MB/s link "
          f"({100 * per_direction / rate_MBps:.1f}%), CPU-bound: {cpu_bound}")
    assert per_direction <= 1.1 * rate_MBps, (r["size_bytes"], per_direction, rate_MBps)
    assert cpu_bound or per_direction >= 0.5 * rate_MBps, (r["size_bytes"], per_direction, rate_MBps)
PY
    ok "both ways over tbf ${rate} Mbit/s within the link's physical bounds per direction"
fi
echo PASS
