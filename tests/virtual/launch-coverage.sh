#!/usr/bin/env bash
# Intervals between launches (--launches K), over launch-to-launch shifts
# of a known size: the sim in virtual time with --sim-noise launch:0.1
# (every cost of the model times 1 + N(0, 0.1), cut at 3 sigma, drawn once
# per launch from the launch's seed) and jitter:0.02 within each launch.
# Per seed 1..N one `ngx --launches 4` (4 fresh launches), then one more
# launch (NGX_LAUNCH=4, the 5th seed of that family) as "tomorrow's":
#  - the 95% interval of the mean over launches (Student t, 3 degrees of
#    freedom) holds the true half round trip o_s + L + o_r + (s-1)G at 1 B
#    and 4 KiB in 88-100% of the 2N intervals (nominal 95%);
#  - the next-launch 95% interval holds tomorrow's median in 88-100%;
#  - what one launch states (its own 95% interval of the median) holds
#    tomorrow's median far less often (below 50%): the point of --launches;
#  - every launch's document is kept, and with more than 2 CPUs the launches
#    ran on different CPU pairs.
# Deterministic: the same seeds give the same numbers on every machine.
source "$(dirname "$0")/common.sh"
seeds=${NGX_COVERAGE_SEEDS:-50}
model=(-m sim --sim-clock virtual --sim-L 5 --sim-os 3 --sim-or 2 --sim-g 6 --sim-G 0.002 -x pingpong -s 1,4Ki -c 100)
for ((seed = 1; seed <= seeds; seed++)); do
    noisy=("${model[@]}" --sim-noise launch:0.1+jitter:0.02 --sim-seed "$seed")
    "$NGX" "${noisy[@]}" --launches 4 -o "$SCRATCH/k-$seed.json" >"$SCRATCH/log" 2>&1 ||
        { cat "$SCRATCH/log"; fail "--launches 4, seed $seed"; }
    NGX_LAUNCH=4 "$NGX" "${noisy[@]}" -o "$SCRATCH/next-$seed.json" >"$SCRATCH/log" 2>&1 ||
        { cat "$SCRATCH/log"; fail "the next launch, seed $seed"; }
done
"$NGX" "${model[@]}" --launches 2 >"$SCRATCH/table.txt" 2>&1 || { cat "$SCRATCH/table.txt"; fail "--launches 2"; }
grep -q "95% intervals between launches: Student t over the 2 launch values" "$SCRATCH/table.txt" ||
    { cat "$SCRATCH/table.txt"; fail "the table does not say what its intervals are"; }
python3 - "$SCRATCH" "$seeds" "$(nproc)" <<'PY'
import json, sys

scratch, seeds, cpus = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
L, os_, or_, G = 5.0, 3.0, 2.0, 0.002
held = next_held = single_held = total = 0


def run_of(doc):
    return (doc.get("runs") or [doc])[0]


ok = True
for seed in range(1, seeds + 1):
    summary = json.load(open(f"{scratch}/k-{seed}.json"))
    if len(summary["launches"]) != 4 or any("results" not in run_of(l["document"]) for l in summary["launches"]):
        print(f"seed {seed}: the summary does not keep the 4 launches' documents")
        ok = False
    if seed == 1 and cpus > 2:
        pairs = {tuple(l["cpus"]) for l in summary["launches"]}
        if len(pairs) < 2:
            print(f"{cpus} CPUs, but every launch ran on {pairs}")
            ok = False
    nxt = {r["size_bytes"]: r for r in run_of(json.load(open(f"{scratch}/next-{seed}.json")))["results"]}
    first = {r["size_bytes"]: r for r in run_of(summary["launches"][0]["document"])["results"]}
    for size in summary["between_launches"][0]["sizes"]:
        s = size["size_bytes"]
        truth = os_ + L + or_ + max(s - 1, 0) * G
        lo, hi = size["ci95"]
        nlo, nhi = size["next_launch95"]
        tomorrow = nxt[s]["median_us"]
        total += 1
        held += lo <= truth <= hi
        next_held += nlo <= tomorrow <= nhi
        single_held += first[s]["median_ci95_lo_us"] <= tomorrow <= first[s]["median_ci95_hi_us"]
for name, count, low, high in (("95% CI of the mean over 4 launches holds the truth", held, 0.88, 1.0),
                               ("next-launch 95% interval holds the next launch's median", next_held, 0.88, 1.0),
                               ("one launch's own 95% interval holds the next launch's median", single_held, 0.0, 0.5)):
    share = count / total
    good = low <= share <= high
    ok &= good
    print(f"{name}: {count} of {total} ({100 * share:.1f}%; accepted {100 * low:.0f}-{100 * high:.0f}%)"
          f"{'' if good else '  <-- FAILS'}")
sys.exit(0 if ok else 1)
PY
rc=$?
[[ $rc == 0 ]] || fail "the between-launch intervals do not hold at their nominal rate"
# Bad input: exit 2, naming what is wrong.
expect_usage "--launches '1'" "--launches '1'" "$NGX" "${model[@]}" --launches 1
expect_usage "FILE.json" "FILE.json" "$NGX" "${model[@]}" --launches 2 -o "$SCRATCH/a.csv"
expect_usage "at least two launches" "at least two launches" "$NGX" launches "$SCRATCH/k-1.json"
"$NGX" -m sim --sim-clock virtual -x loggp -s 1-1Ki -o "$SCRATCH/loggp.json" >"$SCRATCH/log" 2>&1 ||
    { cat "$SCRATCH/log"; fail "a loggp run"; }
expect_usage "not launches of one measurement" "not launches of one measurement" "$NGX" launches "$SCRATCH/next-1.json" "$SCRATCH/loggp.json"
echo PASS
