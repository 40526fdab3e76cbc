#!/bin/bash
# simlink-segment.sh: sim's shared-link segment (--sim-RN/--sim-RC) cannot be
# planted by another user. A segment of its name made beforehand by another
# user, mode 0666, is refused naming it, and left as it was; without it the
# run works; after both runs no segment of the run's name is left. Needs
# root (to plant a segment as another user); skipped otherwise.
source "$(dirname "$0")/../lib/ngx-run.sh"
need_root "to plant a segment as another user"
[[ -d /dev/shm ]] || skip "no /dev/shm"
name=ngxtest$$
run=(-m sim -x pingpong -s 1-64 -c 20 --warmup 2 --sim-RN 1e9 --sim-link "$name" --timeout 10)
segment=/dev/shm/ngx-simlink-$name-A
cleanup_segments() { rm -f /dev/shm/ngx-simlink-"$name"-*; }
trap 'cleanup_segments; it_cleanup' EXIT

head -c 8192 /dev/zero >"$segment"
chown nobody "$segment"
chmod 666 "$segment"
ngx_run 60 "${run[@]}"
[[ $RC == 1 ]] || fail "a planted segment: exit $RC, expected 1: $(cat err)"
grep -q "ngx-simlink-$name-A exists and belongs to another user" err || fail "the refusal does not name it: $(cat err)"
[[ $(stat -c '%U %a %s' "$segment") == "nobody 666 8192" ]] || fail "the planted segment was changed: $(stat -c '%U %a %s' "$segment")"
[[ ! -e /dev/shm/ngx-simlink-$name-B ]] || fail "the B side's segment was left behind"
ok "a planted segment refused: $(grep -o 'the shared segment.*' err | head -1 | cut -c1-100)"

rm -f "$segment"
ngx_run 60 "${run[@]}"
[[ $RC == 0 ]] || fail "without a planted segment: exit $RC: $(cat err)"
left=$(ls /dev/shm | grep -c "ngx-simlink-$name" || true)
[[ $left == 0 ]] || fail "$left segments left after the run"
ok "the run creates its own segments and removes them"
echo PASS
