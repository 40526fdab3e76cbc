#!/bin/bash
# bench/coverage.sh: are ngx's stated 95% intervals calibrated across
# launches? N fresh launches per module, interleaved (round i: shm, tcp,
# sim), each `ngx -m M -x pingpong -s SIZES -c C` in its own process; then
# per module and size:
#  - single: how often launch i's median falls inside the 95% interval of
#    the median launch i-1 stated (within one launch);
#  - launches K: how often launch i's median falls inside the next-launch
#    95% interval `ngx launches` states over launches i-K..i-1 (between
#    launches, Student t).
# The goal is >= 90% for a 95% statement. sim runs in virtual time with
# --sim-noise launch:F+jitter:J (known launch-to-launch shifts), each launch
# with NGX_LAUNCH=i as `ngx --launches` sets it, so its coverage is known in
# advance; shm and tcp are this machine.
#
#     bench/coverage.sh [BUILD_DIR] [-n LAUNCHES] [-k K] [-c COUNT] [-s SIZES] [-m MODULES] [-o FILE.json] [-l DIR]
set -u
build=./build launches=12 k=4 count=2000 sizes=1,1Ki,64Ki modules="shm tcp sim" out="" keep=""
sim_noise=launch:0.05+jitter:0.02
while [[ $# -gt 0 ]]; do
    case $1 in
    -n) launches=$2; shift 2 ;;
    -k) k=$2; shift 2 ;;
    -c) count=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -m) modules=${2//,/ }; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -l) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "coverage.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
for pair in "n:$launches" "k:$k" "c:$count"; do
    [[ ${pair#*:} =~ ^[1-9][0-9]*$ ]] || { echo "coverage.sh: -${pair%%:*} wants a positive whole number, not '${pair#*:}'" >&2; exit 2; }
done
((k >= 2 && launches > k)) || { echo "coverage.sh: need -k >= 2 and -n > -k (got -n $launches -k $k)" >&2; exit 2; }
ngx=$build/ngx
[[ -x $ngx ]] || { echo "coverage.sh: $ngx not found (meson setup $build && ninja -C $build)" >&2; exit 2; }
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$(cd "$build" && pwd)/modules}
if [[ -n $keep ]]; then mkdir -p "$keep"; work=$keep; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
echo "# coverage: $launches launches per module ($modules), pingpong -s $sizes -c $count; load $load_start"
for ((i = 0; i < launches; i++)); do
    for m in $modules; do
        args=(-m "$m" -x pingpong -s "$sizes" -c "$count")
        [[ $m == sim ]] && args+=(--sim-clock virtual --sim-noise "$sim_noise" --sim-seed 1)
        NGX_LAUNCH=$i timeout -k 5 300 "$ngx" "${args[@]}" -o "$work/$m-$i.json" >"$work/$m-$i.log" 2>&1 </dev/null ||
            echo "coverage.sh: $m launch $i failed (exit $?, $work/$m-$i.log)" >&2
    done
done
for m in $modules; do
    for ((i = k; i < launches; i++)); do
        files=()
        for ((j = i - k; j < i; j++)); do files+=("$work/$m-$j.json"); done
        timeout -k 5 60 "$ngx" launches "${files[@]}" -o "$work/$m-between-$i.json" >/dev/null 2>&1 ||
            echo "coverage.sh: ngx launches over $m $((i - k))..$((i - 1)) failed" >&2
    done
done
python3 - "$work" "$launches" "$k" "$modules" "$out" "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "$(($(date +%s) - start))" "$sim_noise" <<'PY'
import json, os, sys

work, n, k, modules, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(), sys.argv[5]
load_start, load_end, seconds, sim_noise = sys.argv[6], sys.argv[7], int(sys.argv[8]), sys.argv[9]


def results(path):
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        return None
    return {r["size_bytes"]: r for r in (doc.get("runs") or [doc])[0]["results"]}


report = {"launches": n, "k": k, "sim_noise": sim_noise, "load_start": load_start, "load_end": load_end,
          "seconds": seconds, "modules": {}}
print(f"{'module':>7} {'size':>7} {'single: in previous CI':>24} {'K=%d: in next-launch 95%%' % k:>26} "
      f"{'launch spread':>14}")
for m in modules:
    runs = [results(f"{work}/{m}-{i}.json") for i in range(n)]
    per_size = {}
    for size in (runs[0] or {}):
        single = [0, 0]
        between = [0, 0]
        medians = [r[size]["median_us"] for r in runs if r and size in r]
        for i in range(1, n):
            if runs[i] and runs[i - 1] and size in runs[i] and size in runs[i - 1]:
                prev, now = runs[i - 1][size], runs[i][size]["median_us"]
                single[1] += 1
                single[0] += prev["median_ci95_lo_us"] <= now <= prev["median_ci95_hi_us"]
        for i in range(k, n):
            path = f"{work}/{m}-between-{i}.json"
            if not (os.path.exists(path) and runs[i] and size in runs[i]):
                continue
            rows = {s["size_bytes"]: s for s in json.load(open(path))["between_launches"][0]["sizes"]}
            lo, hi = rows[size]["next_launch95"]
            between[1] += 1
            between[0] += lo is not None and lo <= runs[i][size]["median_us"] <= hi
        spread = (max(medians) - min(medians)) / min(medians) if medians else None
        per_size[size] = {"single_held": single[0], "single_total": single[1],
                          "between_held": between[0], "between_total": between[1], "median_spread": spread}
        pct = lambda c: f"{c[0]}/{c[1]} ({100 * c[0] / c[1]:.0f}%)" if c[1] else "-"
        print(f"{m:>7} {size:>7} {pct(single):>24} {pct(between):>26} "
              f"{'-' if spread is None else '%.1f%%' % (100 * spread):>14}")
    total = lambda key: (sum(v[key + "_held"] for v in per_size.values()),
                         sum(v[key + "_total"] for v in per_size.values()))
    s, b = total("single"), total("between")
    report["modules"][m] = {"sizes": per_size, "single": s, "between": b}
    print(f"{m:>7} {'all':>7} {pct(s):>24} {pct(b):>26}")
print(f"# goal: >= 90% for a 95% statement; {seconds} s; load {load_start} -> {load_end}")
if out:
    json.dump(report, open(out, "w"), indent=2)
PY
