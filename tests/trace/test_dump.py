"""test_dump.py NGX-TRACE-DUMP: the reader against traces written here byte
by byte (tools/trace/ngx_trace_format.h), no MPI needed, so it also runs
under the sanitizers: a valid trace is printed with times on rank 0's clock
(offset and drift), and every kind of damage exits 2 with its message."""
import json
import os
import struct
import subprocess
import sys
import tempfile

DUMP = sys.argv[1]
HEADER = struct.Struct("<8sIIIIiiIIqQ" + "qqqq" * 2 + "64s72s")
RECORD = struct.Struct("<HHIiiqqQQQii")
KIND = {"completion": 1, "isend": 20, "recv": 23, "wait": 27, "send": 16, "barrier": 48}
assert HEADER.size == 256 and RECORD.size == 64


def header(rank, size, finalized=True, version=1, init=(1000, 0, 0), fini=(1001000, 0, 0), magic=b"NGXTRACE"):
    return HEADER.pack(magic, version, 0x01020304, 256, 64, rank, size, 1 if finalized else 0, 1, 4242, 0,
                       *init, 0, *fini, 0, b"host", b"")


def record(kind, t_call, t_return, peer=-1, tag=0, nbytes=0, request=0, aux=0, flags=0):
    return RECORD.pack(KIND.get(kind, kind) if isinstance(kind, str) else kind, flags, 0, peer, tag, t_call, t_return,
                       nbytes, 0, request, aux, 0)


def good_rank(rank, **kw):
    """A barrier, an Isend, its Wait and the completion."""
    peer = 1 - rank
    return header(rank, 2, **kw) + b"".join([
        record("barrier", 2000, 3000),
        record("isend", 501000, 502000, peer=peer, tag=5, nbytes=8, request=1),
        record("wait", 503000, 504000, nbytes=1, aux=1),
        record("completion", 504000, 504000, peer=peer, request=1, flags=4),
    ])


def run(files, *args):
    with tempfile.TemporaryDirectory() as d:
        for rank, data in enumerate(files):
            if data is not None:
                with open(os.path.join(d, f"rank-{rank:05d}.ngxt"), "wb") as f:
                    f.write(data)
        p = subprocess.run([DUMP, *args, d], capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr


failures = []


def expect(name, files, code, message="", *args):
    rc, out, err = run(files, *args)
    ok = rc == code and message in err
    print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {rc}; {err.strip().splitlines()[-1] if err.strip() else ''}")
    if not ok:
        failures.append(f"{name}: exit {rc} (expected {code}), stderr {err!r} (expected {message!r})")
    return out


# a valid trace; rank 1's clock is 1000 ns ahead at init and 2000 ns at fini (1 us over 1 ms: drift 0.001)
drifted = good_rank(1, init=(1000, 1000, 500), fini=(1001000, 2000, 500))
out = expect("valid", [good_rank(0), drifted], 0, "", "--json")
lines = [json.loads(line) for line in out.splitlines()]
isend = [r for r in lines if r.get("kind") == "isend" and r["rank"] == 1][0]
head = [h for h in lines if h["type"] == "header" and h["rank"] == 1][0]
if isend["t_call_aligned"] != 501000 - (1000 + 500) or abs(head["drift"] - 0.001) > 1e-12:
    failures.append(f"aligned time {isend['t_call_aligned']} (expected 499500), drift {head['drift']}")
if len(lines) != 10:
    failures.append(f"{len(lines)} JSON lines, expected 2 headers + 8 records")
text = expect("valid, text", [good_rank(0), good_rank(1)], 0)
if "isend" not in text or "# rank 1 of 2" not in text:
    failures.append(f"text output: {text!r}")
if expect("quiet", [good_rank(0), good_rank(1)], 0, "", "--quiet") != "":
    failures.append("--quiet printed records")
expect("not finalized", [good_rank(0), good_rank(1, finalized=False)], 0, "never reached MPI_Finalize")
cut_wait = header(0, 1, finalized=False) + record("wait", 10, 20, aux=2) + record("completion", 20, 20, request=3)
expect("killed inside a Wait's completions", [cut_wait], 0, "never reached MPI_Finalize")

expect("truncated records", [good_rank(0), good_rank(1)[:-1]], 2, "rank-00001.ngxt: truncated")
expect("truncated header", [good_rank(0)[:100], good_rank(1)], 2, "shorter than the 256-byte header")
expect("missing rank", [good_rank(0), None], 2, "rank-00001.ngxt: missing rank file")
expect("bad magic", [good_rank(0), header(1, 2, magic=b"NOTTRACE")], 2, "bad magic")
expect("other version", [header(0, 1, version=2)], 2, "format version 2")
expect("rank in the wrong file", [good_rank(0), good_rank(0)], 2, "holds another rank")
expect("world sizes differ", [good_rank(0), header(1, 3)], 2, "world size differs")
expect("unknown kind", [header(0, 1) + record(999, 1, 2)], 2, "unknown kind")
expect("returns before its call", [header(0, 1) + record("send", 5, 4, peer=0)], 2, "returns before it is called")
expect("stray completion", [header(0, 1) + record("completion", 1, 1)], 2, "no Wait/Test call announced")
short_wait = header(0, 1) + record("wait", 1, 2, aux=2) + record("completion", 2, 2) + record("barrier", 3, 4)
expect("too few completions", [short_wait], 2, "wrong number of completion records")
expect("empty directory", [], 2, "rank-00000.ngxt: missing rank file")
rc = subprocess.run([DUMP], capture_output=True).returncode
rc_opt = subprocess.run([DUMP, "--bogus", "x"], capture_output=True).returncode
if rc != 2 or rc_opt != 2:
    failures.append(f"usage errors exit {rc} and {rc_opt}, expected 2")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
