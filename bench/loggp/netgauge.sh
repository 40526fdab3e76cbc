#!/bin/bash
# bench/loggp/netgauge.sh: ngx's loggp next to Netgauge's, compared honestly,
# over TCP loopback, interleaved in rounds, both on CPUs 0 and 1:
#   (a) wall time of each tool's default run: Netgauge `-x loggp -m tcp -s
#       1-131072` (128 sizes 1, 1025, 2049, ..., n = 10, 100 repetitions) and
#       `ngx -m tcp -x loggp --cpus 0,1` (its defaults: 34 sizes 1 B..128 KiB,
#       two an octave, passes and re-measurement on);
#   (b) wall time of ngx on Netgauge's own 128 sizes;
#   (c) the spread over the rounds of L and G: Netgauge's PRTT(1,0,1)/2 and
#       its G (the last row of its table: the fit over its last range) against
#       ngx's L_eel = PRTT(1,0,1)/2 and eq. (7)'s G over its range of the
#       largest size (the slope of y(s) there, as Netgauge fits it; the
#       joint fit's G can be 0 where the sender's O_s paces the stream).
# Netgauge is built from source by ../shared/tools/netgauge/netgauge.sh
# (sourced; $NGX_SHARED_TOOLS, default ../shared/tools beside the clone). Rounds run Netgauge,
# ngx default, ngx on Netgauge's sizes, the order rotated each round.
#
#     bench/loggp/netgauge.sh [BUILD_DIR] [-r ROUNDS] [-o FILE.json] [-l DIR]
#     bench/loggp/netgauge.sh --report DIR [-o FILE.json]    # the table again from a kept -l DIR
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build rounds=3 out="" keep="" report_only=""
while [[ $# -gt 0 ]]; do
    case $1 in
    -r) rounds=${2:?}; shift 2 ;;
    -o) out=${2:?}; shift 2 ;;
    -l) keep=${2:?}; shift 2 ;;
    --report) report_only=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "netgauge.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$(cd "$1" && pwd) || exit 2; shift ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "netgauge.sh: -r expects a positive number" >&2; exit 2; }
summarise() { # DIR LOAD_START LOAD_END
    python3 - "$1" "$2" "$3" "$out" <<'PY'
import glob, json, math, statistics, sys
work, load_start, load_end, out = sys.argv[1:5]
walls = {}
for line in open(f"{work}/walls.tsv"):
    tool, r, rc, wall, load = line.split("\t")
    walls.setdefault(tool, []).append({"round": int(r), "exit": int(rc), "wall_s": float(wall), "load": float(load)})

def netgauge_params(path):
    """L = PRTT(1,0,1)/2 (first row), G of the last row (us/byte)."""
    rows = [l.split() for l in open(path) if l[:1].isdigit()]
    return {"L_us": float(rows[0][2]) / 2, "G_us_per_byte": float(rows[-1][9]), "sizes": len(rows)}

def gap_slope(per_size, first, last):
    """G of eq. (7) as Netgauge fits it: the least-squares slope of y(s) over [first, last]."""
    pts = [(p["size_bytes"] - 1, p["gap_us"]) for p in per_size if first <= p["size_bytes"] <= last]
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)

def ngx_params(path):
    d = json.load(open(path))
    m = d["model"]
    last = m["ranges"][-1]
    return {"L_us": m["L_eel_us"]["value"], "G_us_per_byte": gap_slope(m["per_size"], last["from_bytes"], last["to_bytes"]),
            "sizes": len(d["results"]), "messages": d["messages"]}

params = {}
for tool, files, read in (("netgauge", "netgauge-*.out", netgauge_params),
                          ("ngx-default", "ngx-default-*.json", ngx_params),
                          ("ngx-ng-sizes", "ngx-ng-sizes-*.json", ngx_params)):
    for f in sorted(glob.glob(f"{work}/{files}")):
        try:
            params.setdefault(tool, []).append(read(f))
        except (OSError, ValueError, KeyError, IndexError) as e:
            print(f"# {f}: unreadable ({e})")

def spread(v):
    med = statistics.median(v)
    if max(v) == min(v):
        return 0.0
    return (max(v) - min(v)) / abs(med) if med else math.inf

report = {"schema": "ngx-bench-netgauge/1", "load_start": load_start, "load_end": load_end, "tools": {}}
ng_wall = statistics.median(w["wall_s"] for w in walls.get("netgauge", []) if w["exit"] == 0) \
    if any(w["exit"] == 0 for w in walls.get("netgauge", [])) else None
print(f"\n# load {load_start} at the start, {load_end} at the end")
print(f"{'tool':<13} {'runs':>4} {'wall_s med':>10} {'walls':>24} {'vs netgauge':>11} {'sizes':>5} "
      f"{'L us med':>9} {'L spr%':>7} {'G us/B med':>11} {'G spr%':>7}")
for tool in ("netgauge", "ngx-default", "ngx-ng-sizes"):
    ok = [w["wall_s"] for w in walls.get(tool, []) if w["exit"] == 0]
    p = params.get(tool, [])
    entry = {"walls": walls.get(tool, []), "parameters": p}
    if ok:
        entry["wall_median_s"] = statistics.median(ok)
        entry["speedup_vs_netgauge"] = ng_wall / entry["wall_median_s"] if ng_wall else None
    if p:
        for k in ("L_us", "G_us_per_byte"):
            v = [x[k] for x in p]
            entry[k] = {"median": statistics.median(v), "spread": spread(v) if len(v) > 1 else None}
    report["tools"][tool] = entry
    fmt = lambda x, f: "-" if x is None else format(x, f)
    print(f"{tool:<13} {len(ok):>4} {fmt(entry.get('wall_median_s'), '10.1f')} "
          f"{' '.join(f'{w:.1f}' for w in ok):>24} {fmt(entry.get('speedup_vs_netgauge'), '10.2f')}x "
          f"{(p[0]['sizes'] if p else 0):>5} "
          f"{fmt(entry.get('L_us', {}).get('median'), '9.3f')} "
          f"{fmt(100 * entry['L_us']['spread'] if p and entry['L_us']['spread'] is not None else None, '7.1f')} "
          f"{fmt(entry.get('G_us_per_byte', {}).get('median'), '11.3g')} "
          f"{fmt(100 * entry['G_us_per_byte']['spread'] if p and entry['G_us_per_byte']['spread'] is not None else None, '7.1f')}")
print("# L: Netgauge PRTT(1,0,1)/2, ngx L_eel; G: eq. (7)'s slope of y(s), Netgauge's last row and ngx's over its range"
      " of the largest size (the joint fit may move ngx's G into O_s); spr% = (max - min) / median"
      " over the rounds. Goal: ngx-default >= 4x faster than netgauge and spreads no larger.")
if out:
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
PY
}
if [[ -n $report_only ]]; then
    summarise "$report_only" "see the runs" "see the runs"
    exit
fi
ngx=$build/ngx
[[ -x $ngx ]] || { echo "netgauge.sh: $ngx not built" >&2; exit 1; }
export NGX_MODULE_PATH=$build/modules NGX_PATTERN_PATH=$build/patterns
tools=${NGX_SHARED_TOOLS:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/tools} # shared/ sits beside the clone
# shellcheck source=/dev/null
. "$tools/netgauge/netgauge.sh" || exit 1
netgauge_build || exit 1
if [[ -n $keep ]]; then mkdir -p "$keep" && work=$(cd "$keep" && pwd); else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
ng_sizes=$(seq -s, 1 1024 131072) # 1, 1025, ..., 130049: what Netgauge's loggp measures up to 128 KiB
now() { date +%s.%N; }
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "# loggp over tcp loopback, cpus 0,1, $rounds rounds; load $load_start"

run_tool() { # TOOL ROUND
    local tool=$1 r=$2 t0 t1 rc
    t0=$(now)
    case $tool in
    netgauge) # the span is timed inside the subshell, without sourcing the tool's script
        bash -c '. "$1/netgauge/netgauge.sh"; t0=$(date +%s.%N)
            netgauge_loggp tcp 1-131072 "$2"; rc=$?; echo "$t0 $(date +%s.%N)" > "$2.span"; exit $rc' \
            _ "$tools" "$work/netgauge-$r.out"
        rc=$?
        read -r t0 t1 < "$work/netgauge-$r.out.span"
        ;;
    ngx-default)
        timeout -k 5 600 "$ngx" -m tcp -x loggp --cpus 0,1 -o "$work/ngx-default-$r.json" \
            > "$work/ngx-default-$r.log" 2>&1
        rc=$?
        ;;
    ngx-ng-sizes)
        timeout -k 5 600 "$ngx" -m tcp -x loggp -s "$ng_sizes" --cpus 0,1 -o "$work/ngx-ng-sizes-$r.json" \
            > "$work/ngx-ng-sizes-$r.log" 2>&1
        rc=$?
        ;;
    esac
    [[ $tool == netgauge ]] || t1=$(now)
    printf '%s\t%s\t%s\t%s\t%s\n' "$tool" "$r" "$rc" "$(echo "$t1 - $t0" | bc)" "$(cut -d' ' -f1 /proc/loadavg)" \
        >> "$work/walls.tsv"
    echo "round $r $tool: exit $rc, $(echo "$t1 - $t0" | bc) s (load $(cut -d' ' -f1 /proc/loadavg))"
}

: > "$work/walls.tsv"
order=(netgauge ngx-default ngx-ng-sizes)
for ((r = 1; r <= rounds; r++)); do
    for ((k = 0; k < 3; k++)); do run_tool "${order[$(((k + r - 1) % 3))]}" "$r"; done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

summarise "$work" "$load_start" "$load_end"
