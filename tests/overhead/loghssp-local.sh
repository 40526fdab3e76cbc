#!/bin/bash
# -x loghssp in real time on this machine: 4 forked ranks as two emulated
# nodes (--host-of a,a,b,b), over tcp (per-peer links). Real time asserts no
# values: the tiers are present, finite and >= 0, every measured point lies
# within the prediction error the run states for its tier, the saved run is
# a model ngx predict reads, and ngx fit --loghssp on the same data fits the
# same tiers (loghssp-check.py). The refusals are loghssp-bad-input.sh.
source "$(dirname "$0")/common.sh"
need_tool python3
ngx_deadline 120 --pairs 2 -m tcp -x loghssp --host-of a,a,b,b -s 1,1Ki,16Ki -c 60 --warmup 10 \
    -o "$SCRATCH/run.json" >"$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "the run failed"; }
sed -n '/^# LoGH/,$p' "$SCRATCH/out.txt"
python3 "$(dirname "$0")/loghssp-check.py" "$SCRATCH/run.json" "$NGX" "$SCRATCH" --pairs 1,0,2,0 ||
    fail "the run's tiers do not hold"
