#!/bin/bash
# output-files.sh: results are written through a temporary file nobody can
# plant (issue 31 item 7). A symbolic link planted at the old fixed name
# (out.json.tmp -> victim) is left alone and the victim untouched; on a full
# file system (a small tmpfs in a private mount namespace; skipped without
# one) the run fails naming the file and leaves no temporary file behind.
source "$(dirname "$0")/../integration/lib.sh"
run=(-m tcp -x pingpong -s 1-64 -c 200 --warmup 5 --raw)

echo "precious" >victim
ln -s "$IT_DIR/victim" out.json.tmp
ngx_run 60 "${run[@]}" -o out.json
[[ $RC == 0 ]] || fail "the run failed: $(cat err)"
[[ $(cat victim) == precious ]] || fail "the victim was overwritten: $(head -c 200 victim)"
[[ -L out.json.tmp && $(readlink out.json.tmp) == "$IT_DIR/victim" ]] || fail "the planted link was changed"
python3 -c 'import json; json.load(open("out.json"))' || fail "out.json is not the results"
leftovers=$(find . -name 'out.json.*' ! -name out.json.tmp)
[[ -z $leftovers ]] || fail "temporary files left: $leftovers"
ok "a planted out.json.tmp link is left alone, the victim untouched"

if ! unshare -m true 2>/dev/null; then
    echo "SKIP: no private mount namespace (unshare -m needs root): the full-disk case is not run"
    echo PASS
    exit 0
fi
mkdir full
# 12 pages, 10 of them filled: 8 KiB left for a JSON of 1400 raw samples.
unshare -m bash -c '
    mount -t tmpfs -o size=48k tmpfs full || exit 77
    head -c 40960 /dev/zero >full/filler
    timeout -k 5 60 "$NGX" "$@" -o full/out.json >out 2>err
    echo $? >rc
    ls -A full >listing
' bash "${run[@]}"
status=$?
[[ $status == 77 ]] && { echo "SKIP: cannot mount a tmpfs"; echo PASS; exit 0; }
rc=$(cat rc)
[[ $rc != 0 ]] || fail "the run on a full file system exited 0"
grep -q 'cannot write full/out.json' err || fail "no message naming the file: $(cat err)"
[[ $(cat listing) == filler ]] || fail "files left on the full file system: $(tr '\n' ' ' <listing)"
ok "a full disk: exit $rc, '$(grep -o 'cannot write.*' err | head -1)', nothing left behind"
echo PASS
