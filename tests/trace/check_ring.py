"""check_ring.py P < dump.jsonl: the trace of ring.c (tests/trace/ring.c) run
with P ranks shows, per rank, exactly the calls ring.c made. Exits 1 with the
differences."""
import collections
import json
import sys

P = int(sys.argv[1])
SMALL, LARGE, MANY = 64, 1 << 20, 1000
lines = [json.loads(line) for line in sys.stdin if line.strip()]
headers = {h["rank"]: h for h in lines if h["type"] == "header"}
records = collections.defaultdict(list)
for r in lines:
    if r["type"] == "record":
        records[r["rank"]].append(r)
errors = []


def check(cond, what):
    if not cond:
        errors.append(what)


def calls(rank, kind, **fields):
    return [r for r in records[rank] if r["kind"] == kind and all(r[k] == v for k, v in fields.items())]


def collective_bytes(rank):
    """(kind, (root, bytes sent, bytes received)) of ring.c's collectives(), 4-byte blocks."""
    def rooted(root):  # the root's P-block buffer counts only at the root
        return 4 * P if rank == root else 0
    return [("barrier", (-1, 0, 0)),
            ("reduce", (2 % P, 4, 4 if rank == 2 % P else 0)),
            ("allgather", (-1, 4, 4 * P)),
            ("alltoall", (-1, 4 * P, 4 * P)),
            ("gather", (0, 4, rooted(0))),  # in place at the root: its own block
            ("scatter", (1, rooted(1), 4)),
            ("gatherv", (0, 4, rooted(0))),
            ("scatterv", (P - 1, rooted(P - 1), 4)),
            ("allgatherv", (-1, 4, 4 * P)),
            ("alltoallv", (-1, 4 * P, 4 * P))]


def expected_counts(rank):
    """Kind -> number of calls ring.c makes on this rank."""
    counts = {"send": 2, "recv": 2, "irecv": 2 + MANY, "isend": 2 + MANY, "waitall": 2, "completion": 4 + 2 * MANY,
              "sendrecv": 1, "allreduce": 1, "bcast": 1}
    counts.update({kind: 1 for kind, _ in collective_bytes(rank)})
    if rank == P - 1:  # the wildcard's sender, and rank 0 of the reversed communicator
        counts["send"] += 2
        counts["comm_def"] = 1
    if rank == 0:  # the wildcard receive; the Isend + Wait probed by rank 1
        counts["recv"] += 1
        counts["isend"] += 1
        counts["wait"] = 1
        counts["completion"] += 1
    if rank == 1:  # Probe, Irecv, MPI_Test until done (how many Tests is up to timing)
        counts.update(probe=1, irecv=counts["irecv"] + 1, completion=counts["completion"] + 1)
    if rank == P - 2:
        counts["recv"] += 1
        counts["comm_def"] = 1
    return counts


def check_rank(rank):
    right, left = (rank + 1) % P, (rank + P - 1) % P
    got = collections.Counter(r["kind"] for r in records[rank])
    tests = got.pop("test", 0)
    got.pop("flush", None)  # as many as the buffer size makes
    check(dict(got) == expected_counts(rank), f"rank {rank}: calls {dict(got)}, expected {expected_counts(rank)}")
    check((tests >= 1) == (rank == 1), f"rank {rank}: {tests} MPI_Test calls")
    check(len(calls(rank, "irecv", tag=80, peer=left, bytes=4)) == MANY, f"rank {rank}: the {MANY} irecvs")
    check(len(calls(rank, "isend", tag=80, peer=right, bytes=4)) == MANY, f"rank {rank}: the {MANY} isends")
    check(headers.get(rank, {}).get("requests_untracked") == 0, f"rank {rank}: requests untracked")
    for tag, size in ((10, SMALL), (11, LARGE)):
        check(len(calls(rank, "send", tag=tag, peer=right, bytes=size)) == 1, f"rank {rank}: ring send tag {tag}")
        check(len(calls(rank, "recv", tag=tag, peer=left, aux=left, bytes=size)) == 1, f"rank {rank}: ring recv {tag}")
    check(len(calls(rank, "irecv", tag=20, peer=left, bytes=128)) == 1, f"rank {rank}: irecv tag 20")
    check(len(calls(rank, "irecv", tag=21, peer=right, bytes=64)) == 1, f"rank {rank}: irecv tag 21")
    check(len(calls(rank, "isend", tag=20, peer=right, bytes=128)) == 1, f"rank {rank}: isend tag 20")
    check(len(calls(rank, "isend", tag=21, peer=left, bytes=64)) == 1, f"rank {rank}: isend tag 21")
    check(len(calls(rank, "sendrecv", tag=40, peer=right, bytes=64, bytes_recv=64, aux=left, tag_recv=40)) == 1,
          f"rank {rank}: sendrecv")
    check(len(calls(rank, "allreduce", bytes=8, bytes_recv=8, peer=-1)) == 1, f"rank {rank}: allreduce")
    at_root = rank == 1 % P
    check(len(calls(rank, "bcast", bytes=100 if at_root else 0, bytes_recv=0 if at_root else 100, peer=1 % P)) == 1,
          f"rank {rank}: bcast from root 1")
    for kind, (root, sent, received) in collective_bytes(rank):
        check(len(calls(rank, kind, peer=root, bytes=sent, bytes_recv=received)) == 1,
              f"rank {rank}: {kind}: {calls(rank, kind)}, expected root {root} bytes {sent} received {received}")
    check_requests(rank)
    check(all(r["t_call"] <= r["t_return"] for r in records[rank]), f"rank {rank}: a call returns before it is called")


def check_requests(rank):
    """Every Isend/Irecv id is completed exactly once, by the Waitall, with the receive's source, tag and bytes."""
    started = {r["request"]: r for r in records[rank] if r["kind"] in ("isend", "irecv")}
    done = [r for r in records[rank] if r["kind"] == "completion"]
    check(sorted(started) == sorted(r["request"] for r in done) and 0 not in started,
          f"rank {rank}: request ids {sorted(started)} vs completed {[r['request'] for r in done]}")
    for c in done:
        s = started.get(c["request"])
        if s is None:
            continue
        check(c["peer"] == s["peer"], f"rank {rank}: request {c['request']} completed with peer {c['peer']}")
        if s["kind"] == "irecv":
            check(c["tag"] == s["tag"] and c["bytes"] == s["bytes"], f"rank {rank}: irecv {c['request']} status")
        else:
            check(c["flags"] & 4, f"rank {rank}: send completion {c['request']} not flagged as a send")


def check_special():
    """The wildcard receive resolved to rank P-1; the reversed communicator's send in world ranks."""
    wild = calls(0, "recv", tag=30)
    check(len(wild) == 1 and wild[0]["peer"] == P - 1 and wild[0]["aux"] == -2 and wild[0]["bytes"] == 8,
          f"rank 0: the MPI_ANY_SOURCE receive {wild}")
    check(len(calls(P - 1, "send", tag=30, peer=0, bytes=8)) == 1, "the wildcard's send")
    probe = calls(1, "probe", tag=90)
    check(len(probe) == 1 and probe[0]["peer"] == 0 and probe[0]["bytes"] == 12, f"rank 1: the probe {probe}")
    tests = calls(1, "test")
    check(all(t["aux"] == 0 for t in tests[:-1]) and tests[-1]["aux"] == 1, "rank 1: only the last MPI_Test completes")
    check(len(calls(0, "wait", aux=1)) == 1, "rank 0: the MPI_Wait of the probed Isend")
    sent = calls(P - 1, "send", tag=50)
    got = calls(P - 2, "recv", tag=50)
    check(len(sent) == 1 and sent[0]["peer"] == P - 2 and sent[0]["comm"] >= 2 and sent[0]["bytes"] == 4,
          f"reversed communicator: send {sent}")
    check(len(got) == 1 and got[0]["peer"] == P - 1 and got[0]["aux"] == P - 1, f"reversed communicator: recv {got}")
    defs = [calls(r, "comm_def")[0]["request"] for r in (P - 2, P - 1) if calls(r, "comm_def")]
    check(len(defs) == 2 and defs[0] == defs[1], f"the reversed communicator's hash differs between ranks: {defs}")


def check_clocks():
    check(sorted(headers) == list(range(P)), f"headers of ranks {sorted(headers)}")
    for rank, h in headers.items():
        check(h["world_size"] == P and h["finalized"], f"rank {rank}: header {h}")
        check(h["fini_t"] > h["init_t"] > 0, f"rank {rank}: clock alignment times {h['init_t']} {h['fini_t']}")
        if rank == 0:
            check(h["init_offset_ns"] == 0 and h["fini_offset_ns"] == 0, "rank 0: offset not 0")
        else:
            check(h["init_rtt_ns"] > 0 and h["fini_rtt_ns"] > 0, f"rank {rank}: no alignment round trip")
        # the rank's CPU use between the alignments: some CPU time, no more than the span allows
        span_ns = h["fini_t"] - h["init_t"]
        check(h["cpu_ns"] is not None and 0 < h["cpu_ns"] <= 1.1 * span_ns + 5e7,
              f"rank {rank}: cpu_ns {h['cpu_ns']} over a span of {span_ns} ns")
        check(h["cpus_online"] is not None and h["cpus_online"] > 0, f"rank {rank}: cpus_online {h['cpus_online']}")
        check(h["waiting_ns"] is None or h["waiting_ns"] >= -1, f"rank {rank}: waiting_ns {h['waiting_ns']}")


for rank in range(P):
    check_rank(rank)
check_special()
check_clocks()
for e in errors:
    print("MISMATCH:", e)
for rank in range(P):
    h = headers.get(rank, {})
    print(f"rank {rank}: {len(records[rank])} records, offset init {h.get('init_offset_ns')} ns "
          f"(rtt {h.get('init_rtt_ns')} ns), fini {h.get('fini_offset_ns')} ns, drift {h.get('drift')}")
sys.exit(1 if errors else 0)
