#!/bin/bash
# bench/loggp/run.sh: wall time and messages of a loggp sweep 1 B..128 KiB on
# tcp loopback (pinned), next to the spread of the fitted parameters over R
# runs, for each sample count in a list. See README.md.
#
#     bench/loggp/run.sh [BUILD_DIR] [-r ROUNDS] [-c "50 100 200"] [--cpus 0,1]
#                        [-s 1-128Ki] [-m tcp] [-o FILE.json] [-l DIR]
#
# Rounds interleave the counts (round 1: c1 c2 c3, round 2: ...), so a noisy
# minute hurts every count alike. Per count it reports the median wall time
# and messages, and for L, o, g, G of the first protocol range and L_eel:
# median, spread = (max - min) / |median| and coefficient of variation
# (stddev / |mean|). Goal (issue 4): wall < 43 s / 4 = 10.75 s and every
# spread < 5%.
set -u
build=./build rounds=5 counts="50 100 200" cpus=0,1 sizes=1-128Ki module=tcp out="" keep="" tmo=300
while [[ $# -gt 0 ]]; do
    case $1 in
    -r|--rounds) rounds=$2; shift 2 ;;
    -c|--counts) counts=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    -s|--sizes) sizes=$2; shift 2 ;;
    -m|--module) module=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -l) keep=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
ngx=$build/ngx
[[ -x $ngx ]] || { echo "run.sh: $ngx not found (meson setup $build && ninja -C $build)" >&2; exit 2; }
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$(cd "$build" && pwd)/modules}
if [[ -n $keep ]]; then mkdir -p "$keep"; work=$keep; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "# loggp sweep $sizes over $module, cpus $cpus, $rounds rounds of counts: $counts; load before: $load_before"
for ((r = 1; r <= rounds; r++)); do
    for c in $counts; do
        f=$work/run-c$c-r$r.json
        l1=$(cut -d' ' -f1 /proc/loadavg)
        if ! timeout -k 5 "$tmo" "$ngx" -m "$module" -x loggp -s "$sizes" --cpus "$cpus" -c "$c" -o "$f" \
            >"$work/run-c$c-r$r.txt" 2>&1 </dev/null; then
            echo "round $r count $c: ngx failed: $(tail -2 "$work/run-c$c-r$r.txt")" >&2
            rm -f "$f"
        else
            echo "round $r count $c: $(python3 -c 'import json,sys; print("%.2f s" % json.load(open(sys.argv[1]))["wall_seconds"])' "$f") (load $l1)"
        fi
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$work" "$counts" "$load_before" "$load_after" "$out" "$sizes" "$module" <<'PY'
import glob, json, math, statistics, sys
work, counts, lb, la, out, sizes, module = sys.argv[1:8]
params = [("L_us", "L"), ("o_us", "o"), ("g_us", "g"), ("G_us_per_byte", "G"), ("L_eel_us", "L_eel")]
report = {"sizes": sizes, "module": module, "load_before": lb, "load_after": la,
          "goal": {"wall_seconds_below": 43 / 4, "spread_below": 0.05}, "counts": []}
print(f"\n# load before {lb}, after {la}")
head = f"{'count':>5} {'runs':>4} {'wall_s':>7} {'messages':>10}"
for _, n in params:
    head += f" {n + ' med':>11} {'spr%':>6} {'cv%':>5}"
print(head + "  goal")
for c in counts.split():
    runs = []
    for f in sorted(glob.glob(f"{work}/run-c{c}-r*.json")):
        d = json.load(open(f))
        m = d["model"]
        r0 = m["ranges"][0]
        row = {"wall_seconds": d["wall_seconds"], "messages": d["messages"],
               "ranges": len(m["ranges"]), "change_points_bytes": m["change_points_bytes"]}
        for k, _ in params:
            row[k] = m["L_eel_us"]["value"] if k == "L_eel_us" else r0[k]
        runs.append(row)
    if not runs:
        print(f"{c:>5}    0  (no successful run)")
        continue
    entry = {"count": int(c), "runs": runs,
             "wall_seconds": statistics.median(r["wall_seconds"] for r in runs),
             "messages": statistics.median(r["messages"] for r in runs), "parameters": {}}
    line = f"{c:>5} {len(runs):>4} {entry['wall_seconds']:7.2f} {entry['messages']:10.0f}"
    ok = entry["wall_seconds"] < 43 / 4 and len(runs) >= 2
    for k, n in params:
        v = [r[k] for r in runs]
        med = statistics.median(v)
        spread = (max(v) - min(v)) / abs(med) if med else math.inf
        cv = statistics.stdev(v) / abs(statistics.mean(v)) if len(v) > 1 and statistics.mean(v) else math.nan
        entry["parameters"][n] = {"median": med, "min": min(v), "max": max(v), "spread": spread, "cv": cv}
        ok = ok and spread < 0.05
        line += f" {med:11.4g} {100 * spread:6.1f} {100 * cv:5.1f}"
    entry["meets_goal"] = ok
    print(line + ("  yes" if ok else "  no"))
    report["counts"].append(entry)
print("# spr% = (max - min) / median over the runs; cv% = stddev / mean; parameters of the first"
      " range (L of eq. (1), o = o_s by eq. (6), g and G by eq. (7)) and L_eel = PRTT(1,0,1)/2")
if out:
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
PY
