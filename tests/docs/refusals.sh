#!/usr/bin/env bash
# The docs test refuses what it promises to refuse: a copy of README.md and
# docs/ with a planted sentence about the build machine's load fails with
# the pattern named, and a copy with every mention of one module option
# (--udp-busy-poll) removed fails naming that option; the tree as it is
# passes (the test docs).
#     refusals.sh SOURCE_ROOT VERSION
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
SOURCE=$1
VERSION=$2
need_ngx
make_scratch
copy() {  # a copy of the pages the docs test reads, in $SCRATCH/$1
    mkdir -p "$SCRATCH/$1/tools"
    cp -r "$SOURCE/README.md" "$SOURCE/docs" "$SCRATCH/$1/"
    cp -r "$SOURCE/tools/docs" "$SCRATCH/$1/tools/"
}
check() {  # check_docs.py over copy $1: its exit code in RC, its output in $SCRATCH/$1.out
    python3 "$SOURCE/tests/docs/check_docs.py" "$SOURCE" "$VERSION" "$SCRATCH/$1" > "$SCRATCH/$1.out" 2>&1
    RC=$?
}

copy load
echo "The table above was taken on the loaded development machine (load average 9.3)." >> "$SCRATCH/load/docs/usage.md"
check load
line=$(wc -l < "$SCRATCH/load/docs/usage.md")
[[ $RC == 1 ]] || fail "a planted sentence about the machine's load: exit $RC, expected 1"
for what in "'load average' narrates a load average" "'the loaded development machine' narrates the build machine"; do
    grep -qF "docs/usage.md:$line: $what" "$SCRATCH/load.out" || { cat "$SCRATCH/load.out"; fail "no line naming $what"; }
done
echo "ok: the planted sentence is refused: $(grep -F "docs/usage.md:$line:" "$SCRATCH/load.out" | head -1)"

copy option
sed -i 's/--udp-busy-poll/(removed)/g' "$SCRATCH/option/README.md" "$SCRATCH/option/docs/"*.md
check option
[[ $RC == 1 ]] || fail "--udp-busy-poll documented nowhere: exit $RC, expected 1"
grep -q "option --udp-busy-poll (ngx --completion bash (core, modules, patterns)) appears in no page" \
    "$SCRATCH/option.out" || { cat "$SCRATCH/option.out"; fail "no line naming --udp-busy-poll"; }
echo "ok: an undocumented option is refused: $(grep -- '--udp-busy-poll' "$SCRATCH/option.out")"
