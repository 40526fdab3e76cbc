#!/bin/bash
# verify.sh: payload validation of the bw pattern (--verify, as OSU's -c).
# Over sim every message of every window arrives intact, one way and both
# ways (exit 0); the fixture module "corrupt" (tests/faults/fixtures,
# found through NGX_FIXTURE_MODULE_DIR) flips the middle byte of every 7th
# message it sends: without --verify the run completes (nothing checked),
# with it ngx exits 1 naming the module, the size and the first bad offset.
source "$(dirname "$0")/common.sh"
: "${NGX_FIXTURE_MODULE_DIR:?meson sets NGX_FIXTURE_MODULE_DIR to the directory of the fixture module}"

for direction in uni bi; do
    bw_run "$SCRATCH/sim-$direction.txt" -m sim --sim-clock virtual --sim-ring-bytes 4Mi -x bw -s 1-16Ki -c 3 \
        --warmup 1 --bw-window 8 --bw-direction "$direction" --verify --timeout 20 ||
        { cat "$SCRATCH/sim-$direction.txt"; fail "--verify over sim ($direction): exit $?"; }
done
echo "ok: --verify over sim, one way and both ways: every payload intact"

export NGX_MODULE_PATH="$NGX_FIXTURE_MODULE_DIR:${NGX_MODULE_PATH:-}"
"$NGX" --list-modules | grep -q '^  corrupt ' || fail "the corrupt fixture module is not found"
CORRUPT=(-m corrupt -x bw -s 64 -c 4 --warmup 1 --bw-window 16 --corrupt-every 7 --timeout 5)
bw_run "$SCRATCH/quiet.txt" "${CORRUPT[@]}"
rc=$?
[[ $rc == 0 ]] || { cat "$SCRATCH/quiet.txt"; fail "without --verify a corrupting module goes unnoticed; exit $rc"; }
bw_run "$SCRATCH/caught.txt" "${CORRUPT[@]}" --verify
rc=$?
[[ $rc == 1 ]] || { cat "$SCRATCH/caught.txt"; fail "--verify over the corrupting module: exit $rc, expected 1"; }
grep -q "module corrupt, size 64 B, .*differs first at offset 32" "$SCRATCH/caught.txt" ||
    { cat "$SCRATCH/caught.txt"; fail "the error does not name module, size and offset"; }
echo "ok: --verify catches the corrupted byte: $(grep -m1 'differs first' "$SCRATCH/caught.txt")"
echo PASS
