#!/bin/bash
# bench/loggp/adaptive-tbf.sh: the LogGP run over a tbf-limited link, with a
# fixed count per size and with --adaptive, alternated R rounds (fixed,
# adaptive, fixed, ...): wall time, samples kept and the fitted L, o, g, G of
# every run, and per mode the spread of each parameter over the rounds. Two
# network namespaces joined by a veth pair (tests/net/netns.sh), tbf on both
# ends, ngx --listen in one and --connect from the other. Needs root.
#
#     bench/loggp/adaptive-tbf.sh [BUILD_DIR] [-r ROUNDS] [-s SIZES] [--rate MBIT] [--max-rel-ci PCT] [-o FILE.json]
set -u
build=./build rounds=3 sizes=1-1Mi rate=400 max_rel_ci=5 out=""
while [[ $# -gt 0 ]]; do
    case $1 in
    -r) rounds=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --max-rel-ci) max_rel_ci=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    -*) echo "adaptive-tbf.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "adaptive-tbf.sh: -r wants a positive whole number, not '$rounds'" >&2; exit 2; }
[[ $rate =~ ^[1-9][0-9]*$ ]] || { echo "adaptive-tbf.sh: --rate wants Mbit/s as a whole number, not '$rate'" >&2; exit 2; }
ngx=$(cd "$build" 2>/dev/null && pwd)/ngx
[[ -x $ngx ]] || { echo "adaptive-tbf.sh: $build/ngx not found (meson setup $build && ninja -C $build)" >&2; exit 2; }
export NGX_MODULE_PATH=${NGX_MODULE_PATH:-$(dirname "$ngx")/modules}
export NGX_PATTERN_PATH=${NGX_PATTERN_PATH:-$(dirname "$ngx")/patterns}
source "$(dirname "$0")/../../tests/net/netns.sh"
netns_require tbf
netns_init
netns_veth_pair p || exit 1
# A bucket of a few KiB: a large one lets a lone message through at the
# veth's speed, and the ping-pong fit underestimates G (tests/net/netns.sh).
netns_tbf p "${rate}mbit" 4kb 20ms || exit 1
ns_a=$(netns_get p ns_a) ns_b=$(netns_get p ns_b) ip_b=$(netns_get p ip_b)
echo "# loggp over tbf ${rate} Mbit/s (veth, both ends), -s $sizes, $rounds rounds alternated; load $(cut -d' ' -f1-3 /proc/loadavg)"
port=7400
for ((r = 1; r <= rounds; r++)); do
    for mode in fixed adaptive; do
        extra=()
        [[ $mode == adaptive ]] && extra=(--adaptive --max-rel-ci "$max_rel_ci")
        port=$((port + 1))
        ip netns exec "$ns_b" timeout -k 5 900 "$ngx" --listen "$ip_b:$port" --accept-timeout 60 \
            >"$NETNS_DIR/server-$mode-$r.log" 2>&1 &
        server=$!
        sleep 0.5
        start=$(date +%s.%N)
        ip netns exec "$ns_a" timeout -k 5 900 "$ngx" --connect "$ip_b:$port" -m tcp -x loggp -s "$sizes" "${extra[@]}" \
            -o "$NETNS_DIR/$mode-$r.json" >"$NETNS_DIR/client-$mode-$r.log" 2>&1
        rc=$?
        end=$(date +%s.%N)
        wait "$server"
        [[ $rc == 0 ]] || { echo "round $r $mode: exit $rc"; tail -5 "$NETNS_DIR/client-$mode-$r.log"; }
        echo "$mode $r $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')" >>"$NETNS_DIR/times"
    done
done
python3 - "$NETNS_DIR" "$out" <<'PY'
import json, statistics, sys

work, out = sys.argv[1], sys.argv[2]
runs = []
for line in open(f"{work}/times"):
    mode, rnd, seconds = line.split()
    try:
        doc = json.load(open(f"{work}/{mode}-{rnd}.json"))
    except (OSError, ValueError):
        continue
    run = (doc.get("runs") or [doc])[0]
    model = run.get("model") or doc.get("model") or {}
    ranges = model.get("ranges") or [{}]
    # The detector may split this link at other sizes from run to run, so a
    # range's parameters are compared where every run has them: L, o and g
    # of the range holding the smallest size, G of the one holding the largest;
    # L_eel, the end-to-end latency of the smallest size, stays positive where
    # the range's L is 0 or negative (o and L overlap on this link).
    first, last = ranges[0], ranges[-1]
    runs.append({"mode": mode, "round": int(rnd), "seconds": float(seconds),
                 "samples": sum(r["count"] for r in run["results"]), "ranges": len(ranges),
                 "L_eel_us": (model.get("L_eel_us") or {}).get("value"),
                 "L_us": first.get("L_us"), "o_us": first.get("o_us"), "g_us": first.get("g_us"),
                 "G_us_per_byte": last.get("G_us_per_byte")})
print(f"{'mode':>9} {'round':>5} {'wall s':>8} {'samples':>8} {'ranges':>6} {'L_eel_us':>9} {'L_us':>9} {'o_us':>9} {'g_us':>9} {'G_us/B':>10}")
print("# L, o, g: the range of the smallest size; G: the range of the largest; L_eel: the smallest size's")
for r in runs:
    print(f"{r['mode']:>9} {r['round']:>5} {r['seconds']:>8.1f} {r['samples']:>8} {r['ranges']:>6} "
          + " ".join(f"{r[k]:>9.4g}" if isinstance(r[k], (int, float)) else f"{'-':>9}"
                     for k in ("L_eel_us", "L_us", "o_us", "g_us", "G_us_per_byte")))
summary = {}
for mode in ("fixed", "adaptive"):
    mine = [r for r in runs if r["mode"] == mode]
    if not mine:
        continue
    s = {"median_seconds": statistics.median(r["seconds"] for r in mine), "runs": len(mine)}
    for k in ("L_eel_us", "L_us", "o_us", "g_us", "G_us_per_byte"):
        v = [r[k] for r in mine if isinstance(r[k], (int, float))]
        s[k + "_spread"] = (max(v) - min(v)) / abs(statistics.median(v)) if len(v) > 1 and statistics.median(v) else None
    summary[mode] = s
    spreads = ", ".join(f"{k[:-7]} {100 * s[k]:.1f}%" if s[k] is not None else f"{k[:-7]} -"
                        for k in s if k.endswith("_spread"))
    print(f"# {mode}: median wall {s['median_seconds']:.1f} s over {s['runs']} runs; spread over rounds: {spreads}")
if out:
    json.dump({"runs": runs, "summary": summary}, open(out, "w"), indent=2)
PY
