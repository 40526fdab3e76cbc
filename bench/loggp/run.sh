#!/bin/bash
# bench/loggp/run.sh: wall time and messages of a loggp sweep 1 B..128 KiB
# (pinned), next to the spread of the fitted parameters over R runs, for each
# module and sample count in a list. See README.md.
#
#     bench/loggp/run.sh [BUILD_DIR] [-r ROUNDS] [-c "50 100 200"|default] [--cpus 0,1|none]
#                        [-s 1-128Ki] [-m "tcp"|"shm tcp tcp:poll"] [-o FILE.json] [-l DIR]
#     bench/loggp/run.sh --spread [BUILD_DIR]     # five-run spread: -m "shm tcp tcp:poll" -c default -r 5
#
# A module entry NAME:MODE runs NAME with --tcp-progress MODE (tcp:poll is
# tcp as the main job measures it: the receiver polls).
#
# Rounds interleave the modules and counts (round 1: m1 c1, m1 c2, m2 c1, ...,
# round 2: ...), so a noisy minute hurts every one alike. Per module and
# count it reports the median wall time and messages, and for L_eel, o_s, g,
# G of the first protocol range (and L, o_r): median, spread = (max - min) /
# |median| and coefficient of variation (stddev / |mean|). Goals: spread of
# L_eel, o_s, g and G under 5% on shm and under 10% on tcp (other modules
# 5%), wall < 43 s / 4 = 10.75 s (at least 4x faster than Netgauge's 43 s for
# this sweep over TCP). "-c default" runs
# ngx without -c (the pattern's default count).
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
    --spread) module="shm tcp tcp:poll" counts=default rounds=5; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
ngx=$build/ngx
[[ -x $ngx ]] || { echo "run.sh: $ngx not found (meson setup $build && ninja -C $build)" >&2; exit 2; }
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$(cd "$build" && pwd)/modules}
if [[ -n $keep ]]; then mkdir -p "$keep"; work=$keep; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
# The placement probe: shm's PRTT(1,0,1)/2 on the same CPUs (median of
# 2000), before and after each run. A 2-vCPU guest's two CPUs may sit on
# one physical core, in one core complex or in two, as the host moves them:
# the cache-line round trip then changes 4-5x (107 against 490 ns measured),
# and every shm parameter with it.
probe() {
    local args=(-m shm -x pingpong -s 1 -c 2000)
    [[ $cpus != none ]] && args+=(--cpus "$cpus")
    timeout -k 5 60 "$ngx" "${args[@]}" -o "$work/probe.json" >/dev/null 2>&1 </dev/null &&
        python3 -c 'import json,sys; print("%.4g" % json.load(open(sys.argv[1]))["results"][0]["median_us"])' \
            "$work/probe.json" || echo nan
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "# loggp sweep $sizes over $module, cpus $cpus, $rounds rounds of counts: $counts; load before: $load_before"
for ((r = 1; r <= rounds; r++)); do
    for m in $module; do
        for c in $counts; do
            tag=$m-c$c-r$r f=$work/run-$m-c$c-r$r.json args=()
            [[ $m == *:* ]] && args+=(--tcp-progress "${m#*:}")
            [[ $c != default ]] && args+=(-c "$c")
            [[ $cpus != none ]] && args+=(--cpus "$cpus")
            l1=$(cut -d' ' -f1 /proc/loadavg)
            p1=$(probe)
            if ! timeout -k 5 "$tmo" "$ngx" -m "${m%%:*}" -x loggp -s "$sizes" "${args[@]}" -o "$f" \
                >"$work/run-$tag.txt" 2>&1 </dev/null; then
                echo "round $r $m count $c: ngx failed: $(tail -2 "$work/run-$tag.txt")" >&2
                rm -f "$f"
            else
                echo "round $r $m count $c: $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); m = d["model"]; r = m["ranges"][0]
print("%.2f s, L_eel %.4g o_s %.4g g %.4g G %.4g us, %d range(s)" % (d["wall_seconds"], m["L_eel_us"]["value"],
      r["o_us"], r["g_us"], r["G_us_per_byte"], len(m["ranges"])))' "$f")"
                p2=$(probe)
                echo "    (load $l1, placement probe $p1 us before, $p2 us after)"
                echo "$p1 $p2" >"$work/probe-$tag.txt"
            fi
        done
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$work" "$counts" "$load_before" "$load_after" "$out" "$sizes" "$module" <<'PY'
import glob, json, math, statistics, sys
work, counts, lb, la, out, sizes, modules = sys.argv[1:8]
# (key in the first range or the model, column name, part of the spread goal)
params = [("L_eel_us", "L_eel", True), ("o_us", "o_s", True), ("g_us", "g", True), ("G_us_per_byte", "G", True),
          ("L_us", "L", False), ("o_r_us", "o_r", False)]
spread_goal = {"shm": 0.05, "tcp": 0.10}  # five runs in a row; other modules 5%


def spread_of(v, med):
    """(max - min) / |median|; 0 when every run gave the same value (G held at 0 in all)."""
    if max(v) == min(v):
        return 0.0
    return (max(v) - min(v)) / abs(med) if med else math.inf
wall_goal = 43 / 4
report = {"sizes": sizes, "load_before": lb, "load_after": la,
          "goal": {"wall_seconds_below": wall_goal, "spread_below": spread_goal, "spread_below_otherwise": 0.05,
                   "spread_of": [n for _, n, g in params if g]}, "runs": []}
print(f"\n# load before {lb}, after {la}")
head = f"{'module':>8} {'count':>7} {'runs':>4} {'wall_s':>7} {'messages':>10}"
for _, n, _ in params:
    head += f" {n + ' med':>11} {'spr%':>6} {'cv%':>5}"
print(head + "  spread goal  wall goal")
for m in modules.split():
    goal = spread_goal.get(m.split(":")[0], 0.05)
    for c in counts.split():
        runs = []
        for f in sorted(glob.glob(f"{work}/run-{m}-c{c}-r*.json")):
            d = json.load(open(f))
            model = d["model"]
            r0 = model["ranges"][0]
            probe_file = f.replace("/run-", "/probe-").replace(".json", ".txt")
            try:
                before, after = (float(x) for x in open(probe_file).read().split())
            except (OSError, ValueError):
                before = after = math.nan
            row = {"wall_seconds": d["wall_seconds"], "messages": d["messages"],
                   "probe_shm_half_rtt_us": before, "probe_after_us": after,
                   "ranges": len(model["ranges"]), "change_points_bytes": model["change_points_bytes"]}
            for k, _, _ in params:
                row[k] = model["L_eel_us"]["value"] if k == "L_eel_us" else r0.get(k, math.nan)
            runs.append(row)
        if not runs:
            print(f"{m:>8} {c:>7}    0  (no successful run)")
            continue
        entry = {"module": m, "count": c, "runs": runs, "spread_goal": goal,
                 "wall_seconds": statistics.median(r["wall_seconds"] for r in runs),
                 "messages": statistics.median(r["messages"] for r in runs), "parameters": {}}
        line = f"{m:>8} {c:>7} {len(runs):>4} {entry['wall_seconds']:7.2f} {entry['messages']:10.0f}"
        spread_ok, missed = len(runs) >= 2, []
        for k, n, in_goal in params:
            v = [r[k] for r in runs]
            med = statistics.median(v)
            spread = spread_of(v, med)
            cv = statistics.stdev(v) / abs(statistics.mean(v)) if len(v) > 1 and statistics.mean(v) else math.nan
            entry["parameters"][n] = {"median": med, "min": min(v), "max": max(v), "spread": spread, "cv": cv,
                                      "in_goal": in_goal, "meets_goal": spread < goal if in_goal else None}
            if in_goal and not spread < goal:
                spread_ok = False
                missed.append(n)
            line += f" {med:11.4g} {100 * spread:6.1f} {100 * cv:5.1f}"
        entry["meets_spread_goal"] = spread_ok
        entry["meets_wall_goal"] = entry["wall_seconds"] < wall_goal
        verdict = f"< {100 * goal:.0f}%: " + ("pass" if spread_ok else "miss (" + ", ".join(missed) + ")")
        print(line + f"  {verdict}  {'pass' if entry['meets_wall_goal'] else 'miss'}")
        probes = [r["probe_shm_half_rtt_us"] for r in runs]
        print(f"{'':>8} {'':>7} placement probe before/after each run (shm PRTT(1,0,1)/2, us): "
              + " ".join(f"{r['probe_shm_half_rtt_us']:.3g}/{r['probe_after_us']:.3g}" for r in runs))
        # The same spread over the runs that found the CPUs placed as most did,
        # before and after (probes within 15% of the median probe): what ngx
        # itself repeats.
        finite = [p for p in probes if math.isfinite(p)]
        if finite:
            mid = statistics.median(finite)
            same = [r for r in runs if abs(r["probe_shm_half_rtt_us"] - mid) <= 0.15 * mid
                    and abs(r["probe_after_us"] - mid) <= 0.15 * mid]
            parts, ok = [], len(same) >= 2
            for k, n, in_goal in params:
                if not in_goal or len(same) < 2:
                    continue
                v = [r[k] for r in same]
                med = statistics.median(v)
                spread = spread_of(v, med)
                ok = ok and spread < goal
                parts.append(f"{n} {100 * spread:.1f}%")
            entry["same_placement"] = {"runs": len(same), "probe_median_us": mid, "meets_spread_goal": ok}
            print(f"{'':>8} {'':>7} the {len(same)} run(s) with the median's placement: " + ", ".join(parts)
                  + (f"  < {100 * goal:.0f}%: " + ("pass" if ok else "miss") if len(same) >= 2 else ""))
        report["runs"].append(entry)
print("# spr% = (max - min) / median over the runs; cv% = stddev / mean; parameters of the first range as"
      " the model states them (the joint fit's o_s intercept, g and G, L of eq. (1), the o_r line's intercept)"
      " and L_eel = PRTT(1,0,1)/2; the spread goal covers L_eel, o_s, g and G")
if out:
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
PY
