#!/bin/bash
# The environment in every result (what Hoefler and Belli, SC15, ask a
# benchmark to report): a sim run's JSON carries the CPU clock and governors,
# the load before and after, the network interfaces with their MTU, each rank's host,
# CPU and SMT siblings, the module versions, the MPI library (builds with
# MPI) and the timer; its warnings are those printed on stderr.
source "$(dirname "$0")/../lib/ngx-run.sh"
ngx_run 60 -m sim -x pingpong -s 1-64 -c 50 -o env.json
[[ $RC == 0 ]] || fail "ngx -m sim -x pingpong: exit $RC"
python3 - env.json err <<'PY' || fail "the environment in env.json"
import json, sys
d = json.load(open(sys.argv[1]))
for key in ("cpu", "cpu_mhz", "frequency_governors", "kernel", "load_average_1min", "load_average_1min_after",
            "network_interfaces", "module_versions", "timer", "placement", "warnings"):
    assert key in d, f"missing {key}"
names = {i["name"]: i for i in d["network_interfaces"]}
mtu = int(open("/sys/class/net/lo/mtu").read())
assert names["lo"]["mtu"] == mtu, (names.get("lo"), mtu)
assert d["module_versions"].get("sim"), d["module_versions"]
assert d["timer"]["overhead_ns"] > 0
for rank in d["placement"]:
    assert rank["host"] and "smt_siblings" in rank and "affinity" in rank, rank
    siblings = open(f"/sys/devices/system/cpu/cpu{rank['running_on_cpu']}/topology/thread_siblings_list").read().strip()
    assert rank["smt_siblings"] == siblings, (rank, siblings)
load = d["load_average_1min"]
assert any("load average" in w for w in d["warnings"]) == (load >= 1), (load, d["warnings"])
printed = [line[len("ngx: warning: "):].rstrip("\n") for line in open(sys.argv[2]) if line.startswith("ngx: warning: ")]
assert printed == d["warnings"], (printed, d["warnings"])
print("environment:", d["cpu"], d["cpu_mhz"], "MHz, governors", d["frequency_governors"], "load", load, "->",
      d["load_average_1min_after"], "warnings", d["warnings"], "mpi", d.get("mpi_library"))
PY
ok "the environment is in the result, its warnings on stderr"
