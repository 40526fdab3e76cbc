#!/usr/bin/env python3
"""Checks of t-mpi-verbs.sh (MPI over verbs next to raw verbs).

    check_mpi_verbs.py bytes MPI.json --mtu M --sent N --received N --device D [--ranks-here 1|2]
        the device's packet counters moved during the MPI run by at least the
        packets its measured messages need: per size, samples x 2 messages
        (a ping-pong sample is one round trip) x ceil(size / MTU), at least 1;
        with --ranks-here 1 (the other rank on another node's device) the
        device sends one of the two messages and receives the other, so half;
        so the device carried at least the bytes the run measured (summed
        over every run in the file: ibv and mpi of `ngx -m ibv,mpi`)
    check_mpi_verbs.py bw RUN.json --mtu M --sent N --received N --device D [--ranks-here 1|2]
                      [--netdev NAME --netdev-sent B --netdev-received B]
        `ngx -x bw --verify` (send, put or get; rank 0, the driver, here):
        complete, payloads verified, and the device's packet counters in the
        payload's direction (send, put: sent by the driver; get: the read
        responses it received) moved by at least samples x window x
        ceil(size / MTU) packets; with --ranks-here 2 both counters, as the
        device then carries each packet out and in. With --netdev (the
        netdev rxe sends over, between two guests) its byte counter in that
        direction moved by at least the payload bytes: the bytes crossed
    check_mpi_verbs.py split BOTH.json --into DIR
        writes the two runs of BOTH.json as DIR/ibv.json and DIR/mpi.json
    check_mpi_verbs.py table BOTH.json --compared COMPARE.json [--compared ...]
        BOTH.json holds the ibv and mpi runs of `ngx -m ibv,mpi`; its
        comparison and each `ngx compare --json` agree, and per size diff and
        ratio are the MPI median minus and over the verbs median
    check_mpi_verbs.py one-byte BOTH.json
        both runs have a 1 B result; prints raw verbs next to MPI over verbs
        and whether one is slower (the verbs median's 95% interval wholly
        above MPI's), a timing relation reported, not checked, under TCG
    check_mpi_verbs.py loggp BOTH.json
        `ngx -m ibv,mpi -x loggp`: both runs complete, every range of the
        comparison has L, o_s, o_r, g, G and O fitted (finite) for both, each
        with diff = mpi value - ibv value (printed per range)
Exit 0 when the check holds, 1 otherwise (with the reason).
"""
import argparse
import json
import math
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_bytes(args):
    doc = load(args.file)
    # One run, or every run of `ngx -m ibv,mpi` (all of them crossed the device)
    results = doc.get("results") or [r for run in doc.get("runs") or [] for r in run.get("results", [])]
    if not results:
        return ["no results in %s" % args.file]
    messages = packets = 0
    measured = 0
    for r in results:
        size, n = r["size_bytes"], r["count"]
        messages += 2 * n
        measured += 2 * n * size
        packets += args.ranks_here * n * max(1, math.ceil(size / args.mtu))
    print("the run measured %d messages, %d bytes; at MTU %d they need at least %d packets sent"
          " and as many received on %s (%s)" % (messages, measured, args.mtu, packets, args.device,
                                               "both ranks on it" if args.ranks_here == 2
                                               else "one rank on it, the other on another node"))
    print("%s counters during the run: sent_pkts +%d, rcvd_pkts +%d (at most %d payload bytes)"
          % (args.device, args.sent, args.received, args.sent * args.mtu))
    problems = []
    for name, moved in (("sent", args.sent), ("received", args.received)):
        if moved < packets:
            problems.append("%s %s %d packets, fewer than the %d the measured messages need: MPI did not "
                            "send over %s" % (args.device, name, moved, packets, args.device))
    return problems


def check_bw(args):
    doc = load(args.file)
    problems = []
    messages = packets = payload = 0
    for run in doc.get("runs") or [doc]:
        label = "%s bw" % run.get("module")
        if run.get("status") != "complete":
            problems.append("%s: status %r" % (label, run.get("status")))
        if not run.get("options", {}).get("verify"):
            problems.append("%s: ran without --verify" % label)
        op = run["options"]["pattern_options"]["op"]
        for r in run.get("results", []):
            n = int(r["count"] * r["window"])
            messages += n
            payload += n * r["size_bytes"]
            packets += n * max(1, math.ceil(r["size_bytes"] / args.mtu))
    if messages == 0:
        return problems + ["no bw results in %s" % args.file]
    # send and put carry the payload from the driver; a get's read responses carry it to the driver
    way = "received" if op == "get" else "sent"
    print("the run (--bw-op %s) measured %d messages, %d payload bytes; at MTU %d they need at least %d packets %s"
          " by %s (%s)" % (op, messages, payload, args.mtu, packets, way, args.device,
                           "both ranks on it" if args.ranks_here == 2 else "the driver on it, the responder elsewhere"))
    print("%s counters during the run: sent_pkts +%d, rcvd_pkts +%d" % (args.device, args.sent, args.received))
    ways = ("sent", "received") if args.ranks_here == 2 else (way,)
    for name in ways:
        moved = args.sent if name == "sent" else args.received
        if moved < packets:
            problems.append("%s %s %d packets, fewer than the %d the measured messages need: the payload did not "
                            "cross %s" % (args.device, name, moved, packets, args.device))
    if args.netdev:
        moved = args.netdev_sent if way == "sent" else args.netdev_received
        print("%s byte counters during the run: tx +%d, rx +%d (payload %s: %d bytes)"
              % (args.netdev, args.netdev_sent, args.netdev_received, way, payload))
        if moved < payload:
            problems.append("%s %s %d bytes, fewer than the %d payload bytes measured" % (args.netdev, way, moved, payload))
    if not problems:
        print("PASS: %d payload bytes of --bw-op %s crossed %s%s" % (payload, op, args.device,
                                                                     " and " + args.netdev if args.netdev else ""))
    return problems


def size_rows(comparison):
    rows = {}
    for row in comparison["sizes"]:
        by_label = {v["label"]: v for v in row["values"]}
        rows[row["size_bytes"]] = by_label
    return rows


def ibv_mpi(values):
    """The (ibv, mpi) entries of one comparison row, whatever the label prefix."""
    ibv = [v for k, v in values.items() if k == "ibv" or k.endswith(":ibv")]
    mpi = [v for k, v in values.items() if k == "mpi" or k.endswith(":mpi")]
    return (ibv[0] if ibv else None), (mpi[0] if mpi else None)


def medians(run):
    return {r["size_bytes"]: r["median_us"] for r in run["results"]}


def check_table(args):
    doc = load(args.file)
    runs = doc.get("runs", [])
    problems = []
    if [r.get("module") for r in runs] != ["ibv", "mpi"]:
        return ["runs are %s, expected ibv then mpi" % [r.get("module") for r in runs]]
    ibv_med, mpi_med = medians(runs[0]), medians(runs[1])
    sources = [("the run's comparison", doc.get("comparison"))]
    sources += [("ngx compare --json (%s)" % path, load(path)) for path in args.compared]
    for source, comparison in sources:
        if not comparison or not str(comparison.get("baseline")).endswith("ibv"):
            problems.append("%s: baseline is %r, expected ibv" % (source, comparison and comparison.get("baseline")))
            continue
        rows = size_rows(comparison)
        if sorted(rows) != sorted(ibv_med):
            problems.append("%s: sizes %s, the runs have %s" % (source, sorted(rows), sorted(ibv_med)))
        for size, values in sorted(rows.items()):
            ibv, mpi = ibv_mpi(values)
            if ibv is None or mpi is None:
                problems.append("%s: %d B lacks ibv or mpi" % (source, size))
                continue
            want_diff = mpi_med[size] - ibv_med[size]
            want_ratio = mpi_med[size] / ibv_med[size]
            if not (close(ibv["median_us"], ibv_med[size]) and close(mpi["median_us"], mpi_med[size])):
                problems.append("%s: %d B medians %r/%r, the runs say %r/%r"
                                % (source, size, ibv["median_us"], mpi["median_us"], ibv_med[size], mpi_med[size]))
            if not close(mpi["diff_us"], want_diff) or not close(mpi["ratio"], want_ratio):
                problems.append("%s: %d B diff %r ratio %r, expected %r and %r"
                                % (source, size, mpi["diff_us"], mpi["ratio"], want_diff, want_ratio))
    for size in sorted(ibv_med):
        print("%8d B  ibv %10.2f us  mpi %10.2f us  mpi-ibv %+10.2f us  mpi/ibv %6.2f"
              % (size, ibv_med[size], mpi_med[size], mpi_med[size] - ibv_med[size], mpi_med[size] / ibv_med[size]))
    if not problems:
        print("PASS: comparison table of ibv and mpi checked (%d sizes, %d sources)" % (len(ibv_med), len(sources)))
    return problems


def one_byte(run):
    """The 1 B row of a run: (median, 95% interval low, high) in us, or None."""
    for r in run["results"]:
        if r["size_bytes"] == 1:
            # no interval (too few samples for one): the median stands for both ends
            lo, hi = r.get("median_ci95_lo_us"), r.get("median_ci95_hi_us")
            return r["median_us"], r["median_us"] if lo is None else lo, r["median_us"] if hi is None else hi
    return None


def check_one_byte(args):
    """Raw verbs is slower when its median's 95% interval lies wholly above
    MPI's: at 1 B on rxe both are rxe's kernel path plus a few hundred
    nanoseconds of software, so medians within each other's intervals are a
    tie, not an ordering."""
    runs = load(args.file).get("runs", [])
    if [r.get("module") for r in runs] != ["ibv", "mpi"]:
        return ["runs are %s, expected ibv then mpi" % [r.get("module") for r in runs]]
    ibv, mpi = one_byte(runs[0]), one_byte(runs[1])
    if ibv is None or mpi is None:
        return ["no 1 B result (ibv %r, mpi %r)" % (ibv, mpi)]
    print("1 B half round trip: raw verbs %.2f us [95%%: %.2f, %.2f], MPI over verbs %.2f us [%.2f, %.2f]"
          " (MPI adds %+.2f us)" % (ibv + mpi + (mpi[0] - ibv[0],)))
    if ibv[1] > mpi[2]:
        print("note (TCG timing, not checked): raw verbs slower than MPI over verbs at 1 B: %.2f us (interval from"
              " %.2f) against %.2f us (interval up to %.2f)" % (ibv[0], ibv[1], mpi[0], mpi[2]))
    else:
        print("raw verbs is not slower than MPI over verbs at 1 B")
    return []


# L, o_s, o_r, g, G and O of every range: the parameters a user compares to see
# what MPI adds on top of raw verbs.
LOGGP_PARAMETERS = ("L_us", "o_us", "o_r_us", "g_us", "G_us_per_byte", "O_us_per_byte")


def split_runs(args):
    """BOTH.json's runs as DIR/ibv.json and DIR/mpi.json, one document each."""
    runs = load(args.file).get("runs", [])
    if [r.get("module") for r in runs] != ["ibv", "mpi"]:
        return ["runs are %s, expected ibv then mpi" % [r.get("module") for r in runs]]
    for run in runs:
        with open("%s/%s.json" % (args.into, run["module"]), "w") as f:
            json.dump(run, f)
    return []


def check_loggp(args):
    doc = load(args.file)
    runs = doc.get("runs", [])
    if [r.get("module") for r in runs] != ["ibv", "mpi"]:
        return ["runs are %s, expected ibv then mpi" % [r.get("module") for r in runs]]
    problems, checked = [], 0
    problems += ["the %s run's status is %r" % (r["module"], r.get("status")) for r in runs
                 if r.get("status") != "complete"]
    ranges = [r for r in (doc.get("comparison") or {}).get("model") or [] if r["range"] != "model"]
    if not ranges:
        problems.append("the comparison has no LogGP range")
    for rng in ranges:
        missing = [p for p in LOGGP_PARAMETERS if p not in rng["parameters"]]
        if missing:
            problems.append("range %s: no %s" % (rng["range"], ", ".join(missing)))
        for name, values in rng["parameters"].items():
            ibv, mpi = ibv_mpi({v["label"]: v for v in values})
            if ibv is None or mpi is None:
                problems.append("range %s, %s: lacks ibv or mpi" % (rng["range"], name))
                continue
            if not all(isinstance(v.get("value"), (int, float)) and math.isfinite(v["value"]) for v in (ibv, mpi)):
                if name in LOGGP_PARAMETERS:
                    problems.append("range %s, %s: not fitted (ibv %r, mpi %r)"
                                    % (rng["range"], name, ibv.get("value"), mpi.get("value")))
                continue
            checked += 1
            print("range %-6s %-18s ibv %12.4g  mpi %12.4g  mpi-ibv %+12.4g"
                  % (rng["range"], name, ibv["value"], mpi["value"], mpi["diff"]))
            if not close(mpi["diff"], mpi["value"] - ibv["value"]):
                problems.append("%s: diff %r is not %r - %r" % (name, mpi["diff"], mpi["value"], ibv["value"]))
    if checked == 0:
        problems.append("no LogGP parameter fitted for both ibv and mpi")
    elif not problems:
        print("PASS: %d LogGP parameters of ibv and mpi compared" % checked)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["bytes", "bw", "split", "table", "one-byte", "loggp"])
    parser.add_argument("file")
    parser.add_argument("--mtu", type=int)
    parser.add_argument("--sent", type=int)
    parser.add_argument("--received", type=int)
    parser.add_argument("--device", default="rxe0")
    parser.add_argument("--ranks-here", type=int, choices=[1, 2], default=2)
    parser.add_argument("--netdev")
    parser.add_argument("--netdev-sent", type=int, default=0)
    parser.add_argument("--netdev-received", type=int, default=0)
    parser.add_argument("--compared", action="append", default=[])
    parser.add_argument("--into")
    args = parser.parse_args()
    if args.what in ("bytes", "bw") and None in (args.mtu, args.sent, args.received):
        parser.error(args.what + " needs --mtu, --sent and --received")
    if args.what == "table" and not args.compared:
        parser.error("table needs --compared")
    if args.what == "split" and not args.into:
        parser.error("split needs --into")
    check = {"bytes": check_bytes, "bw": check_bw, "split": split_runs, "table": check_table, "one-byte": check_one_byte,
             "loggp": check_loggp}
    problems = check[args.what](args)
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
