#!/usr/bin/env bash
# --adaptive (the --max-rel-ci stopping rule) and the bimodality check, in
# virtual time with seeded noise of a known distribution:
#  - jitter:0.01, --max-rel-ci 2: every size's interval is narrow after its
#    first pass, so each stops at one step (125 of -c 1000) for "interval";
#  - jitter:0.3, --max-rel-ci 0.5: too noisy for the rule within -c 600, so
#    the sizes run to the cap (count 600, stopped for "count");
#  - without --adaptive the same run keeps exactly -c;
#  - bimodal:0.3:3 (a message's L times 3 with probability 0.3) is flagged
#    bimodal at 1 B, with the footer note and the clusters in the JSON;
#    jitter:0.05 is flagged nowhere;
#  - bad input: --adaptive with --max-rel-ci off, --max-size-time without
#    --adaptive, --adaptive with --passes: exit 2.
# Both ranks follow the driver's stop decisions through the bootstrap: a
# disagreement would fail the run (a pass announced that the peer did not expect).
source "$(dirname "$0")/common.sh"
model=(-m sim --sim-clock virtual --sim-L 5 --sim-os 3 --sim-or 2 --sim-g 6 --sim-G 0.002 -x pingpong -s 1,1Ki,64Ki)
run() { # name, arguments...
    local name=$1
    shift
    "$NGX" "${model[@]}" "$@" -o "$SCRATCH/$name.json" >"$SCRATCH/$name.txt" 2>&1 ||
        { cat "$SCRATCH/$name.txt"; fail "$name: exit code $?"; }
}
run tight --sim-noise jitter:0.01 -c 1000 --adaptive --max-rel-ci 2
run wide --sim-noise jitter:0.3 -c 600 --adaptive --max-rel-ci 0.5
run fixed --sim-noise jitter:0.01 -c 1000
run bimodal --sim-noise bimodal:0.3:3 -c 400
run jitter --sim-noise jitter:0.05 -c 400
grep -q "^# bimodal: 1 B" "$SCRATCH/bimodal.txt" || { cat "$SCRATCH/bimodal.txt"; fail "no bimodal note for 1 B"; }
grep -q "^# adaptive: 3 sizes stopped within the 2% interval" "$SCRATCH/tight.txt" ||
    { cat "$SCRATCH/tight.txt"; fail "no adaptive summary line"; }
python3 - "$SCRATCH" <<'PY' || fail "see above"
import json, sys

scratch = sys.argv[1]
ok = True


def check(good, text):
    global ok
    ok &= good
    print(("ok   " if good else "FAIL ") + text)


def run_of(name):
    doc = json.load(open(f"{scratch}/{name}.json"))
    return (doc.get("runs") or [doc])[0]


tight = run_of("tight")
counts = [r["count"] for r in tight["results"]]
check(counts == [125, 125, 125], f"jitter 1%, --max-rel-ci 2: each size stops after one step of 125 ({counts})")
stopped = tight["measurement"]["adaptive"]["stopped_bytes"]
check(stopped["interval"] == [1, 1024, 65536], f"  ... stopped by the interval rule ({stopped})")
wide = run_of("wide")
counts = [r["count"] for r in wide["results"]]
check(counts == [600, 600, 600], f"jitter 30%, --max-rel-ci 0.5: the sizes run to the -c 600 cap ({counts})")
check(wide["measurement"]["adaptive"]["stopped_bytes"]["count"] == [1, 1024, 65536], "  ... stopped for count")
counts = [r["count"] for r in run_of("fixed")["results"]]
check(counts == [1000, 1000, 1000], f"without --adaptive: exactly -c 1000 ({counts})")
bimodal = run_of("bimodal")
flags = {r["size_bytes"]: r["bimodal"] for r in bimodal["results"]}
check(flags[1] == 1, f"bimodal:0.3:3 flagged at 1 B ({flags})")
clusters = {c["size_bytes"]: c for c in bimodal["measurement"]["bimodal"]}
# o_s + L + o_r = 10 us; one of the two messages' L tripled adds (3 - 1) L / 2 = 5 us to the half round trip.
check(1 in clusters and abs(clusters[1]["low_median_us"] - 10) < 1e-6 and abs(clusters[1]["high_median_us"] - 15) < 1e-6,
      f"  ... with its two clusters, 10 and 15 us, in the JSON ({clusters.get(1)})")
flags = [r["bimodal"] for r in run_of("jitter")["results"]]
check(flags == [0, 0, 0], f"jitter:0.05 flagged nowhere ({flags})")
sys.exit(0 if ok else 1)
PY
expect_ngx_usage "--max-rel-ci off" "--max-rel-ci off" "${model[@]}" -c 100 --adaptive --max-rel-ci off
expect_ngx_usage "--max-size-time" "--max-size-time" "${model[@]}" -c 100 --max-size-time 5
expect_ngx_usage "--passes" "--passes" "${model[@]}" -c 100 --adaptive --passes 2
expect_ngx_usage "max-size-time" "max-size-time" "${model[@]}" -c 100 --adaptive --max-size-time 0
echo PASS
