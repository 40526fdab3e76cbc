#!/bin/bash
# -x loghssp over sim in virtual time (exact and deterministic), 4 ranks as
# emulated nodes (--host-of), known parameters: sim's o_s and o_r, and a
# per-link table (--sim-links) with a short, wide link within the intra
# pair and a long, narrow one within the inter pair. Each run must pick the
# expected pairs and recover both tiers (Al-Tawil and Moritz 1998 eqs. 8-9):
# s_s = o_s, s_r = o_r, S = the intra link's G; o_s, o_r, L and G of the
# inter link; and pass the checks of loghssp-check.py (stated errors hold,
# ngx predict reads the run, ngx fit --loghssp on the same data fits the
# same tiers). Two placements:
#   n0,n0,n1,n1  intra 1-0, inter 2-0 (driver-responder; ppr:2:node): rank 0
#                responds in both pairs, ranks 1 and 2 drive;
#   a,b,b,c      intra 2-1, inter 3-1: rank 0 idles all along and reports the
#                records the drivers send it.
source "$(dirname "$0")/common.sh"
OS=2 OR=3 L_INTRA=1 G_INTRA=0.0002 L_INTER=20 G_INTER=0.004

run_case() {  # HOSTS INTRA_DRIVER INTRA_RESPONDER INTER_DRIVER INTER_RESPONDER
    local hosts=$1 a=$2 b=$3 c=$4 d=$5
    cat >"$SCRATCH/links.txt" <<LINKS
# FROM TO L(us) G(us/byte)
$a $b $L_INTRA $G_INTRA
$b $a $L_INTRA $G_INTRA
$c $d $L_INTER $G_INTER
$d $c $L_INTER $G_INTER
LINKS
    ngx_deadline 120 --pairs 2 -m sim --sim-clock virtual --sim-os $OS --sim-or $OR \
        --sim-links "$SCRATCH/links.txt" -x loghssp --host-of "$hosts" -s 1,1Ki,4Ki,16Ki -c 20 --warmup 2 \
        -o "$SCRATCH/run.json" >"$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "the run ($hosts) failed"; }
    sed -n '/^# LoGH/,$p' "$SCRATCH/out.txt"
    grep -q "^# LoGH{sS}P" "$SCRATCH/out.txt" || fail "no tiers printed ($hosts)"
    python3 "$(dirname "$0")/loghssp-check.py" "$SCRATCH/run.json" "$NGX" "$SCRATCH" --pairs "$a,$b,$c,$d" ||
        fail "the run's tiers do not hold ($hosts)"
    python3 - "$SCRATCH/run.json" "$SCRATCH/truth.json" <<'PY' || fail "the tiers are not the sim's ($hosts)"
import json, sys
doc, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
m = doc.get("runs", [doc])[0]["model"]
bad = []
for tier, params in truth.items():
    for k, spec in params.items():
        got, want, allowed = m[tier][k], spec["value"], spec["tol"]
        ok = abs(got - want) <= allowed
        print("%s.%s = %.6f, truth %.6f (within %g)%s" % (tier, k, got, want, allowed, "" if ok else "  <-- FAILS"))
        if not ok:
            bad.append("%s.%s" % (tier, k))
sys.exit("FAIL: not recovered: " + ", ".join(bad) if bad else 0)
PY
}

# virtual time is exact: 0.1% (and the float print of the sim's parameters)
python3 - "$SCRATCH/truth.json" $OS $OR $G_INTRA $L_INTER $G_INTER <<'PY'
import json, sys
os_, or_, g_intra, l_inter, g_inter = map(float, sys.argv[2:])
t = lambda v: {"value": v, "tol": 0.001 * v + 1e-9}
json.dump({"intra": {"s_s_us": t(os_), "s_r_us": t(or_), "S_us_per_byte": t(g_intra)},
           "inter": {"o_s_us": t(os_), "o_r_us": t(or_), "L_us": t(l_inter), "G_us_per_byte": t(g_inter)}},
          open(sys.argv[1], "w"))
PY
run_case n0,n0,n1,n1 1 0 2 0
run_case a,b,b,c 2 1 3 1
