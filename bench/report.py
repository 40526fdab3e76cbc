#!/usr/bin/env python3
"""The one report script of the bench runners: per-tool summaries over
interleaved rounds, ratios to the best peer, goals, the printed tables and
the JSON file.

    report.py tcp-shm SAMPLES.tsv        bench/run-tcp-shm.sh
    report.py udp SAMPLES.tsv            bench/udp/run.sh
    report.py mpi SAMPLES.tsv            bench/mpi/run.sh
    report.py ibv NGX_JSON... -- PERFTEST_OUTPUT... [-- NGX_BATCH_JSON...]   bench/ibv (SoftRoCE guest)
    report.py ibv-bw RUN_DIR             bench/ibv bw.list: ngx -x bw against ib_write_bw, ib_send_bw, ib_read_bw
    report.py ladder SAMPLES.tsv         bench/ladder/run.sh (the variant ladders)
    report.py netpipe SAMPLES.tsv        bench/netpipe/run.sh (bw and pingpong against NPtcp, NPopenmpi)
    report.py ngx-median JSON SIZE       median_us of one ngx result row (bench/lib.sh)
    report.py accuracy SAMPLES.tsv       a real-time figure against what its setup implies, per round
                                         (rows: quantity, round, measured, expected; bench_accuracy in lib.sh)

SAMPLES.tsv has one line per tool run: metric, tool, round, value ("NA" when
the run failed), note. The runners pass their settings as BENCH_* variables
in the environment (see each runner's report step).
"""
import json
import math
import os
import platform
import socket
import statistics
import sys
import time

ENV = os.environ


# ---------------------------------------------------------------- inputs

def read_samples(path):
    """(metric, tool) -> {"values": [...], "rounds": [...], "notes": [...]}"""
    samples = {}
    for line in open(path):
        metric, tool, rnd, value, note = line.rstrip("\n").split("\t")
        s = samples.setdefault((metric, tool), {"values": [], "rounds": [], "notes": []})
        if value != "NA":
            s["values"].append(float(value))
            s["rounds"].append(int(rnd))
        elif note and note not in s["notes"]:
            s["notes"].append(note)
    return samples


def ngx_median(path, size):
    """median_us of the result row with size_bytes == size in an ngx JSON file."""
    with open(path) as f:
        doc = json.load(f)
    for r in doc.get("results", []):
        if int(r.get("size_bytes", -1)) == int(size):
            return float(r["median_us"])
    return None


def perftest_column(path, column="t_typical[usec]"):
    """One column (t_typical, t_avg, ...) of a perftest latency report."""
    with open(path) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if "t_typical" in line:
            header = line.split()
            values = lines[i + 1].split()
            return float(values[header.index(column)])
    raise ValueError("%s: no t_typical line" % path)


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# ---------------------------------------------------------------- summaries

def summary(samples, metric, tool, higher_is_better=False):
    """Rounds, median and best of one tool; status says why there is none."""
    s = samples.get((metric, tool), {"values": [], "rounds": [], "notes": []})
    v = s["values"]
    d = {"rounds": v, "n_rounds": len(v)}
    if v:
        d["median"] = statistics.median(v)
        d["best"] = max(v) if higher_is_better else min(v)
        d["status"] = "ok"
    else:
        d["median"] = None
        d["best"] = None
        d["status"] = s["notes"][0] if s["notes"] else "no data"
    if s["notes"]:
        d["notes"] = s["notes"]
    return d


def ratio(a, b):
    return a / b if a is not None and b else None


# Student t 0.975 quantiles for 1..30 degrees of freedom (beyond: 1.96 + 2.4 / df,
# within 0.3% of the exact value).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042]


def t975(df):
    return T975[df - 1] if df <= len(T975) else 1.96 + 2.4 / df


def round_ratios(samples, metric, ours, theirs):
    """ours / theirs within each round both ran (the rounds alternate the tools)."""
    def by_round(tool):
        s = samples.get((metric, tool), {"values": [], "rounds": []})
        return dict(zip(s["rounds"], s["values"]))
    a, b = by_round(ours), by_round(theirs)
    return [a[r] / b[r] for r in sorted(set(a) & set(b)) if b[r]]


def ratio_interval(ratios):
    """The 95% interval of the ratio over alternated rounds: a Student t
    interval of the mean log ratio (ratios multiply, so their logs are what
    spreads symmetrically), exponentiated: [lo, hi], or None with fewer than
    2 rounds (one run each: no interval can be stated)."""
    if len(ratios) < 2:
        return None
    logs = [math.log(r) for r in ratios]
    mean = statistics.mean(logs)
    half = t975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return [math.exp(mean - half), math.exp(mean + half)]


def interval_text(ratios):
    """"[0.91, 0.99] over 5 alternated rounds" or what stands in for it."""
    ci = ratio_interval(ratios)
    if ci is None:
        return f"no interval: {len(ratios)} round(s), one run each"
    return f"95% [{ci[0]:.3f}, {ci[1]:.3f}] over {len(ratios)} alternated rounds"


# The paired ratio is the median of the per-round ratios: where the machine
# flips between states from one round to the next (the 2-vCPU VM's tcp BTL:
# 4.3 or 5.9 us for every tool), the ratio of the two medians compares
# whichever state each tool met more often; the ratio within a round does not.
def add_paired(group, samples, metric, ours, theirs):
    """The paired ratio of a group, its 95% interval over the rounds and the
    text that says which it is."""
    ratios = round_ratios(samples, metric, ours, theirs) if theirs else []
    group["ngx_ratio_paired"] = statistics.median(ratios) if ratios else None
    group["ngx_ratio_paired_rounds"] = ratios
    group["ngx_ratio_paired_ci95"] = ratio_interval(ratios)
    group["ngx_ratio_paired_interval"] = interval_text(ratios)


def fmt(x, nd=3):
    return "-" if x is None else f"{x:.{nd}f}"


def goal_text(r, limit, lower_is_better=True):
    """("met" | "NOT met" | "n/a", True | False | None)"""
    if r is None:
        return "n/a", None
    met = r <= limit if lower_is_better else r >= limit
    return ("met" if met else "NOT met"), met


def latency_against_peers(samples, metric, tools, peers, unit_text=None):
    """The latency group of a runner: every tool that ran (tools: (name,
    message bytes, meaning)), each tool's ratio to the best peer's median and
    ngx's ratio with the goal ngx / best peer <= 1.05."""
    group = {"unit": "us"}
    if unit_text:
        group["metric"] = unit_text
    group["tools"] = {}
    for tool, size, meaning in tools:
        if not any(key == (metric, tool) for key in samples):
            continue
        d = summary(samples, metric, tool)
        d["message_bytes"] = size
        d["meaning"] = meaning
        group["tools"][tool] = d
    meds = [(group["tools"][t]["median"], t) for t in peers
            if t in group["tools"] and group["tools"][t]["median"] is not None]
    best_val, best_peer = min(meds) if meds else (None, None)
    for d in group["tools"].values():
        d["ratio_to_best_peer"] = ratio(d["median"], best_val)
    group["best_peer"] = best_peer
    group["ngx_ratio"] = group["tools"].get("ngx", {}).get("ratio_to_best_peer")
    add_paired(group, samples, metric, "ngx", best_peer)
    group["goal"] = "ngx / best peer <= 1.05, paired per round"
    group["goal_text"], group["goal_met"] = goal_text(group["ngx_ratio_paired"], 1.05)
    return group


def against_floor(samples, metric, floor, limit, goal, higher_is_better=False, unit="us", text=""):
    """ngx against one reference program (the floor), with a goal on the ratio."""
    group = {"unit": unit, "metric": text,
             "tools": {"ngx": summary(samples, metric, "ngx", higher_is_better),
                       floor: summary(samples, metric, floor, higher_is_better)}}
    group["ngx_ratio"] = ratio(group["tools"]["ngx"]["median"], group["tools"][floor]["median"])
    add_paired(group, samples, metric, "ngx", floor)
    group["goal"] = goal + ", paired per round"
    group["goal_text"], group["goal_met"] = goal_text(group["ngx_ratio_paired"], limit, not higher_is_better)
    return group


# ---------------------------------------------------------------- output

def print_table(title, group, footer, width=10, best_name="min", nd=3, round_nd=None, peers=False):
    """One group as a table: median, best and the rounds of every tool; a
    peer table (peers=True) also shows message sizes and ratios to the best peer."""
    round_nd = nd if round_nd is None else round_nd
    print(title)
    print(f"  {'tool':<{width}}" + (f"{'msg B':>6}" if peers else "") + f"{'median':>10}{best_name:>10}"
          + (f"{'ratio':>8}" if peers else "") + "   rounds")
    for tool, d in group["tools"].items():
        size = f"{d['message_bytes']:>6}" if peers else ""
        if d["median"] is None:
            print(f"  {tool:<{width}}{size}   {d['status']}")
            continue
        ratio_column = f"{fmt(d['ratio_to_best_peer'], 2):>8}" if peers else ""
        print(f"  {tool:<{width}}{size}{fmt(d['median'], nd):>10}{fmt(d['best'], nd):>10}{ratio_column}   "
              + " ".join(fmt(x, round_nd) for x in d["rounds"]))
    print(footer)


def peer_footer(group):
    return (f"  best peer: {group['best_peer'] or '-'}; ngx / best peer = {fmt(group['ngx_ratio'], 3)} (medians), "
            f"{fmt(group['ngx_ratio_paired'], 3)} (median of the per-round ratios, "
            f"{group['ngx_ratio_paired_interval']})   (goal <= 1.05, paired: {group['goal_text']})")


def floor_footer(group, ratio_name, goal_name):
    return (f"  {ratio_name} = {fmt(group['ngx_ratio'], 3)} (medians), {fmt(group['ngx_ratio_paired'], 3)} "
            f"(median of the per-round ratios, {group['ngx_ratio_paired_interval']})   "
            f"({goal_name}, paired: {group['goal_text']})")


def finish(out):
    """The common tail: load, raw logs, and the JSON file when asked for."""
    print(f"load average: start {ENV['BENCH_LOAD_START']}, end {ENV['BENCH_LOAD_END']}")
    if ENV.get("BENCH_LOGS"):
        print(f"raw logs: {ENV['BENCH_LOGS']}")
    if ENV.get("BENCH_OUT"):
        with open(ENV["BENCH_OUT"], "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
        print(f"JSON: {ENV['BENCH_OUT']}")


def strip_text(group):
    """The group as it goes to JSON (goal_text is for the table only)."""
    return {k: v for k, v in group.items() if k != "goal_text"}


def header(schema):
    return {"schema": schema, "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "host": socket.gethostname(), "kernel": platform.release()}


# ---------------------------------------------------------------- runners

def report_tcp_shm(samples_path):
    samples = read_samples(samples_path)
    cpu_a, cpu_b = ENV["BENCH_CPUS"].split(",")
    tcp_tools = [
        ("ngx", 1, "median half round trip (ngx -m tcp -x pingpong, results[].median_us)"),
        ("qperf", 1, "mean one-way latency = elapsed / messages (qperf tcp_lat 'latency')"),
        ("sockperf", 14, "median half round trip (sockperf ping-pong 'percentile 50.000'); 14 B is its minimum message"),
        ("NPtcp", 1, f"min over {ENV['BENCH_NPTCP_TRIALS']} trials of the mean half round trip (np.out column 3)"),
        ("minimal", 1, "median half round trip (bench/minimal/tcp_pingpong)"),
    ]
    out = header("ngx-bench-tcp-shm/1")
    out.update({
        "cpu_model": cpu_model(),
        "online_cpus": os.cpu_count(),
        "load_average_start": ENV["BENCH_LOAD_START"],
        "load_average_end": ENV["BENCH_LOAD_END"],
        "placement": {"cpu_a": int(cpu_a), "cpu_b": int(cpu_b),
                      "note": "servers / echo sides on cpu_a, timing clients on cpu_b; ngx --cpus a,b"},
        "parameters": {"rounds": int(ENV["BENCH_ROUNDS"]), "count": int(ENV["BENCH_COUNT"]),
                       "warmup": int(ENV["BENCH_WARMUP"]), "bw_count": int(ENV["BENCH_BW_COUNT"]),
                       "bw_warmup": int(ENV["BENCH_BW_WARMUP"]),
                       "bw_buffer_page_offset": int(ENV["BENCH_BW_OFFSET"]),
                       "peer_time_s": int(ENV["BENCH_PEER_TIME"]),
                       "nptcp_repeats": int(ENV["BENCH_NPTCP_N"])},
        "versions": {"ngx": ENV["BENCH_V_NGX"], "qperf": ENV["BENCH_V_QPERF"],
                     "sockperf": ENV["BENCH_V_SOCKPERF"], "netpipe-tcp": ENV["BENCH_V_NPTCP"]},
    })
    tcp = latency_against_peers(samples, "tcp_lat_us", tcp_tools, [t for t, _, _ in tcp_tools if t != "ngx"],
                                "half round trip on loopback TCP, small message; per round one number per tool; "
                                "median and min over rounds")
    shm = against_floor(samples, "shm_lat_us", "minimal", 1.05, "ngx / floor <= 1.05",
                        text="median half round trip, 1-byte message, shared memory between two pinned processes")
    bw = against_floor(samples, "tcp_bw_MBps", "minimal", 0.95, "ngx / minimal >= 0.95", higher_is_better=True,
                       unit="MB/s", text="1 MiB TCP ping-pong: 1048576 B / median half round trip (10^6 B/s); "
                       "best = max over rounds")
    out["tcp_latency"] = strip_text(tcp)
    out["shm_latency"] = strip_text(shm)
    out["tcp_bandwidth_1MiB"] = strip_text(bw)
    if ENV.get("BENCH_LOGS"):
        out["raw_logs"] = ENV["BENCH_LOGS"]

    print()
    print_table(f"TCP loopback, small-message half round trip (us); cpus {cpu_a},{cpu_b}; "
                f"{ENV['BENCH_ROUNDS']} rounds; ratio = tool / best peer", tcp, peer_footer(tcp), round_nd=2,
                peers=True)
    print()
    print_table("Shared memory, 1-byte half round trip (us); ratio = ngx / minimal spin ping-pong (the floor)",
                shm, floor_footer(shm, "ngx / floor", "goal <= 1.05"), nd=4)
    print()
    print_table("TCP 1 MiB ping-pong bandwidth (MB/s = 1 MiB / median half round trip; both buffers "
                f"{ENV['BENCH_BW_OFFSET']} bytes into a page); ratio = ngx / minimal",
                bw, floor_footer(bw, "ngx / minimal", "goal >= 0.95"), best_name="max", nd=1)
    print()
    finish(out)


def report_udp(samples_path):
    samples = read_samples(samples_path)
    tools = [("ngx", 1, "median half round trip (ngx -m udp -x pingpong, results[].median_us)"),
             ("ngx-busy-poll", 1, "the same with --udp-busy-poll 1 (spinning receive; not what the peers do)"),
             ("qperf", 1, "mean one-way latency = elapsed / messages (qperf udp_lat 'latency')"),
             ("sockperf", 14, "median half round trip (sockperf ping-pong over UDP, 'percentile 50.000'); "
              "14 B minimum")]
    udp = latency_against_peers(samples, "udp_lat_us", tools, ["qperf", "sockperf"])
    out = header("ngx-bench-udp/1")
    out.update({
        "online_cpus": os.cpu_count(),
        "load_average_start": ENV["BENCH_LOAD_START"], "load_average_end": ENV["BENCH_LOAD_END"],
        "placement": {"cpus": ENV["BENCH_CPUS"], "note": "servers / responders on cpu A, timing sides on cpu B"},
        "parameters": {"rounds": int(ENV["BENCH_ROUNDS"]), "count": int(ENV["BENCH_COUNT"]),
                       "warmup": int(ENV["BENCH_WARMUP"]), "peer_time_s": int(ENV["BENCH_PEER_TIME"])},
        "versions": {"ngx": ENV["BENCH_V_NGX"], "qperf": ENV["BENCH_V_QPERF"], "sockperf": ENV["BENCH_V_SOCKPERF"]},
        "udp_latency": strip_text(udp),
    })
    print()
    print_table(f"UDP loopback, small-message half round trip (us); cpus {ENV['BENCH_CPUS']}; "
                f"{ENV['BENCH_ROUNDS']} rounds; ratio = tool / best peer", udp, peer_footer(udp), width=14,
                round_nd=2, peers=True)
    finish(out)


def report_mpi(samples_path):
    samples = read_samples(samples_path)
    tools = [("ngx", 1, "median half round trip (mpirun ngx -m mpi -x pingpong -s 1, results[].median_us)"),
             ("ngx-batch", 1, "the same with --pingpong-timing batch (median of batch means of 100)"),
             ("minimal", 1, "median half round trip (bench/mpi/pingpong.c: MPI_Init, MPI_Wtime per round trip)"),
             ("NPopenmpi", 1, "NetPIPE's 1-byte time (a mean over its repetitions)")]
    like_for_like = [("ngx", "minimal", "a timer read per round trip"),
                     ("ngx-batch", "NPopenmpi", "one timer read per batch")]
    out = header("ngx-bench-mpi/1")
    out.update({
        "online_cpus": os.cpu_count(),
        "load_average_start": ENV["BENCH_LOAD_START"], "load_average_end": ENV["BENCH_LOAD_END"],
        "placement": {"note": "mpirun -np 2 --bind-to core, the same for every tool"},
        "parameters": {"rounds": int(ENV["BENCH_ROUNDS"]), "count": int(ENV["BENCH_COUNT"])},
        "versions": {"ngx": ENV["BENCH_V_NGX"], "openmpi": ENV["BENCH_V_OPENMPI"],
                     "netpipe": ENV["BENCH_V_NETPIPE"]},
    })
    for btl in ENV["BENCH_BTLS"].split():
        group = latency_against_peers(samples, f"mpi_{btl}_us", tools, ["minimal", "NPopenmpi"])
        pairs = {}
        for ours, theirs, how in like_for_like:
            r = ratio(group["tools"].get(ours, {}).get("median"), group["tools"].get(theirs, {}).get("median"))
            rounds = round_ratios(samples, f"mpi_{btl}_us", ours, theirs)
            paired = statistics.median(rounds) if rounds else None
            pairs[f"{ours}/{theirs}"] = {"ratio": r, "ratio_paired": paired, "timing": how,
                                         "ratio_paired_ci95": ratio_interval(rounds),
                                         "ratio_paired_interval": interval_text(rounds),
                                         "goal_met": goal_text(paired, 1.05)[1]}
        group["like_for_like"] = pairs
        # The goal (within 5% of the floor, the minimal program): each of ngx's
        # timings against the peer that times the same way. The best peer of
        # either timing stays beside it as information.
        met = [p["goal_met"] for p in pairs.values()]
        group["goal"] = "ngx/minimal and ngx-batch/NPopenmpi <= 1.05, paired per round"
        group["goal_met"] = None if None in met else all(met)
        out[f"mpi_{btl}_latency"] = strip_text(group)
        print()
        print_table(f"MPI over the {btl} BTL, 1-byte half round trip (us); {ENV['BENCH_ROUNDS']} rounds; "
                    "ratio = tool / best peer", group,
                    f"  best peer: {group['best_peer'] or '-'}; ngx / best peer = {fmt(group['ngx_ratio'], 3)} "
                    f"(medians), {fmt(group['ngx_ratio_paired'], 3)} (paired; timed differently when the best "
                    "peer is NPopenmpi: information, not the goal)", width=10, peers=True)
        for name, p in pairs.items():
            print(f"  like for like ({p['timing']}): {name} = {fmt(p['ratio'], 3)} (medians), "
                  f"{fmt(p['ratio_paired'], 3)} (paired, {p['ratio_paired_interval']})   (goal <= 1.05, paired: "
                  f"{goal_text(p['ratio_paired'], 1.05)[0]})")
    finish(out)


def report_ibv(args):
    """ngx's per-round-trip median against ib_send_lat's t_typical (its
    median of per-iteration times), and, like for like, ngx's batch means
    (--pingpong-timing batch: one timer read per 100 round trips) against
    ib_send_lat's t_avg (elapsed time over iterations)."""
    parts = [[]]
    for a in args:
        if a == "--":
            parts.append([])
        else:
            parts[-1].append(a)
    ngx = [ngx_median(p, 1) for p in parts[0]]
    typical = [perftest_column(p) for p in parts[1]]
    n, p = statistics.median(ngx), statistics.median(typical)
    print("bench-ibv: ngx -m ibv -x pingpong -s 1 (send mode) median per round: %s us"
          % ", ".join("%.2f" % v for v in ngx))
    print("bench-ibv: ib_send_lat -s 1 t_typical per round:                  %s us"
          % ", ".join("%.2f" % v for v in typical))
    print("bench-ibv: RESULT ngx %.2f us, ib_send_lat %.2f us, ratio ngx/ib_send_lat %.3f" % (n, p, n / p))
    if len(parts) > 2 and parts[2]:
        batch = [ngx_median(q, 1) for q in parts[2]]
        average = [perftest_column(q, "t_avg[usec]") for q in parts[1]]
        b, a = statistics.median(batch), statistics.median(average)
        print("bench-ibv: ngx --pingpong-timing batch per round:               %s us"
              % ", ".join("%.2f" % v for v in batch))
        print("bench-ibv: ib_send_lat -s 1 t_avg per round:                      %s us"
              % ", ".join("%.2f" % v for v in average))
        print("bench-ibv: RESULT like for like (means): ngx batch %.2f us, ib_send_lat t_avg %.2f us, ratio %.3f"
              % (b, a, b / a))


def ngx_bw_rows(path):
    """label -> {size: MiB/s} of every run in an ngx -x bw JSON file (the
    module's name; "ibv" alone for a one-module file)."""
    with open(path) as f:
        doc = json.load(f)
    return {run.get("module", "ngx"): {int(r["size_bytes"]): float(r["bandwidth_MiBps"]) for r in run["results"]}
            for run in doc.get("runs") or [doc]}


def perftest_bw(path):
    """BW average[MB/sec] of a perftest bandwidth report: MiB/s, as its
    --report_gbits help says ("instead of MiB/sec")."""
    with open(path) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if "BW average" in line:
            return float(lines[i + 1].split()[3])
    raise ValueError("%s: no BW average line" % path)


# (what ngx runs, its files and run label, the peer and its files) of bench/ibv/bw.list
IBV_BW_PAIRS = [
    ("ngx -m ibv --ibv-mode write -x bw (two-sided, RDMA write with immediate)", "bw-write-{r}.json", "ibv",
     "ib_write_bw", "pt-write-{s}-{r}.txt"),
    ("ngx -m ibv -x bw --bw-op put (one-sided RDMA write, flush per window)", "bw-put-{r}.json", "ibv",
     "ib_write_bw", "pt-write-{s}-{r}.txt"),
    ("ngx -m ibv -x bw (send mode)", "bw-send-{r}.json", "ibv", "ib_send_bw", "pt-send-{s}-{r}.txt"),
    ("ngx -m ibv -x bw --bw-op get (one-sided RDMA read, flush per window)", "bw-get-{r}.json", "ibv",
     "ib_read_bw", "pt-read-{s}-{r}.txt"),
    ("mpirun ngx -m mpi -x bw (Open MPI, UCX rc_verbs)", "bw-ibv-mpi-send-{r}.json", "mpi",
     "ngx -m ibv -x bw, same launch", "bw-ibv-mpi-send-{r}.json:ibv"),
    ("mpirun ngx -m mpi -x bw (Open MPI, UCX rc_verbs)", "bw-ibv-mpi-send-{r}.json", "mpi",
     "ngx -m ibv --ibv-mode write -x bw", "bw-write-{r}.json:ibv"),
]


def ibv_bw_value(run_dir, pattern, label, size, rnd):
    """One round's MiB/s of a pair's side, None when its run is missing."""
    name = pattern.format(s=size, r=rnd)
    path = os.path.join(run_dir, name.split(":")[0])
    try:
        if name.endswith(".txt"):
            return perftest_bw(path)
        return ngx_bw_rows(path)[name.split(":")[1] if ":" in name else label][size]
    except (OSError, ValueError, KeyError, IndexError):
        return None


def report_ibv_bw(run_dir):
    """Per size and pair: each tool's median over the rounds and the median
    of the per-round ratios ngx / peer with its 95% interval (ratio_interval)."""
    rounds = sorted({int(f.rsplit("-", 1)[1].split(".")[0]) for f in os.listdir(run_dir)
                     if f.startswith("bw-put-") and f.endswith(".json")})
    sizes = sorted({s for r in rounds for s in ngx_bw_rows(os.path.join(run_dir, f"bw-put-{r}.json"))["ibv"]})
    print("bench-ibv: MiB/s (2^20 bytes/s, perftest's unit), %d alternated rounds; ratio = ngx / peer" % len(rounds))
    for size in sizes:
        for what, ours, label, peer, theirs in IBV_BW_PAIRS:
            a = [ibv_bw_value(run_dir, ours, label, size, r) for r in rounds]
            b = [ibv_bw_value(run_dir, theirs, "ibv", size, r) for r in rounds]
            ratios = [x / y for x, y in zip(a, b) if x is not None and y]
            med = lambda v: statistics.median([x for x in v if x is not None]) if any(x is not None for x in v) else None
            print("bench-ibv: %6d B  %-72s %8s  %-30s %8s  ratio %s (%s)"
                  % (size, what, fmt(med(a), 1), peer, fmt(med(b), 1),
                     fmt(statistics.median(ratios) if ratios else None), interval_text(ratios)))


LADDER_STEPS = {
    "shm": [
        ("batch", "minimal: spin on a line, rdtscp once per batch of round trips (batch means)"),
        ("clock", "+ clock_gettime around every round trip (bench/minimal/shm_pingpong.c)"),
        ("tsc", "+ rdtscp around every round trip instead (ngx's timer)"),
        ("pause", "  tsc with a pause in the spin loop (shm_pingpong -p)"),
        ("ring", "+ ngx's ring (modules/shm/ring.hpp), bare polling"),
        ("ring4k", "  the same with a 4 KiB ring (64 cells) instead of 64 KiB"),
        ("ops", "+ send/recv through an ops table (ctx, buf, len, err)"),
        ("oldwait", "+ the module's earlier wait (pause, clock at first failed poll)"),
        ("spinwait", "+ the module's SpinWait now (pause, clock-free spin bound first)"),
        ("ngx", "ngx -m shm -x pingpong (per sample)"),
        ("ngx-batch", "ngx ... --pingpong-timing batch"),
    ],
    "mpi": [
        ("batch", "minimal: MPI_Send/MPI_Recv, rdtscp once per batch (batch means)"),
        ("wtime", "+ MPI_Wtime around every round trip (bench/mpi/pingpong.c)"),
        ("tsc", "+ rdtscp around every round trip instead (ngx's timer)"),
        ("ops", "+ ops table, duplicated communicator"),
        ("checks", "+ cancel flag, progress mark, mode branches per repetition"),
        ("funneled", "+ MPI_Init_thread(MPI_THREAD_FUNNELED) instead of MPI_Init (ngx's earlier init; now SINGLE)"),
        ("threads", "+ a second thread waking every 50 ms (ngx's watchdog)"),
        ("ngx", "ngx -m mpi -x pingpong (per sample)"),
        ("ngx-batch", "ngx ... --pingpong-timing batch"),
    ],
}


def report_ladder(samples_path):
    """bench/ladder/run.sh: each step's median of rounds, its ratios, its instructions."""
    samples = read_samples(samples_path)
    out = header("ngx-bench-ladder/1")
    out.update({"load_average_start": ENV.get("BENCH_LOAD_START"), "rounds": int(ENV.get("BENCH_ROUNDS", 0)),
                "round_trips": int(ENV.get("BENCH_ITERS", 0)), "batch": int(ENV.get("BENCH_BATCH", 0)),
                "cpus": ENV.get("BENCH_CPUS"), "paths": {}})
    for path, steps in LADDER_STEPS.items():
        if not any(k[0] in (path, path + "-instructions") for k in samples):
            continue
        rows = {}
        floor = summary(samples, path, "batch")["median"]
        per_sample = summary(samples, path, "tsc")["median"]
        print(f"\n{path}: 1-byte half round trip, median of rounds (us); ratios to the minimal program "
              f"timed in batches and per sample (tsc)")
        print(f"{'step':<10} {'median':>8} {'min':>8} {'/batch':>7} {'/tsc':>7} {'instr':>6}  what; rounds")
        for step, what in steps:
            d = summary(samples, path, step)
            instr = summary(samples, path + "-instructions", step)["median"]
            d.update({"what": what, "ratio_to_batch": ratio(d["median"], floor),
                      "ratio_to_tsc": ratio(d["median"], per_sample), "instructions_per_round_trip": instr})
            rows[step] = d
            rounds = " ".join(fmt(v) for v in d["rounds"]) or d["status"]
            print(f"{step:<10} {fmt(d['median']):>8} {fmt(d['best']):>8} {fmt(d['ratio_to_batch'], 2):>7} "
                  f"{fmt(d['ratio_to_tsc'], 2):>7} {fmt(instr, 0):>6}  {what}; {rounds}")
        out["paths"][path] = rows
    print("\ninstr: instructions per round trip under callgrind (shm steps: one process talking to itself, "
          "nothing waits; ngx and mpi: the loop's and ngx's own functions, not the MPI library's)")
    finish(out)


def report_accuracy(samples_path):
    """The accuracy table of a real-time figure against what its setup
    implies: per quantity, each round's measured value, its deviation from
    the expected one, and the median, min and max deviation over the rounds.
    Rows of SAMPLES: QUANTITY, ROUND, MEASURED, EXPECTED (tab-separated;
    MEASURED "NA" when the round failed)."""
    rows = {}
    for line in open(samples_path):
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 4:
            rows.setdefault(parts[0], []).append((parts[1], parts[2], float(parts[3])))
    print(f"{'quantity':<44} {'expected':>10} {'median dev':>10} {'min dev':>9} {'max dev':>9}  rounds (measured)")
    for name, rs in rows.items():
        expected = rs[0][2]
        devs = [100 * (float(m) - e) / e for _, m, e in rs if m != "NA" and e]
        values = " ".join(m for _, m, _ in rs)
        if devs:
            print(f"{name:<44} {expected:>10.4g} {statistics.median(devs):>+9.1f}% {min(devs):>+8.1f}%"
                  f" {max(devs):>+8.1f}%  {values}")
        else:
            print(f"{name:<44} {expected:>10.4g} {'none':>10} {'':>9} {'':>9}  {values}")


def report_netpipe(samples_path):
    """bench/netpipe/run.sh: per size, ngx's streaming bandwidth against
    NPtcp -s (and with --mpi, ngx -m mpi against NPopenmpi -s) and ngx's
    ping-pong bandwidth against NPtcp's ping-pong, from ngx's median and from
    its fastest sample (NetPIPE keeps its fastest trial), each as the median
    of the per-round ratios with its 95% interval; goal: ngx within 5% of the
    peer (ratio >= 0.95). Then each run's wall time against the peer's run
    of the same size (goal: ngx's run no slower, ratio <= 1)."""
    samples = read_samples(samples_path)
    sizes = [int(x) for x in ENV["BENCH_SIZES"].split(",")]
    mpi = ENV.get("BENCH_MPI") == "1"
    out = header("ngx-bench-netpipe/2")
    out.update({"online_cpus": os.cpu_count(),
                "load_average_start": ENV["BENCH_LOAD_START"], "load_average_end": ENV["BENCH_LOAD_END"],
                "placement": {"cpus": ENV["BENCH_CPUS"], "note": "receivers on cpu A, timing sides on cpu B"},
                "parameters": {"rounds": int(ENV["BENCH_ROUNDS"]), "window": int(ENV["BENCH_WINDOW"]),
                               "ngx_bw_windows": int(ENV["BENCH_COUNT"]),
                               "nptcp_repeats": int(ENV["BENCH_NP_N"]),
                               "mpi_btl": ENV["BENCH_BTL"] if mpi else None},
                "versions": {"netpipe-tcp": ENV["BENCH_V_NETPIPE"],
                             "netpipe-openmpi": ENV["BENCH_V_NPMPI"] if mpi else None}, "sizes": {}})
    bandwidth = [("ngx-bw", "NPtcp-stream", "TCP loopback", "one-way stream, ngx's median window"),
                 ("ngx-bw-best", "NPtcp-stream", "TCP loopback", "one-way stream, ngx's fastest window"),
                 ("ngx-pingpong", "NPtcp", "TCP loopback", "ping-pong, s / median half round trip"),
                 ("ngx-pingpong-best", "NPtcp", "TCP loopback", "ping-pong, s / fastest half round trip")]
    wall = [("ngx-bw", "NPtcp-stream", "TCP loopback", "wall time of the one-way stream run"),
            ("ngx-pingpong", "NPtcp", "TCP loopback", "wall time of the ping-pong run")]
    if mpi:
        link = f"MPI ({ENV['BENCH_BTL']})"
        bandwidth += [("ngx-mpi-bw", "NPmpi-stream", link, "one-way stream, ngx's median window"),
                      ("ngx-mpi-bw-best", "NPmpi-stream", link, "one-way stream, ngx's fastest window")]
        wall += [("ngx-mpi-bw", "NPmpi-stream", link, "wall time of the one-way stream run")]
    print()
    for size in sizes:
        entry = {}
        for ours, theirs, link, what in bandwidth:
            entry[f"{link}: {what}"] = netpipe_group(samples, f"MBps_{size}", ours, theirs, "MB/s", what,
                                                    f"{link}, {size} B, {what} (MB/s, higher is better)", True)
        for ours, theirs, link, what in wall:
            entry[f"{link}: {what}"] = netpipe_group(samples, f"wall_s_{size}", ours, theirs, "s", what,
                                                    f"{link}, {size} B, {what} (s, lower is better)", False)
        out["sizes"][str(size)] = entry
    finish(out)


def netpipe_group(samples, metric, ours, theirs, unit, what, title, higher_is_better):
    """One comparison of the netpipe report, printed, returned for the JSON."""
    group = {"unit": unit, "metric": what,
             "tools": {ours: summary(samples, metric, ours, higher_is_better),
                       theirs: summary(samples, metric, theirs, higher_is_better)}}
    group["ngx_ratio"] = ratio(group["tools"][ours]["median"], group["tools"][theirs]["median"])
    add_paired(group, samples, metric, ours, theirs)
    limit, sign = (0.95, ">=") if higher_is_better else (1.0, "<=")
    group["goal"] = f"{ours} / {theirs} {sign} {limit}, paired per round"
    group["goal_text"], group["goal_met"] = goal_text(group["ngx_ratio_paired"], limit, not higher_is_better)
    print_table(f"{title}; {ENV['BENCH_ROUNDS']} rounds", group,
                floor_footer(group, f"{ours} / {theirs}", f"goal {sign} {limit}"), width=16,
                best_name="max" if higher_is_better else "min", nd=1 if higher_is_better else 3,
                round_nd=1 if higher_is_better else 2)
    return strip_text(group)


def main(argv):
    if len(argv) >= 2 and argv[0] == "accuracy":
        report_accuracy(argv[1])
    elif len(argv) >= 2 and argv[0] == "tcp-shm":
        report_tcp_shm(argv[1])
    elif len(argv) >= 2 and argv[0] == "mpi":
        report_mpi(argv[1])
    elif len(argv) >= 2 and argv[0] == "udp":
        report_udp(argv[1])
    elif len(argv) >= 3 and argv[0] == "ibv" and "--" in argv:
        report_ibv(argv[1:])
    elif len(argv) == 2 and argv[0] == "ibv-bw":
        report_ibv_bw(argv[1])
    elif len(argv) >= 2 and argv[0] == "netpipe":
        report_netpipe(argv[1])
    elif len(argv) >= 2 and argv[0] == "ladder":
        report_ladder(argv[1])
    elif len(argv) == 3 and argv[0] == "ngx-median":
        try:
            v = ngx_median(argv[1], argv[2])
        except Exception:  # no file, no JSON, no such row: print nothing
            v = None
        if v is not None:
            print(v)
    else:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
