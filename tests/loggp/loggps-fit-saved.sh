#!/usr/bin/env bash
# loggps-fit-saved.sh: `ngx fit` of a saved loggps run over Open MPI's vader
# (fixtures/loggps-vader.json, 1 B..64 KiB, 30 samples, the 4 KiB eager
# switch) gives no fixed cost and no per-byte cost but G_l clearly below 0.
# The run was made at host load 12: its 1 B and 2 B round trips came out
# 20 ms (the two ranks took turns on one core). Its own fit, made before the
# fit passed over such thresholds, chose s = S = 2 B with L = -11 ms and
# G_s = +9 ms/B to follow those two sizes: terms traded against each other.
# Exit 0 when the re-fit is sane, 1 otherwise.
source "$(dirname "$0")/../lib/common.sh"
need_ngx
make_scratch
out=$SCRATCH
fixture=$(dirname "$0")/fixtures/loggps-vader.json
"$NGX" fit "$fixture" -o "$out/refit.json" || fail "ngx fit exited $?"
python3 - "$out/refit.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["model"]
bad = []
for key in ("L_us", "o_prime_us", "O_s_us_per_byte", "O_r_us_per_byte", "G_s_us_per_byte"):
    value, (low, high) = m[key]["value"], m[key]["ci95"]
    print(f"  {key} {value:.4g} [{low:.4g}, {high:.4g}]")
    if value < 0 and high < 0:
        bad.append(f"{key} {value:.4g}, its interval [{low:.4g}, {high:.4g}] wholly below 0")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
print("PASS: the re-fit keeps every cost but G_l within reach of 0 or above")
PY
