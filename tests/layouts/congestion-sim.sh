#!/usr/bin/env bash
# congestion over sim in virtual time with a per-link table (--sim-links).
# sim has no shared receive NIC, but it has what makes a root a bottleneck:
# a rank's sends share its one NIC (g + (s-1) G per message, G of the link
# used), and a rank's receives each take its CPU o_r + (s-1) O_r. So, with
# the root serving its N peers message by message, every flow of round N
# moves one message per cycle of
#     out (1toN): max(sum over the N peers j of g + (s-1) G(root, j),  o_r + (s-1) O_r)
#                 the root's NIC                                   each receiver's CPU
#     in  (Nto1): max(max over the N peers j of g + (s-1) G(j, root), N (o_r + (s-1) O_r))
#                 the slowest sender's NIC                        the root's CPU
# and the test asserts every flow's bandwidth s / cycle within 3%, the
# aggregate their sum, and a max-rate fit whose k* lies where the two
# limits cross (within 25%: the model's one R_C stands for links that
# differ), with its error stated.
#     congestion-sim.sh in|out P
source "$(dirname "$0")/common.sh"
DIRECTION=$1
P=$2
LINKS=$SCRATCH/links.txt
OUT=$SCRATCH/congestion.json
if [[ $DIRECTION == out ]]; then OR_PER_BYTE=0.003; else OR_PER_BYTE=0.0016; fi

# The root's links to its peers (G from 0.001 up) and back (0.004 up) differ.
python3 - "$P" > "$LINKS" <<'PY'
import sys
P = int(sys.argv[1])
print("# FROM TO L(us) G(us/byte)")
for i in range(P):
    for j in range(P):
        if i != j:
            G = 0.001 + 0.0001 * j if i == 0 else 0.004 + 0.0002 * i if j == 0 else 0.001
            print(i, j, 5, G)
PY

ARGS=(-m sim --sim-clock virtual --sim-sleep 20 --sim-links "$LINKS" --sim-Or "$OR_PER_BYTE" -x congestion
      --congestion-direction "$DIRECTION" -s 64Ki -c 3 -o "$OUT")
if (( P % 2 == 1 )); then
    command -v mpirun >/dev/null || skip "odd P needs mpirun (install openmpi-bin)"
    layouts_mpirun "$P" "$NGX" "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "the run failed"; }
else
    ngx_deadline 60 --pairs $((P / 2)) "${ARGS[@]}" > "$SCRATCH/out.txt" 2>&1 ||
        { cat "$SCRATCH/out.txt"; fail "the run failed"; }
fi

python3 - "$OUT" "$LINKS" "$P" "$DIRECTION" "$OR_PER_BYTE" <<'PY' || exit 1
import json, sys
out, links, P, direction, Or = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
d = json.load(open(out))
run = d.get("runs", [d])[0]
if run["status"] != "complete":
    sys.exit("FAIL: run status %s: %s" % (run["status"], run.get("error")))
c = run["model"]["congestion"]
G = {}
for line in open(links):
    if not line.startswith("#"):
        i, j, _, g = line.split()
        G[int(i), int(j)] = float(g)
s, gap, o_r = 65536, 2.0, 1.0  # the size of -s, sim's default g and o_r
nic = lambda i, j: gap + (s - 1) * G[i, j]
cpu = o_r + (s - 1) * Or
if c["direction"] != direction or c["rounds_done"] != P - 1 or len(c["per_flows"]) != P - 1:
    sys.exit("FAIL: direction %s, %s of %d rounds" % (c["direction"], c["rounds_done"], P - 1))
bad = []
for point in c["per_flows"]:
    N, peers = point["flows"], point["peers"]
    if peers != list(range(1, N + 1)):
        bad.append("round %d: peers %s" % (N, peers))
        continue
    if direction == "out":
        cycle = max(sum(nic(0, j) for j in peers), cpu)
    else:
        cycle = max(max(nic(j, 0) for j in peers), N * cpu)
    want = s / cycle
    for j, got in zip(peers, point["flow_MBps"]):
        if got is None or abs(got - want) > 0.03 * want:
            bad.append("N = %d, flow of rank %d: %s MB/s, expected %.1f" % (N, j, got, want))
    if abs(point["aggregate_MBps"] - sum(point["flow_MBps"])) > 1e-6 * point["aggregate_MBps"]:
        bad.append("N = %d: the aggregate is not the flows' sum" % N)
if bad:
    sys.exit("FAIL:\n  " + "\n  ".join(bad[:10]))
m = c["maxrate"]
if not isinstance(m.get("error"), dict):
    sys.exit("FAIL: no max-rate fit: %s" % m)
# Where one flow's limit times N meets the root's: the peers' mean link rate against the root's.
if direction == "out":
    R_C, R_N = s / cpu, s / (sum(nic(0, j) for j in range(1, P)) / (P - 1))
else:
    R_C, R_N = s / (sum(nic(j, 0) for j in range(1, P)) / (P - 1)), s / cpu
k_star = R_N / R_C
if m["k_star"] is None or abs(m["k_star"] - k_star) > 0.25 * k_star:
    sys.exit("FAIL: fitted k* %s, the limits cross at %.2f" % (m["k_star"], k_star))
print("ok: %s, P = %d: %d rounds, every flow within 3%% of s / cycle; max-rate fit k* %.2f (limits cross at %.2f), "
      "R_N %.0f MB/s, R_C %.0f MB/s, mean relative error %.3f" %
      (direction, P, P - 1, m["k_star"], k_star, m["R_N_MBps"] or float("inf"), m["R_C_MBps"],
       m["error"]["mean_relative"]))
PY
