#!/bin/bash
# Every run records each rank's CPU use (getrusage, the run-queue wait of
# schedstat) and says when the CPUs, not the network, may have set its time:
# more ranks on a host than it has CPUs is named in the table, the JSON and
# the warnings; two ranks on a host of two or more CPUs are not; a run timed
# by the sim's virtual clock never is, however many ranks share the CPUs.
source "$(dirname "$0")/../lib/ngx-run.sh"
cpus=$(getconf _NPROCESSORS_ONLN)
pairs=$((cpus / 2 + 1)) # one rank more than CPUs, at least
ngx_run 120 --pairs "$pairs" -m tcp -x pingpong -s 1,64 -c 20 --warmup 2 -o over.json
[[ $RC == 0 ]] || fail "ngx --pairs $pairs -m tcp -x pingpong: exit $RC"
grep -q "^# warning: the CPUs, not the network, may have set this run's time: $((2 * pairs)) ranks share the $cpus CPUs" out ||
    fail "no warning in the table for $((2 * pairs)) ranks on $cpus CPUs: $(grep '^# ' out | head -5)"
python3 - over.json err "$((2 * pairs))" "$cpus" <<'PY' || fail "the CPU verdict of over.json"
import json, sys
d, ranks, cpus = json.load(open(sys.argv[1])), int(sys.argv[3]), int(sys.argv[4])
cpu = d["cpu_use"]
assert cpu["cpu_bound"], cpu
assert len(cpu["ranks"]) == ranks and sorted(r["rank"] for r in cpu["ranks"]) == list(range(ranks)), cpu["ranks"]
for r in cpu["ranks"]:
    assert r["cpus_online"] == cpus and 0 < r["wall_s"] and 0 <= r["cpu_s"] <= 1.1 * r["wall_s"] + 0.05, r
assert any(f"{ranks} ranks share the {cpus} CPUs" in w for w in d["warnings"]), d["warnings"]
printed = [l.strip() for l in open(sys.argv[2]) if "may have set this run's time" in l]
assert printed, "not on stderr"
PY
ok "$((2 * pairs)) ranks on $cpus CPUs: warned in the table, the JSON and on stderr"

if ((cpus >= 2)); then
    ngx_run 60 -m tcp -x pingpong -s 1,64 -c 20 -o two.json
    [[ $RC == 0 ]] || fail "ngx -m tcp -x pingpong: exit $RC"
    grep -q "^# CPUs: 2 ranks on a CPU\|^# warning: the CPUs" out || fail "no CPU line in the table"
    python3 - two.json <<'PY' || fail "the CPU record of two.json"
import json, sys
d = json.load(open(sys.argv[1]))
cpu = d["cpu_use"]
assert len(cpu["ranks"]) == 2, cpu
assert not any("ranks share the" in reason for reason in cpu["reasons"]), cpu["reasons"]
# whether a rank waited for a CPU depends on the machine's load: recorded, not asserted
print("two ranks: waited at most", cpu["max_waiting_share"], "reasons", cpu["reasons"])
PY
    ok "two ranks on $cpus CPUs: recorded, not counted as oversubscribed"
fi

ngx_run 120 --pairs "$pairs" -m sim --sim-clock virtual -x pingpong -s 1,64 -c 20 --warmup 2 -o virtual.json
[[ $RC == 0 ]] || fail "ngx --pairs $pairs -m sim --sim-clock virtual: exit $RC"
grep -q "^# CPUs: the sim's virtual clock timed this run" out || fail "no virtual-clock line in the table: $(grep '^# ' out | tail -3)"
! grep -q "may have set this run's time" out err || fail "a virtual-time run is called CPU-bound"
python3 - virtual.json "$((2 * pairs))" <<'PY' || fail "the CPU record of virtual.json"
import json, sys
cpu = json.load(open(sys.argv[1]))["cpu_use"]
assert cpu["clock"] == "virtual" and not cpu["cpu_bound"] and cpu["reasons"] == [], cpu
assert len(cpu["ranks"]) == int(sys.argv[2]), cpu["ranks"]
PY
ok "$((2 * pairs)) ranks in the sim's virtual time: recorded, never CPU-bound"
