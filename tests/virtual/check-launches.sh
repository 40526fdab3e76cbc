#!/usr/bin/env bash
# ngx check across launches, on the sim in virtual time (exact: every median
# below is the model's, and every verdict the same on every machine). The
# network: o_s 3, L 5, o_r 2, g 6 us, G 0.002 us/B; sizes 1 B, 1 KiB, 64 KiB
# (half round trips 10, 12.046, 141.07 us).
#  1. One launch against one (default minimum effect 15% per size):
#     - another launch of the same network (another seed of the jitter): exit 0;
#     - every cost 10% higher (a launch-to-launch-like shift): exit 0, all
#       three "within tolerance" (at --tolerance 5%, the old default: exit 1);
#     - latency 20% higher (L 5 -> 7 us): exit 1, 1 B and 1 KiB flagged, 64 KiB not;
#     - a link 15% slower (G / 0.85): exit 1, 64 KiB flagged, 1 B not.
#  2. A baseline of 6 launches (--launches 6, launch-to-launch noise of sd
#     10%, --sim-noise launch:0.1): each size tested between launches (t test
#     on the 6 launch medians against the new one):
#     - launch 4 of that family, 51% above launch 2 and 25% above the mean
#       of the 6: one launch against the other cries wolf (exit 1), against
#       the 6 launches passes (exit 0);
#     - with sd 3% between launches, a new launch with L 5 -> 7 (+20%) is
#       flagged (exit 1) and an unchanged one is not (exit 0);
#     - the text and JUnit say how many launches each side held.
#  3. Fitted parameters between launches (loggp, 4 launches of sd 5%): a new
#     launch of the same network passes, its per-byte overheads fitted as 0
#     (+- 1e-11) included; one with L 5 -> 8 us has L_us flagged.
source "$(dirname "$0")/common.sh"
cd "$SCRATCH" || fail "cd $SCRATCH"
net() { echo "--sim-os ${1:-3} --sim-L ${2:-5} --sim-or ${3:-2} --sim-g ${4:-6} --sim-G ${5:-0.002}"; }
measure() { # measure FILE NETWORK [OPTION...]
    local file=$1 network=$2
    shift 2
    # shellcheck disable=SC2086
    "$NGX" -m sim --sim-clock virtual $network -x pingpong -s 1,1Ki,64Ki -c 100 --raw "$@" -o "$file" >log 2>&1 ||
        { cat log; fail "ngx $network $* -o $file"; }
}
check() { # check EXPECTED_EXIT ARG...: ngx check ARG..., output in out
    local want=$1
    shift
    "$NGX" check "$@" >out 2>&1
    local rc=$?
    cat out
    [[ $rc == "$want" ]] || fail "ngx check $*: exit $rc, want $want"
}
row() { grep -Eq "^ +$1 .* $2\$" out || fail "the $1 row is not '$2'"; }

# --- 1. one launch against one -------------------------------------------------
measure base.json "$(net)" --sim-noise jitter:0.02 --sim-seed 1
measure same.json "$(net)" --sim-noise jitter:0.02 --sim-seed 2
measure shifted.json "$(net 3.3 5.5 2.2 6.6 0.0022)" --sim-noise jitter:0.02 --sim-seed 3
measure latency.json "$(net 3 7)" --sim-noise jitter:0.02 --sim-seed 4
measure slower.json "$(net 3 5 2 6 0.00235294)" --sim-noise jitter:0.02 --sim-seed 5
check 0 base.json same.json
grep -q 'beyond 15%$' out || fail "the default minimum effect against one launch is not 15%"
check 0 base.json shifted.json
for size in "1 B" "1 KiB" "64 KiB"; do row "$size" "within tolerance"; done
check 1 --tolerance 5% base.json shifted.json
check 1 base.json latency.json
row "1 B" regression
row "1 KiB" regression
row "64 KiB" "within tolerance"
grep -Eq '^ +1 B +10\.[0-9]* +12\.[0-9]* +\+(19\.[5-9]|20\.[0-5])%' out || fail "1 B is not +20%"
check 1 base.json slower.json
row "64 KiB" regression
row "1 B" unchanged
echo "ok: one launch against one: a 10% shift passes, latency +20% and a link 15% slower are flagged"

# --- 2. a baseline of several launches -----------------------------------------
noisy=(--sim-noise launch:0.1+jitter:0.02 --sim-seed 1)
measure six.json "$(net)" "${noisy[@]}" --launches 6
NGX_LAUNCH=2 measure launch2.json "$(net)" "${noisy[@]}"
NGX_LAUNCH=4 measure launch4.json "$(net)" "${noisy[@]}"
check 1 launch2.json launch4.json
grep -Eq '^ +1 B +7\.[0-9]+ +11\.[0-9]+ +\+[0-9.]+% .* regression$' out || fail "launch 2 against launch 4 at 1 B"
check 0 six.json launch4.json
grep -q '^between launches (6 baseline, 1 new): t tests' out || fail "the text does not say it tests between launches"
grep -q 'beyond 5%$' out || fail "the minimum effect between launches is not 5%"
quiet=(--sim-noise launch:0.03+jitter:0.02 --sim-seed 7)
measure quiet6.json "$(net)" "${quiet[@]}" --launches 6
NGX_LAUNCH=9 measure quiet-next.json "$(net)" "${quiet[@]}"
NGX_LAUNCH=9 measure quiet-latency.json "$(net 3 7)" "${quiet[@]}"
check 0 quiet6.json quiet-next.json
check 1 quiet6.json quiet-latency.json
row "1 B" regression
row "64 KiB" unchanged
check 0 six.json six.json
check 1 --format junit quiet6.json quiet-latency.json
grep -q '<property name="launches" value="6 1"/>' out || fail "JUnit does not give the launches of each side"
"$NGX" launches six.json launch2.json >out 2>&1
[[ $? == 2 ]] && grep -q 'six.json: holds 6 launches already' out || fail "ngx launches took a file of 6 launches as one"
echo "ok: a baseline of 6 launches absorbs what launches spread and still flags latency +20%"

# --- 3. fitted parameters between launches -------------------------------------
loggp() { # loggp FILE L [OPTION...]
    local file=$1 latency=$2
    shift 2
    "$NGX" -m sim --sim-clock virtual --sim-L "$latency" -x loggp -s 1-4Ki --sim-noise launch:0.05 "$@" \
        -o "$file" >log 2>&1 || { cat log; fail "ngx -x loggp -o $file"; }
}
loggp fit4.json 5 --launches 4
NGX_LAUNCH=6 loggp fit-next.json 5
NGX_LAUNCH=6 loggp fit-latency.json 8
check 0 fit4.json fit-next.json
grep -Eq '^ +O_us_per_byte \[1 B\.\.4 KiB\] .* unchanged$' out || fail "O_us_per_byte (fitted as 0) is not unchanged"
check 1 fit4.json fit-latency.json
row 'L_us \[1 B\.\.4 KiB\]' regression
grep -c ' regression$' out | grep -qx 1 || fail "only L_us must be flagged"
echo "ok: parameters between launches: L 5 -> 8 us flagged, parameters fitted as 0 not"
echo PASS
